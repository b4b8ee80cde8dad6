package eval

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/golang/snappy"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/prometheus/prometheus/storage/remote"
)

// relay stands between Prometheus' queues and the receivers. Each queue
// writes to it on loopback; it forwards each request as it came to the
// client's receiver, with the client's settings, answers the queue with
// the receiver's answer, and notes in the client's sentLog what the
// receiver took. Prometheus' queue tells no one which samples reached
// the receiver, and a restart must resend exactly the others.
type relay struct {
	ln     net.Listener
	srv    *http.Server
	token  string
	routes []*relayRoute
	// stopping: requests the receiver does not take are refused for good
	// (400), so that the queues stop at once; the samples stay unsent in
	// the WAL and are resent after the restart.
	stopping chan struct{}
	log      *slog.Logger
}

// relayRoute is one client.
type relayRoute struct {
	cfg    *config.RemoteWriteConfig // the client's own
	client *remote.Client
	sent   *sentLog
}

// relayTokenHeader carries the relay's secret: only vloki's queues may
// write through it with the tenant's credentials.
const relayTokenHeader = "X-Vloki-Relay-Token"

// maxRelayBody bounds a request (a batch is max_samples_per_send samples).
const maxRelayBody = 64 << 20

// startRelay listens on a loopback port for the clients.
func startRelay(cfgs []*config.RemoteWriteConfig, logs map[string]*sentLog, log *slog.Logger) (*relay, error) {
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	r := &relay{token: hex.EncodeToString(token), stopping: make(chan struct{}), log: log}
	for _, cfg := range cfgs {
		c, err := receiverClient(cfg)
		if err != nil {
			return nil, err
		}
		r.routes = append(r.routes, &relayRoute{cfg: cfg, client: c, sent: logs[cfg.Name]})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.ln = ln
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// receiverClient is the client Prometheus' remote storage would build
// for cfg.
func receiverClient(cfg *config.RemoteWriteConfig) (*remote.Client, error) {
	c, err := remote.NewWriteClient(cfg.Name, &remote.ClientConfig{
		URL:              cfg.URL,
		WriteProtoMsg:    cfg.ProtobufMessage,
		Timeout:          cfg.RemoteTimeout,
		HTTPClientConfig: cfg.HTTPClientConfig,
		SigV4Config:      cfg.SigV4Config,
		AzureADConfig:    cfg.AzureADConfig,
		GoogleIAMConfig:  cfg.GoogleIAMConfig,
		Headers:          cfg.Headers,
		RetryOnRateLimit: cfg.QueueConfig.RetryOnRateLimit,
		RoundRobinDNS:    cfg.RoundRobinDNS,
	})
	if err != nil {
		return nil, err
	}
	rc, ok := c.(*remote.Client)
	if !ok {
		return nil, fmt.Errorf("remote write client %T", c)
	}
	return rc, nil
}

// queueURL is route i's address.
func (r *relay) queueURL(i int) string {
	return fmt.Sprintf("http://%s/%d", r.ln.Addr(), i)
}

// queueConfigs are the configurations Prometheus' remote storage gets:
// the clients' queues, each writing to its route; the receiver's
// address and credentials stay with the relay.
func (r *relay) queueConfigs() []*config.RemoteWriteConfig {
	out := make([]*config.RemoteWriteConfig, len(r.routes))
	for i, rt := range r.routes {
		q := *rt.cfg
		u, _ := url.Parse(r.queueURL(i))
		q.URL = &commoncfg.URL{URL: u}
		q.HTTPClientConfig = commoncfg.DefaultHTTPClientConfig
		q.Headers = map[string]string{relayTokenHeader: r.token}
		q.SigV4Config, q.AzureADConfig, q.GoogleIAMConfig, q.RoundRobinDNS = nil, nil, nil, false
		out[i] = &q
	}
	return out
}

// receiverURLs maps each queue's url metric label to its receiver's.
func (r *relay) receiverURLs() map[string]string {
	m := map[string]string{}
	for i, rt := range r.routes {
		m[r.queueURL(i)] = rt.cfg.URL.Redacted()
	}
	return m
}

// stop refuses what the receivers do not take (see stopping).
func (r *relay) stop() {
	select {
	case <-r.stopping:
	default:
		close(r.stopping)
	}
}

func (r *relay) Close() error { return r.srv.Close() }

func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rt := r.route(req)
	if rt == nil {
		http.NotFound(w, req)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxRelayBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Each series reaches the receiver in timestamp order: the queue's
	// samples are newer than any the resend sends.
	select {
	case <-rt.sent.replayed:
	case <-r.stopping:
		http.Error(w, "vloki is stopping: the samples stay in the WAL and are sent after the restart", http.StatusBadRequest)
		return
	case <-req.Context().Done():
		return
	}
	resp, err := rt.forward(req, body)
	if err != nil {
		r.refuse(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer resp.Body.Close()
	r.answer(w, rt, req.Header.Get("Content-Type"), body, resp)
}

// route is the client a queue's request is for; nil without the token.
func (r *relay) route(req *http.Request) *relayRoute {
	if subtle.ConstantTimeCompare([]byte(req.Header.Get(relayTokenHeader)), []byte(r.token)) != 1 || req.Method != http.MethodPost {
		return nil
	}
	i, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/"))
	if err != nil || i < 0 || i >= len(r.routes) {
		return nil
	}
	return r.routes[i]
}

// answer notes what the receiver took and answers the queue as it did.
func (r *relay) answer(w http.ResponseWriter, rt *relayRoute, contentType string, body []byte, resp *http.Response) {
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if rt.taken(resp.StatusCode) {
		if err := rt.ack(contentType, body); err != nil {
			r.log.Warn("ruler remote write: reading an acknowledged request; its samples will be sent again after a restart", "remote_name", rt.cfg.Name, "err", err)
		}
	} else if r.isStopping() {
		r.refuse(w, resp.StatusCode, string(answer))
		return
	}
	for k, vs := range resp.Header {
		switch k {
		case "Content-Length", "Connection", "Transfer-Encoding":
		default:
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// refuse answers a failure the queue retries, or, once stopping, one it
// drops.
func (r *relay) refuse(w http.ResponseWriter, status int, msg string) {
	if r.isStopping() {
		http.Error(w, "vloki is stopping, the receiver failed ("+msg+"): the samples stay in the WAL and are sent after the restart", http.StatusBadRequest)
		return
	}
	http.Error(w, msg, status)
}

func (r *relay) isStopping() bool {
	select {
	case <-r.stopping:
		return true
	default:
		return false
	}
}

// forward sends the queue's request to the receiver.
func (rt *relayRoute) forward(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := req.Context(), context.CancelFunc(func() {})
	if timeout := time.Duration(rt.cfg.RemoteTimeout); timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, rt.client.Endpoint(), bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, err
	}
	for _, h := range []string{"Content-Encoding", "Content-Type", "User-Agent", remote.RemoteWriteVersionHeader, "Retry-Attempt"} {
		if v := req.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	resp, err := rt.client.Client.Do(out)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// taken says whether the queue is done with a request so answered: the
// receiver took it, or refused it for good (the queue drops it).
func (rt *relayRoute) taken(status int) bool {
	if status/100 == 2 {
		return true
	}
	return status/100 == 4 && (status != http.StatusTooManyRequests || !rt.cfg.QueueConfig.RetryOnRateLimit)
}

// ack notes the request's samples as handled.
func (rt *relayRoute) ack(contentType string, body []byte) error {
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return err
	}
	if strings.Contains(contentType, "io.prometheus.write.v2.Request") {
		return ackV2(rt.sent, raw)
	}
	var req prompb.WriteRequest
	if err := req.Unmarshal(raw); err != nil {
		return err
	}
	var b labels.ScratchBuilder
	for _, ts := range req.Timeseries {
		if len(ts.Samples) == 0 {
			continue
		}
		b.Reset()
		for _, l := range ts.Labels {
			b.Add(l.Name, l.Value)
		}
		b.Sort()
		highest := ts.Samples[0].Timestamp
		for _, x := range ts.Samples[1:] {
			highest = max(highest, x.Timestamp)
		}
		rt.sent.ack(b.Labels(), highest)
	}
	return nil
}

func ackV2(sent *sentLog, raw []byte) error {
	var req writev2.Request
	if err := req.Unmarshal(raw); err != nil {
		return err
	}
	var b labels.ScratchBuilder
	for _, ts := range req.Timeseries {
		if len(ts.Samples) == 0 {
			continue
		}
		l, err := ts.ToLabels(&b, req.Symbols)
		if err != nil {
			return err
		}
		highest := ts.Samples[0].Timestamp
		for _, x := range ts.Samples[1:] {
			highest = max(highest, x.Timestamp)
		}
		sent.ack(l, highest)
	}
	return nil
}
