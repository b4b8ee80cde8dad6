package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/prompb"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/storage/remote"
)

// backfillSample is one sample a backfilled group appended.
type backfillSample struct {
	l labels.Labels
	t int64
	v float64
}

// backfillAppendable collects what a group's evaluation commits, as the
// live WAL appender accepts it: labels without empty values, and a sample
// not after its series' last committed one refused as out of order (so a
// series two rules write is written once, as live).
type backfillAppendable struct {
	// discard: commits update the series' last timestamps only (the
	// slot evaluated before the range).
	discard   bool
	committed []backfillSample
	last      map[string]int64
}

func (a *backfillAppendable) Appender(context.Context) storage.Appender {
	if a.last == nil {
		a.last = map[string]int64{}
	}
	return &backfillAppender{to: a}
}

// take hands over the samples committed since the last take.
func (a *backfillAppendable) take() []backfillSample {
	out := a.committed
	a.committed = nil
	return out
}

type backfillAppender struct {
	storage.Appender // the rest is never called for LogQL results
	to               *backfillAppendable
	pending          []backfillSample
}

func (a *backfillAppender) Append(_ storage.SeriesRef, l labels.Labels, t int64, v float64) (storage.SeriesRef, error) {
	l = l.WithoutEmpty()
	if l.IsEmpty() {
		return 0, errors.New("empty labelset")
	}
	if last, ok := a.to.last[string(l.Bytes(nil))]; ok && t <= last {
		return 0, storage.ErrOutOfOrderSample
	}
	a.pending = append(a.pending, backfillSample{l, t, v})
	return 0, nil
}

func (a *backfillAppender) SetOptions(*storage.AppendOptions) {}

func (a *backfillAppender) Commit() error {
	for _, s := range a.pending {
		key := string(s.l.Bytes(nil))
		if last, ok := a.to.last[key]; !ok || s.t >= last {
			a.to.last[key] = s.t
		}
	}
	if !a.to.discard {
		a.to.committed = append(a.to.committed, a.pending...)
	}
	a.pending = nil
	return nil
}

func (a *backfillAppender) Rollback() error {
	a.pending = nil
	return nil
}

// backfillBatch is Prometheus' default max_samples_per_send.
const backfillBatch = 2000

// Retries of a failed remote write: Prometheus' queue backoff (30ms
// doubling to 5s), but a bounded number of attempts, since a backfill
// answers its caller.
const (
	backfillMinBackoff = 30 * time.Millisecond
	backfillMaxBackoff = 5 * time.Second
	backfillAttempts   = 10
)

// remoteSender sends backfilled samples in remote write v1 batches to
// each of the ruler's remote write clients, with their settings (URL,
// basic auth, headers, X-Scope-OrgID).
type remoteSender struct {
	clients []remote.WriteClient
	pending []backfillSample
	// queued counts the samples added, sent those that reached the
	// receiver; requests the writes.
	queued, queuedStale, sent, sentStale, requests int
}

func newRemoteSender(rw RemoteWrite, tenant string) (*remoteSender, error) {
	cfgs, err := rw.configs(tenant)
	if err != nil {
		return nil, err
	}
	s := &remoteSender{}
	for _, cfg := range cfgs {
		c, err := remote.NewWriteClient(cfg.Name+"-backfill", &remote.ClientConfig{URL: cfg.URL, Timeout: cfg.RemoteTimeout,
			HTTPClientConfig: cfg.HTTPClientConfig, Headers: cfg.Headers})
		if err != nil {
			return nil, err
		}
		s.clients = append(s.clients, c)
	}
	return s, nil
}

// add queues samples, sending full batches.
func (s *remoteSender) add(ctx context.Context, samples []backfillSample) error {
	for _, x := range samples {
		s.queued++
		if value.IsStaleNaN(x.v) {
			s.queuedStale++
		}
	}
	s.pending = append(s.pending, samples...)
	for len(s.pending) >= backfillBatch {
		if err := s.send(ctx, s.pending[:backfillBatch]); err != nil {
			return err
		}
		s.pending = s.pending[backfillBatch:]
	}
	return nil
}

// flush sends what is queued.
func (s *remoteSender) flush(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	if err := s.send(ctx, s.pending); err != nil {
		return err
	}
	s.pending = nil
	return nil
}

// send writes one batch to every client.
func (s *remoteSender) send(ctx context.Context, batch []backfillSample) error {
	body, err := encodeWriteRequest(batch)
	if err != nil {
		return err
	}
	for _, c := range s.clients {
		if err := s.store(ctx, c, body); err != nil {
			return err
		}
	}
	for _, x := range batch {
		s.sent++
		if value.IsStaleNaN(x.v) {
			s.sentStale++
		}
	}
	return nil
}

// store writes one request, retrying recoverable failures (network, 5xx).
func (s *remoteSender) store(ctx context.Context, c remote.WriteClient, body []byte) error {
	var err error
	backoff := backfillMinBackoff
	for attempt := 0; ; attempt++ {
		s.requests++
		_, err = c.Store(ctx, body, attempt)
		var rerr remote.RecoverableError
		if err == nil || !errors.As(err, &rerr) || attempt+1 >= backfillAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, backfillMaxBackoff)
	}
	if err != nil {
		return fmt.Errorf("remote write to %s: %w", c.Endpoint(), err)
	}
	return nil
}

// encodeWriteRequest is a snappy-compressed remote write v1 request, one
// time series per label set with its samples in order.
func encodeWriteRequest(batch []backfillSample) ([]byte, error) {
	var req prompb.WriteRequest
	index := map[string]int{}
	for _, x := range batch {
		key := string(x.l.Bytes(nil))
		i, ok := index[key]
		if !ok {
			i = len(req.Timeseries)
			index[key] = i
			ts := prompb.TimeSeries{}
			x.l.Range(func(l labels.Label) { ts.Labels = append(ts.Labels, prompb.Label{Name: l.Name, Value: l.Value}) })
			req.Timeseries = append(req.Timeseries, ts)
		}
		req.Timeseries[i].Samples = append(req.Timeseries[i].Samples, prompb.Sample{Timestamp: x.t, Value: x.v})
	}
	raw, err := req.Marshal()
	if err != nil {
		return nil, err
	}
	return snappy.Encode(nil, raw), nil
}
