package parity

import (
	"fmt"
	"math/rand/v2"
)

// randomCase4 builds range metric queries whose step does not divide
// Loki's split interval (an hour, or the longest range when longer): odd
// steps of seconds to hours over ranges shorter and longer than a split,
// starting off the hour, in both directions. Loki's frontend splits such
// a query into sub-queries whose answers it merges by the first point of
// their first series (DIFF_GEN=4, issue 31's split merges at odd steps).
func randomCase4(r *rand.Rand, i int) Case {
	start := fmt.Sprintf("@%dh%dm%ds", r.IntN(20), r.IntN(60), pickOne(r, []int{0, 0, 7, 30}))
	span := pickOne(r, []string{"10m", "50m", "1h", "90m", "2h", "3h17m", "5h", "9h", "20h"})
	q := fmt.Sprintf("%s(%s [%s])", pickOne(r, []string{"count_over_time", "rate", "bytes_over_time"}),
		pickOne(r, []string{`{app="checkout"}`, `{namespace="shop"}`, `{app=~"check.*|pay.*"}`, `{namespace="shop"} |= "a"`}),
		pickOne(r, []string{"1m", "5m", "13m", "1h", "90m", "2h"}))
	switch r.IntN(3) {
	case 0:
		q = "sum by (app) (" + q + ")"
	case 1:
		q = "sum(" + q + ")"
	}
	c := Case{ID: fmt.Sprintf("random4_%d", i), Endpoint: "/loki/api/v1/query_range",
		Params: map[string]string{"query": q, "start": start, "end": endAfter(start, span),
			"step": pickOne(r, []string{"37", "420", "780", "1380", "2820", "3660", "5820", "8220", "10800", "18000", "2700", "4500"})}}
	if r.IntN(3) == 0 {
		c.Params["direction"] = "forward"
	}
	return c
}
