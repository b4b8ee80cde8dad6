package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
	"github.com/vloki/vloki/internal/tools/bench/scaleingest"
)

// ScaleConfig is one scale bench run over one dataset: it is pushed into
// every target in turn (each timed alone), counted back, then queried.
type ScaleConfig struct {
	Data    scaledata.Config
	Targets []Target
	// Ingest tunes the pushers; SkipIngest queries data already there.
	Ingest     scaleingest.Options
	SkipIngest bool
	// Via is how the Loki-API targets are pushed to (VictoriaLogs twins
	// always take jsonline).
	Via scaleingest.Format
	// IngestOnly stops after the ingestion: no query steps.
	IngestOnly bool
	// IngestLoad, when its Clients > 0, queries each target while it
	// ingests: closed-loop clients cycling IngestWorkloads' queries
	// (windows at the dataset's end) until the last push is answered.
	IngestLoad      Load
	IngestWorkloads []Workload
	// CountWait bounds the wait for a target to count every line back
	// (0: 10 minutes).
	CountWait time.Duration
	Workloads []Workload
	Loads     []Load
	// Window places each request's window (zero: fixed at the data's end).
	Window Window
	// Verify is the target whose answers are compared with Reference's
	// (Loki on the phase that holds it) before the steps; no check when
	// either is absent.
	Verify, Reference string
	// Progress receives live lines (nil: none).
	Progress io.Writer
}

// Ingestion is how one target took the dataset.
type Ingestion struct {
	Target         string    `json:"target"`
	Via            string    `json:"via"`
	Lines          int       `json:"lines"`
	LineBytes      int64     `json:"line_bytes"`
	WireBytes      int64     `json:"wire_bytes"`
	Seconds        float64   `json:"seconds"`
	LinesPerSecond float64   `json:"lines_per_second"`
	Usage          ProcUsage `json:"usage"`
	// CountedBack is the lines the target counts once they are searchable.
	CountedBack int `json:"counted_back"`
	// WhileQueried is what the clients querying during the push saw.
	WhileQueried *IngestQueries `json:"while_queried,omitempty"`
	// NotCounted says why the reference target (Loki) took every push but
	// did not count the lines back: reported, not fatal.
	NotCounted string `json:"not_counted,omitempty"`
}

// ScaleReport is a whole scale run.
type ScaleReport struct {
	Dataset   scaledata.Config `json:"dataset"`
	Streams   int              `json:"streams"`
	Ingestion []Ingestion      `json:"ingestion"`
	Queries   *Report          `json:"queries"`
	Workloads []Workload       `json:"-"`
}

// JSON renders the report for machines.
func (r *ScaleReport) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// Scale runs the scale bench.
func Scale(ctx context.Context, cfg ScaleConfig) (*ScaleReport, error) {
	d := scaledata.New(cfg.Data)
	rep := &ScaleReport{Dataset: cfg.Data, Streams: len(d.Streams()), Workloads: cfg.Workloads}
	if !cfg.SkipIngest {
		for _, tg := range cfg.Targets {
			in, err := ingest(ctx, d, tg, cfg)
			if errors.Is(err, errNotCounted) && tg.Name == cfg.Reference {
				in.NotCounted, err = err.Error(), nil
			}
			rep.Ingestion = append(rep.Ingestion, in)
			if err != nil {
				return rep, fmt.Errorf("ingesting into %s: %w", tg.Name, err)
			}
		}
	}
	if cfg.IngestOnly {
		return rep, nil
	}
	q, err := Run(ctx, RunConfig{Now: d.End(), Workloads: cfg.Workloads, Loads: cfg.Loads, Targets: cfg.Targets, Window: cfg.Window,
		Verify: cfg.Verify, Reference: cfg.Reference, Progress: cfg.Progress})
	rep.Queries = q
	return rep, err
}

// ingest pushes the dataset into one target alone, measuring its
// processes, then waits until the target counts every line.
func ingest(ctx context.Context, d *scaledata.Dataset, tg Target, cfg ScaleConfig) (Ingestion, error) {
	sink := scaleingest.Sink{URL: tg.URL, Header: tg.Header, Format: cfg.Via, VictoriaLogs: tg.Twins}
	if tg.Twins && !tg.OwnEndpoint {
		sink.Format = scaleingest.JSONLine
	}
	in := Ingestion{Target: tg.Name, Via: sink.Via()}
	opts := cfg.Ingest
	opts.Pushed = &atomic.Int64{}
	s := startSampler(tg.PIDs, tg.metricsURL())
	stop := showProgress(cfg.Progress, "ingest "+tg.Name+" ("+in.Via+")", time.Now(),
		func() uint64 { return uint64(opts.Pushed.Load()) }, "lines")
	q := startQuerying(d, tg, cfg)
	res, err := scaleingest.Push(ctx, d, sink, opts)
	in.WhileQueried = q.stop()
	stop()
	in.Usage = s.finish()
	in.Lines, in.LineBytes, in.WireBytes = res.Lines, res.LineBytes, res.WireBytes
	in.Seconds, in.LinesPerSecond = res.Elapsed.Seconds(), res.LinesPerSecond()
	if err != nil {
		return in, err
	}
	wait := cfg.CountWait
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	in.CountedBack, err = waitCounted(ctx, d, tg, sink.Format.Selector(), wait)
	return in, err
}

// waitCounted polls until the target counts every line of d and still
// does countSettle later. Rows become searchable about a second after they
// are acknowledged, and their streams' names up to two seconds after that:
// until then victoria-logs v1.52.1 drops, from any query that reads
// _stream (a log query's rows, count_uniq(_stream)), the blocks of streams
// its day partition's index has not flushed, a different subset each time.
func waitCounted(ctx context.Context, d *scaledata.Dataset, tg Target, selector string, wait time.Duration) (int, error) {
	deadline := time.Now().Add(wait)
	got := -1
	var whole time.Time // when every line was first counted in the current run of whole counts
	for time.Now().Before(deadline) {
		switch got = count(ctx, d, tg, selector); {
		case got != d.Lines():
			whole = time.Time{}
		case whole.IsZero():
			whole = time.Now()
		case time.Since(whole) >= countSettle:
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return got, fmt.Errorf("%w: %s counts %d of %d lines after %s", errNotCounted, tg.Name, got, d.Lines(), wait)
}

// countSettle is how long every line must stay counted: past the flush of
// the stream index of VictoriaLogs' newest rows (two seconds at most).
const countSettle = 3 * time.Second

// errNotCounted: every push was acknowledged, but the target did not
// count the lines back in time.
var errNotCounted = errors.New("not counted back")

// count asks the target how many lines it holds over the dataset's span:
// LogQL's count_over_time, or LogsQL's count() of VictoriaLogs itself.
func count(ctx context.Context, d *scaledata.Dataset, tg Target, selector string) int {
	end := d.End().Add(time.Second)
	if !tg.Twins {
		hours := int(end.Sub(d.Start()).Hours()) + 1
		q := url.Values{"query": {fmt.Sprintf(`sum(count_over_time(%s[%dh]))`, selector, hours)}, "time": {ns(end)}}
		return instantValue(ctx, tg, q)
	}
	q := url.Values{"query": {"* | stats count() lines"}, "start": {ns(d.Start())}, "end": {ns(end)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tg.URL+"/select/logsql/query?"+q.Encode(), nil)
	if err != nil {
		return -1
	}
	req.Header = tg.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var row struct{ Lines string }
	if json.NewDecoder(resp.Body).Decode(&row) != nil {
		return -1
	}
	n, err := strconv.Atoi(row.Lines)
	if err != nil {
		return -1
	}
	return n
}
