package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/prometheus/prometheus/storage/remote"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/tsdb/record"
	"github.com/prometheus/prometheus/tsdb/wlog"
)

// v2Proto is Prometheus' remote write 2.0 protobuf_message.
const v2Proto = "io.prometheus.write.v2.Request"

// Reasons of vloki_ruler_remote_write_resend_dropped_samples_total.
const (
	dropTooOld = "too_old" // older than maxResendAge (or sample_age_limit)
	dropFailed = "failed"  // the receiver refused them for good (4xx)
)

// resendMetrics count, by client (remote_name), what the resend after a
// restart did.
type resendMetrics struct {
	resent, dropped *prometheus.CounterVec
}

func newResendMetrics(reg prometheus.Registerer) resendMetrics {
	m := resendMetrics{
		resent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vloki_ruler_remote_write_resent_samples_total",
			Help: "Samples an earlier run left unsent in the ruler's WAL that were sent after the restart."}, []string{"remote_name"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vloki_ruler_remote_write_resend_dropped_samples_total",
			Help: "Samples an earlier run left unsent in the ruler's WAL that were not sent after the restart, by reason (too_old, failed)."},
			[]string{"remote_name", "reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.resent, m.dropped)
	}
	return m
}

// init exposes the client's counters at 0.
func (m resendMetrics) init(client string) {
	m.resent.WithLabelValues(client)
	m.dropped.WithLabelValues(client, dropTooOld)
	m.dropped.WithLabelValues(client, dropFailed)
}

// resender sends, after a restart, the samples the earlier runs left in
// the WAL that the client's receiver did not take, in WAL order (so each
// series in timestamp order), then opens the client's queue.
type resender struct {
	cfg    *config.RemoteWriteConfig
	client remote.WriteClient
	sent   *sentLog
	walDir string
	// last is the earlier runs' last segment: this run writes after it.
	last    int
	oldest  int64 // older samples are not resent
	metrics resendMetrics
	log     *slog.Logger

	batch                  []backfillSample
	resent, tooOld, failed int
}

func newResender(cfg *config.RemoteWriteConfig, client remote.WriteClient, sent *sentLog, walDir string, last int,
	now time.Time, metrics resendMetrics, log *slog.Logger) *resender {
	oldest := now.Add(-maxResendAge)
	if limit := time.Duration(cfg.QueueConfig.SampleAgeLimit); limit > 0 && now.Add(-limit).After(oldest) {
		oldest = now.Add(-limit)
	}
	return &resender{cfg: cfg, client: client, sent: sent, walDir: walDir, last: last, oldest: oldest.UnixMilli(),
		metrics: metrics, log: log.With("remote_name", cfg.Name)}
}

// run resends; stopped (ctx) it leaves the rest to the next start.
func (r *resender) run(ctx context.Context) {
	start := time.Now()
	err := r.replay(ctx)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		r.log.Error("ruler remote write: resending the samples left in the WAL stopped; the rest is not sent", "err", err)
	}
	if r.resent+r.tooOld+r.failed > 0 {
		r.log.Info("ruler remote write: samples left in the WAL by the last run resent", "resent", r.resent,
			"too_old", r.tooOld, "failed", r.failed, "took", time.Since(start))
	}
	r.sent.replayDone()
}

