package parity

import (
	"fmt"
	"math/rand/v2"
)

// randomCase5 builds rankings over small counts, where ties are the rule:
// topk, bottomk, sort and sort_desc over count_over_time grouped several
// ways, instant and range, so the series Loki keeps among equal values
// (and their order in an instant vector) are compared (DIFF_GEN=5, issue
// 31's ties).
func randomCase5(r *rand.Rand, i int) Case {
	inner := fmt.Sprintf("sum by (%s) (count_over_time(%s [%s]))",
		pickOne(r, []string{"app", "pod", "app, level", "namespace", "level"}),
		pickOne(r, []string{`{namespace="shop"}`, `{app=~".+"}`, `{namespace="shop"} |= "a"`, `{app="checkout"} | json`}),
		pickOne(r, []string{"1m", "2m", "5m"}))
	var q string
	switch r.IntN(4) {
	case 0:
		q = fmt.Sprintf("topk(%d, %s)", 1+r.IntN(4), inner)
	case 1:
		q = fmt.Sprintf("bottomk(%d, %s)", 1+r.IntN(4), inner)
	case 2:
		q = "sort_desc(" + inner + ")"
	default:
		q = "sort(" + inner + ")"
	}
	if r.IntN(4) == 0 {
		q = fmt.Sprintf("topk by (%s) (%d, %s)", pickOne(r, []string{"app", "level"}), 1+r.IntN(2), inner)
	}
	start := fmt.Sprintf("@%dh%dm0s", r.IntN(20), r.IntN(60))
	c := Case{ID: fmt.Sprintf("random5_%d", i), Endpoint: "/loki/api/v1/query_range",
		Params: map[string]string{"query": q, "start": start, "end": endAfter(start, pickOne(r, []string{"10m", "1h", "3h"})),
			"step": pickOne(r, []string{"60", "300", "900"})}}
	if r.IntN(2) == 0 {
		c.Endpoint = "/loki/api/v1/query"
		c.Params = map[string]string{"query": q, "time": c.Params["end"]}
	}
	return c
}
