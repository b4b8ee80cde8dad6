package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// EachConfig times every query of some workloads one at a time, as a
// single user would see it: Runs sequential requests per query and target,
// the targets taking turns request by request so a noisy machine weighs
// on all of them alike.
type EachConfig struct {
	Now       time.Time
	Workloads []Workload
	Targets   []Target
	Runs      int
	Timeout   time.Duration
}

// QueryTiming is one query's median latency per target (0: the target
// has no such query, e.g. VictoriaLogs without a twin).
type QueryTiming struct {
	Workload, Query string
	Median          map[string]time.Duration
	Failed          map[string]string
}

// Each runs the per-query timing.
func Each(ctx context.Context, cfg EachConfig) ([]QueryTiming, error) {
	client := &http.Client{Timeout: cfg.Timeout}
	var out []QueryTiming
	for _, w := range cfg.Workloads {
		for _, q := range w.Queries(cfg.Now) {
			t, err := timeQuery(ctx, client, cfg, q)
			if err != nil {
				return out, err
			}
			t.Workload = w.Name
			out = append(out, t)
		}
	}
	return out, nil
}

func timeQuery(ctx context.Context, client *http.Client, cfg EachConfig, q Query) (QueryTiming, error) {
	t := QueryTiming{Query: q.Name, Median: map[string]time.Duration{}, Failed: map[string]string{}}
	took := map[string][]time.Duration{}
	for run := 0; run < cfg.Runs; run++ {
		for _, tg := range cfg.Targets {
			url, hdr, ok := requestFor(tg, q)
			if !ok {
				continue
			}
			d, err := timeOne(ctx, client, url, hdr)
			if ctx.Err() != nil {
				return t, ctx.Err()
			}
			if err != nil {
				t.Failed[tg.Name] = err.Error()
				continue
			}
			took[tg.Name] = append(took[tg.Name], d)
		}
	}
	for name, ds := range took {
		slices.Sort(ds)
		t.Median[name] = ds[len(ds)/2]
	}
	return t, nil
}

func requestFor(tg Target, q Query) (string, http.Header, bool) {
	if !tg.Twins {
		return tg.URL + q.Path + "?" + encode(q.Params), header(tg.Header, q.Headers), true
	}
	if q.Twin == nil {
		return "", nil, false
	}
	return tg.URL + q.Twin.Path + "?" + encode(q.Twin.Params), header(tg.Header, nil), true
}

func timeOne(ctx context.Context, client *http.Client, url string, hdr http.Header) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header = hdr
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return time.Since(began), err
}

// EachMarkdown lays the timings out as a table: one column per target and
// the first target's time as a ratio of each other's.
func EachMarkdown(ts []QueryTiming, targets []Target) string {
	var b strings.Builder
	b.WriteString("| workload | query |")
	for _, tg := range targets {
		fmt.Fprintf(&b, " %s |", tg.Name)
	}
	for _, tg := range targets[1:] {
		fmt.Fprintf(&b, " %s ÷ %s |", targets[0].Name, tg.Name)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", 2*len(targets)-1) + "\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "| %s | %s |", t.Workload, t.Query)
		for _, tg := range targets {
			b.WriteString(" " + cell(t, tg.Name) + " |")
		}
		first := t.Median[targets[0].Name]
		for _, tg := range targets[1:] {
			b.WriteString(" " + timeRatio(first, t.Median[tg.Name]) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cell(t QueryTiming, name string) string {
	if msg, ok := t.Failed[name]; ok {
		return "error: " + clip(msg, 40)
	}
	d, ok := t.Median[name]
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// timeRatio is a ÷ b as "time of a over time of b" (below 1: a is faster).
func timeRatio(a, b time.Duration) string {
	if a == 0 || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
