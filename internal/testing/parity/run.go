package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Default dataset size and span, used for goldens and CI alike.
const (
	DefaultLines = 100_000
	DefaultSpan  = 24 * time.Hour
)

// Total counts a dataset's entries.
func Total(streams []Stream) int {
	n := 0
	for _, s := range streams {
		n += len(s.Entries)
	}
	return n
}

// WaitQueryable polls until a Loki API counts every entry of the dataset.
func WaitQueryable(ctx context.Context, baseURL, tenant string, total int, limit time.Duration) error {
	c := Case{ID: "wait", Endpoint: "/loki/api/v1/query", Params: map[string]string{
		"query": `sum(count_over_time({env=~".+"}[25h]))`, "time": "@24h"}}
	deadline := time.Now().Add(limit)
	last := ""
	for time.Now().Before(deadline) {
		a, err := Ask(ctx, baseURL, tenant, c)
		if err == nil && a.Status == 200 {
			var v struct {
				Data struct {
					Result []struct {
						Value []any `json:"value"`
					} `json:"result"`
				} `json:"data"`
			}
			if json.Unmarshal([]byte(a.Body), &v) == nil && len(v.Data.Result) == 1 {
				if s, _ := v.Data.Result[0].Value[1].(string); s == strconv.Itoa(total) {
					return nil
				}
			}
		}
		if err != nil {
			last = err.Error()
		} else {
			last = clip(a.Body)
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("dataset not fully queryable after %s (want %d entries); last answer: %s", limit, total, last)
}

// Result is one case's outcome.
type Result struct {
	Case  Case
	Diffs []string
}

// Passed reports an exact match.
func (r Result) Passed() bool { return len(r.Diffs) == 0 }

// RunCases asks every case of a live API and compares with the goldens.
func RunCases(ctx context.Context, baseURL, tenant string, cases []Case, goldens map[string]Answer) ([]Result, error) {
	var out []Result
	for _, c := range cases {
		want, ok := goldens[c.ID]
		if !ok {
			return nil, fmt.Errorf("no golden for case %s: run make parity-record", c.ID)
		}
		got, err := Ask(ctx, baseURL, tenant, c)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		dumpAnswer(got)
		out = append(out, Result{Case: c, Diffs: Compare(c, want, got)})
	}
	return out, nil
}

// Category groups cases in the report: the endpoint, and for queries the
// first tag.
func Category(c Case) string {
	ep := strings.TrimPrefix(c.Endpoint, "/loki/api/v1/")
	if strings.HasPrefix(ep, "label/") {
		ep = "label_values"
	}
	if strings.HasPrefix(ep, "detected_field/") {
		ep = "detected_field_values"
	}
	if len(c.Tags) > 0 && (ep == "query" || ep == "query_range") {
		return ep + "/" + c.Tags[0]
	}
	return ep
}

// Report renders pass/total by category and overall.
func Report(results []Result) string {
	type score struct{ pass, total int }
	by := map[string]*score{}
	all := score{}
	for _, r := range results {
		k := Category(r.Case)
		if by[k] == nil {
			by[k] = &score{}
		}
		by[k].total++
		all.total++
		if r.Passed() {
			by[k].pass++
			all.pass++
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%-32s %9s %7s\n", "category", "pass/all", "%")
	for _, k := range keys {
		s := by[k]
		fmt.Fprintf(&b, "%-32s %4d/%-4d %6.1f%%\n", k, s.pass, s.total, 100*float64(s.pass)/float64(s.total))
	}
	fmt.Fprintf(&b, "%-32s %4d/%-4d %6.1f%%\n", "TOTAL", all.pass, all.total, 100*float64(all.pass)/float64(max(all.total, 1)))
	return b.String()
}

// dumpAnswer writes vloki's answer to $PARITY_DUMP/<id>.json when set, for
// inspecting differences by hand.
func dumpAnswer(a Answer) {
	dir := os.Getenv("PARITY_DUMP")
	if dir == "" {
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, a.ID+".json"), []byte(a.Body), 0o644)
}
