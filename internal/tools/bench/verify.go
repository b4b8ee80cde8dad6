package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/vloki/vloki/internal/testing/parity"
)

// Verdict is how a workload's queries compare with the reference.
type Verdict struct {
	Workload  string   `json:"workload"`
	Reference string   `json:"reference"`
	Identical int      `json:"identical"`
	Total     int      `json:"total"`
	Differing []string `json:"differing,omitempty"`
}

// Verify asks every query of a workload (as its step sends them) of the target and of the
// reference (Loki, when present) and compares the answers with the parity
// comparator: streams, labels, timestamps, lines, values, status and
// error text; only the stats object is ignored, and metric values compare
// to 10 significant digits (Loki sums in map order). A request either
// side leaves unanswered (a timeout, a closed connection) is listed among
// the differing, and the other queries are still compared.
func Verify(ctx context.Context, workload string, queries []Query, target, reference Target) (Verdict, error) {
	v := Verdict{Workload: workload, Reference: reference.Name}
	for i, q := range queries {
		c := parity.Case{ID: fmt.Sprintf("%s-%d", workload, i), Endpoint: q.Path, Params: q.Params, Headers: q.Headers}
		if strings.HasPrefix(q.Params["query"], "sum") || q.Params["step"] != "" || q.Path == "/loki/api/v1/query" {
			c.Tags = []string{"float10"}
		}
		v.Total++
		got, err := parity.Ask(ctx, target.URL, tenantOf(target), c)
		if err != nil {
			v.Differing = append(v.Differing, fmt.Sprintf("%s: no answer from %s: %v", q.Name, target.Name, err))
			continue
		}
		want, err := parity.Ask(ctx, reference.URL, tenantOf(reference), c)
		if err != nil {
			v.Differing = append(v.Differing, fmt.Sprintf("%s: no answer from %s: %v", q.Name, reference.Name, err))
			continue
		}
		if diffs := parity.Compare(c, want, got); len(diffs) > 0 {
			v.Differing = append(v.Differing, fmt.Sprintf("%s: %s", q.Name, clip(diffs[0], 300)))
			continue
		}
		v.Identical++
	}
	return v, nil
}

func tenantOf(t Target) string { return t.Header.Get("X-Scope-OrgID") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
