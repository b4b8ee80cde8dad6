// Package backend is vloki's client of the VictoriaLogs HTTP API. The same
// client talks to an external VictoriaLogs (single node, or a cluster's
// vlselect/vlinsert) over the network, or to the embedded engine through an
// in-process http.RoundTripper.
package backend

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// Client calls VictoriaLogs.
type Client struct {
	// sel takes queries, metadata and tails (a cluster's vlselect
	// replicas), ins the ingestion requests (its vlinsert replicas).
	sel, ins *pool
	http     *http.Client
	// streaming has no overall timeout: live tails last as long as their
	// context.
	streaming *http.Client
	observe   func(endpoint string, d time.Duration, err error)
	// direct, when set, runs queries in-process without HTTP.
	direct DirectQuerier
	// breaker fails requests fast while VictoriaLogs is unreachable.
	breaker *gobreaker.CircuitBreaker[*http.Response]
	// dialect is what this backend's release does differently.
	dialect Dialect
}

// Dialect is what the backend's VictoriaLogs release does differently from
// the others vloki supports, as learnt so far.
func (c *Client) Dialect() *Dialect { return &c.dialect }

// Options configure a Client.
type Options struct {
	// Timeout bounds a whole request, including reading the answer.
	Timeout time.Duration
	// Observe, when set, is called after every request with its duration.
	Observe func(endpoint string, d time.Duration, err error)
	// Direct, when set, runs LogsQL queries without HTTP (the embedded
	// engine); every other request still goes through the transport.
	Direct DirectQuerier
	// InsertURL, when set, receives pushes instead of the base URL: a
	// VictoriaLogs cluster's vlinsert, the base being its vlselect.
	InsertURL string
	// SelectURL, when set, receives queries, metadata and tails instead
	// of the base URL (a cluster's vlselect).
	SelectURL string
}

// NewHTTPTransport returns a transport sized for many concurrent requests to
// one host: Go's default of 2 idle connections per host exhausts ports under
// load.
func NewHTTPTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   512,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0,
		ExpectContinueTimeout: time.Second,
	}
}

// New returns a client of the VictoriaLogs at baseURL that sends requests
// through rt. Each URL may be a comma-separated list of replicas.
func New(baseURL string, rt http.RoundTripper, opts Options) (*Client, error) {
	selectURL, insertURL := baseURL, baseURL
	if opts.SelectURL != "" {
		selectURL = opts.SelectURL
	}
	if opts.InsertURL != "" {
		insertURL = opts.InsertURL
	}
	sel, err := newPool(selectURL)
	if err != nil {
		return nil, err
	}
	insert, err := newPool(insertURL)
	if err != nil {
		return nil, err
	}
	observe := opts.Observe
	if observe == nil {
		observe = func(string, time.Duration, error) {}
	}
	return &Client{
		sel: sel, ins: insert, http: &http.Client{Transport: rt, Timeout: opts.Timeout}, streaming: &http.Client{Transport: rt},
		observe: observe, breaker: newBreaker(), direct: opts.Direct,
	}, nil
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil {
		return nil, fmt.Errorf("invalid VictoriaLogs URL %q: %w", raw, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid VictoriaLogs URL %q: want scheme://host[:port]", raw)
	}
	return u, nil
}

// BaseURL is the VictoriaLogs URL (or URLs) the client queries.
func (c *Client) BaseURL() string { return c.sel.String() }

// Error is a non-2xx answer from VictoriaLogs.
type Error struct {
	Endpoint string
	Status   int
	Body     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("VictoriaLogs %s answered %d: %s", e.Endpoint, e.Status, strings.TrimSpace(e.Body))
}

// do sends a request and returns the response when VictoriaLogs answered
// 2xx. The caller closes the body.
func (c *Client) do(ctx context.Context, t tenant.ID, method, path string, form url.Values, body io.Reader, hdr http.Header) (*http.Response, error) {
	return c.send(ctx, c.http, t, method, path, form, body, hdr)
}

// send is do through the given client (the streaming one for live tails).
// A connection a replica refuses goes to the next one (nothing was sent).
func (c *Client) send(ctx context.Context, client *http.Client, t tenant.ID, method, path string, form url.Values, body io.Reader, hdr http.Header) (*http.Response, error) {
	p := c.sel
	if strings.HasPrefix(path, "/insert/") {
		p = c.ins
	}
	query := ""
	if method == http.MethodGet || body != nil {
		query = form.Encode()
	} else {
		body = strings.NewReader(form.Encode())
		hdr = cloneWith(hdr, "Content-Type", "application/x-www-form-urlencoded")
	}
	metrics.CountBackendRequest(ctx)
	var resp *http.Response
	var err error
	for attempt := 0; ; attempt++ {
		i := p.pick()
		resp, err = c.sendTo(ctx, client, t, *p.urls[i], method, path, query, body, hdr)
		if err == nil {
			p.markUp(i)
			break
		}
		if !refused(err) {
			return nil, c.classify(ctx, breakerError(err))
		}
		p.markDown(i)
		if attempt+1 >= len(p.urls) || !rewind(body) {
			return nil, c.classify(ctx, breakerError(err))
		}
	}
	resp.Body = &classifyingBody{ReadCloser: resp.Body, ctx: ctx, c: c}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		err := &Error{Endpoint: path, Status: resp.StatusCode, Body: string(b)}
		if storageNodeUnreachable(err.Body) {
			// A cluster's vlselect cannot answer whole: a 503, never part.
			return nil, &UnavailableError{Reason: "has a storage node it cannot reach", Err: err}
		}
		return nil, err
	}
	return resp, nil
}

func (c *Client) sendTo(ctx context.Context, client *http.Client, t tenant.ID, u url.URL, method, path, query string, body io.Reader, hdr http.Header) (*http.Response, error) {
	u.Path += path
	u.RawQuery = query
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("AccountID", strconv.FormatUint(uint64(t.AccountID), 10))
	req.Header.Set("ProjectID", strconv.FormatUint(uint64(t.ProjectID), 10))
	return c.breaker.Execute(func() (*http.Response, error) { return client.Do(req) })
}

func cloneWith(h http.Header, k, v string) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set(k, v)
	return out
}

// timed runs fn and reports its duration to the observer.
func (c *Client) timed(endpoint string, fn func() error) error {
	start := time.Now()
	err := fn()
	c.observe(endpoint, time.Since(start), err)
	return err
}