// replay reads the earlier runs' WAL: series, and the samples not taken.
func (r *resender) replay(ctx context.Context) error {
	series := map[chunks.HeadSeriesRef]resendSeries{}
	dec := record.NewDecoder(labels.NewSymbolTable(), r.log)
	var refSeries []record.RefSeries
	var samples []record.RefSample
	err := readWAL(r.walDir, r.last, func(rec []byte) error {
		var err error
		switch dec.Type(rec) {
		case record.Series:
			if refSeries, err = dec.Series(rec, refSeries[:0]); err != nil {
				return err
			}
			for _, s := range refSeries {
				series[s.Ref] = r.relabel(s.Labels)
			}
		case record.Samples, record.SamplesV2:
			if samples, err = dec.Samples(rec, samples[:0]); err != nil {
				return err
			}
			return r.add(ctx, series, samples)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.flush(ctx)
}

type resendSeries struct {
	l    labels.Labels
	key  string
	kept bool
}

// relabel applies the client's write_relabel_configs, as its queue does.
func (r *resender) relabel(l labels.Labels) resendSeries {
	b := labels.NewBuilder(l)
	if !relabel.ProcessBuilder(b, r.cfg.WriteRelabelConfigs...) {
		return resendSeries{}
	}
	l = b.Labels()
	return resendSeries{l: l, key: seriesKey(l), kept: true}
}

func (r *resender) add(ctx context.Context, series map[chunks.HeadSeriesRef]resendSeries, samples []record.RefSample) error {
	for _, x := range samples {
		s := series[x.Ref]
		if !s.kept || !r.sent.pending(s.key, x.T) {
			continue
		}
		if x.T < r.oldest {
			r.tooOld++
			r.metrics.dropped.WithLabelValues(r.cfg.Name, dropTooOld).Inc()
			continue
		}
		r.batch = append(r.batch, backfillSample{l: s.l, t: x.T, v: x.V})
		if len(r.batch) >= max(r.cfg.QueueConfig.MaxSamplesPerSend, 1) {
			if err := r.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush sends the batch until the receiver takes it or refuses it for
// good; either way its samples are handled.
func (r *resender) flush(ctx context.Context) error {
	if len(r.batch) == 0 {
		return nil
	}
	body, err := r.encode(r.batch)
	if err != nil {
		return err
	}
	err = r.store(ctx, body)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		r.log.Error("ruler remote write: the receiver refused resent samples", "samples", len(r.batch), "err", err)
		r.failed += len(r.batch)
		r.metrics.dropped.WithLabelValues(r.cfg.Name, dropFailed).Add(float64(len(r.batch)))
	default:
		r.resent += len(r.batch)
		r.metrics.resent.WithLabelValues(r.cfg.Name).Add(float64(len(r.batch)))
	}
	for _, x := range r.batch {
		r.sent.ack(x.l, x.t)
	}
	r.batch = r.batch[:0]
	return nil
}

func (r *resender) encode(batch []backfillSample) ([]byte, error) {
	if string(r.cfg.ProtobufMessage) == v2Proto {
		return encodeWriteRequestV2(batch)
	}
	return encodeWriteRequest(batch)
}

// store writes one request, retrying what the queue would retry (network
// errors, 5xx, 429 with retry_on_http_429) with the queue's backoff,
// until ctx ends.
func (r *resender) store(ctx context.Context, body []byte) error {
	backoff := time.Duration(r.cfg.QueueConfig.MinBackoff)
	for attempt := 0; ; attempt++ {
		_, err := r.client.Store(ctx, body, attempt)
		var rerr remote.RecoverableError
		if err == nil || !errors.As(err, &rerr) {
			return err
		}
		if attempt == 0 {
			r.log.Warn("ruler remote write: resending the samples left in the WAL, retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(max(2*backoff, time.Millisecond), time.Duration(r.cfg.QueueConfig.MaxBackoff))
	}
}

// encodeWriteRequestV2 is a snappy-compressed remote write 2.0 request.
func encodeWriteRequestV2(batch []backfillSample) ([]byte, error) {
	symbols := writev2.NewSymbolTable()
	var req writev2.Request
	index := map[string]int{}
	for _, x := range batch {
		key := seriesKey(x.l)
		i, ok := index[key]
		if !ok {
			i = len(req.Timeseries)
			index[key] = i
			req.Timeseries = append(req.Timeseries, writev2.TimeSeries{LabelsRefs: symbols.SymbolizeLabels(x.l, nil)})
		}
		req.Timeseries[i].Samples = append(req.Timeseries[i].Samples, writev2.Sample{Value: x.v, Timestamp: x.t})
	}
	req.Symbols = symbols.Symbols()
	raw, err := req.Marshal()
	if err != nil {
		return nil, err
	}
	return snappy.Encode(nil, raw), nil
}

// readWAL hands each record of the WAL's last checkpoint and of its
// segments up to last to fn, one at a time. The segments are opened at
// once, so that the WAL's truncation cannot take one away meanwhile.
func readWAL(dir string, last int, fn func([]byte) error) error {
	cp, cpIndex, err := wlog.LastCheckpoint(dir)
	first := cpIndex + 1
	switch {
	case errors.Is(err, record.ErrNotFound):
		if first, _, err = wlog.Segments(dir); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		r, err := wlog.NewSegmentsReader(cp)
		if err != nil {
			return err
		}
		err = readRecords(r, fn)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", cp, err)
		}
	}
	if first < 0 || last < first {
		return nil
	}
	r, err := wlog.NewSegmentsRangeReader(wlog.SegmentRange{Dir: dir, First: first, Last: last})
	if err != nil {
		return err
	}
	return readRecords(r, fn)
}

func readRecords(r io.ReadCloser, fn func([]byte) error) error {
	defer r.Close()
	rd := wlog.NewReader(r)
	for rd.Next() {
		if err := fn(rd.Record()); err != nil {
			return err
		}
	}
	return rd.Err()
}
