package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// randomCase2 is the second generator of the random differential test
// (DIFF_GEN=2): unaligned ranges and steps, label filter expressions,
// selectors with several matchers, nested and grouped vector
// aggregations, binary operations between two range aggregations,
// offsets, and unwraps without an error filter.
func randomCase2(r *rand.Rand, i int) Case {
	s := pickOne(r, diffSources)
	start := fmt.Sprintf("@%dh%dm%ds", r.IntN(22), r.IntN(60), r.IntN(60))
	span := pickOne(r, []string{"90s", "7m", "45m", "2h", "6h"})
	params := map[string]string{"start": start, "end": endAfter(start, span)}
	c := Case{ID: fmt.Sprintf("random2_%d", i), Endpoint: "/loki/api/v1/query_range", Params: params, Tags: []string{"float10"}}
	if r.IntN(5) < 2 {
		c.Params["query"] = randomLogQuery2(r, s)
		c.Params["limit"] = pickOne(r, []string{"1", "7", "50", "500"})
		if r.IntN(2) == 0 {
			c.Params["direction"] = "forward"
		}
		if r.IntN(4) == 0 {
			c.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}
		}
		return c
	}
	c.Params["step"] = pickOne(r, []string{"15", "45", "60", "120", "300", "3600", "7200", "1m30s", ""})
	if c.Params["step"] == "" {
		delete(c.Params, "step") // Loki's default step
	}
	if r.IntN(4) == 0 {
		c.Params["direction"] = "forward" // orders the frontend's merge
	}
	m := randomMetric2(r, s)
	switch r.IntN(10) {
	case 0, 1:
		other := randomMetric2(r, s)
		m = fmt.Sprintf("(%s) %s (%s)", m, pickOne(r, []string{"/", "+", "-", "*", "> bool", "and", "or", "unless", "/ ignoring(level)", "and on()", "or on(app)"}), other)
	case 2:
		m = fmt.Sprintf("%s > %s", m, pickOne(r, []string{"0", "0.1", "1", "10"}))
	case 3:
		m = fmt.Sprintf("%s(%s)", pickOne(r, []string{"max", "min", "count", "sum", "avg", "stdvar"}), m)
	case 4:
		m = fmt.Sprintf("%s * %s", pickOne(r, []string{"2", "-1", "0.5", "vector(3)"}), m)
	}
	c.Params["query"] = m
	if r.IntN(4) == 0 {
		c.Endpoint = "/loki/api/v1/query"
		c.Params = map[string]string{"query": m, "time": params["end"]}
	}
	return c
}

// endAfter is start plus span (a Go duration), in the @ form Case
// understands.
func endAfter(start, span string) string {
	var h, m, s int
	fmt.Sscanf(start, "@%dh%dm%ds", &h, &m, &s)
	d, err := time.ParseDuration(span)
	if err != nil {
		panic(err)
	}
	total := h*3600 + m*60 + s + int(d.Seconds())
	return fmt.Sprintf("@%dh%dm%ds", total/3600, total/60%60, total%60)
}

var extraMatchers = []string{`, env="prod"`, `, env!="dev"`, `, cluster=~"eu.*"`, `, namespace!~"plat.*"`, `, env=~"prod|staging"`}

func randomSelector2(r *rand.Rand, s source) string {
	if r.IntN(3) > 0 {
		return s.sel
	}
	return strings.TrimSuffix(s.sel, "}") + pickOne(r, extraMatchers) + "}"
}

// randomFilterExpr combines the source's label filters with and, or, a
// comma and parentheses.
func randomFilterExpr(r *rand.Rand, s source) string {
	if len(s.filters) == 0 {
		return `__error__=""`
	}
	a, b := pickOne(r, s.filters), pickOne(r, s.filters)
	switch r.IntN(5) {
	case 0:
		return a + " or " + b
	case 1:
		return a + " and " + b
	case 2:
		return a + ", " + b
	case 3:
		return "(" + a + " or " + b + ") and " + pickOne(r, s.filters)
	}
	return a
}

func randomLogQuery2(r *rand.Rand, s source) string {
	q := randomSelector2(r, s)
	if r.IntN(2) == 0 {
		q += " " + pickOne(r, lineFilters)
	}
	if s.parser != "" && r.IntN(4) > 0 {
		q += " | " + s.parser
		if r.IntN(2) == 0 {
			q += " | " + randomFilterExpr(r, s)
		}
		if r.IntN(3) == 0 {
			q += pickOne(r, []string{` | __error__=""`, ` | drop __error__`, ` | __error__!=""`})
		}
	} else if r.IntN(4) == 0 {
		// A parser the lines were not written for.
		q += pickOne(r, []string{" | json", " | logfmt --strict", " | json | __error__!=\"\""})
	}
	for k := r.IntN(3); k > 1; k-- {
		q += " " + pickOne(r, stages)
	}
	return q
}

func randomMetric2(r *rand.Rand, s source) string {
	rng := pickOne(r, []string{"30s", "1m", "2m", "5m", "1h"})
	inner := randomLogQuery2(r, s)
	offset := ""
	if r.IntN(5) == 0 {
		offset = " offset " + pickOne(r, []string{"30s", "10m", "1h"})
	}
	var m string
	if r.IntN(2) == 0 || len(s.unwrap) == 0 || s.parser == "" {
		m = fmt.Sprintf("%s(%s [%s]%s)", pickOne(r, []string{"count_over_time", "rate", "bytes_over_time", "bytes_rate", "absent_over_time"}), inner, rng, offset)
	} else {
		if !strings.Contains(inner, "| "+s.parser) {
			inner += " | " + s.parser
		}
		fn := pickOne(r, []string{"sum_over_time", "avg_over_time", "max_over_time", "min_over_time", "quantile_over_time",
			"stddev_over_time", "stdvar_over_time", "first_over_time", "last_over_time", "rate", "rate_counter"})
		param := ""
		if fn == "quantile_over_time" {
			param = pickOne(r, []string{"0", "0.25", "0.75", "1"}) + ", "
		}
		post := ` | __error__=""`
		if r.IntN(6) == 0 {
			post = ""
		}
		grouping := ""
		if fn != "rate" && fn != "rate_counter" && r.IntN(2) == 0 {
			grouping = fmt.Sprintf(" %s (%s)", pickOne(r, []string{"by", "without"}), pickOne(r, s.fields))
		}
		m = fmt.Sprintf("%s(%s%s | unwrap %s%s [%s]%s)%s", fn, param, inner, pickOne(r, s.unwrap), post, rng, offset, grouping)
	}
	labels := append([]string{"app", "env", "namespace", "level"}, s.fields...)
	switch r.IntN(6) {
	case 0:
		m = fmt.Sprintf("sum by (%s, %s) (%s)", pickOne(r, labels), pickOne(r, labels), m)
	case 1:
		m = fmt.Sprintf("%s without (%s) (%s)", pickOne(r, []string{"sum", "max", "min", "count", "avg"}), pickOne(r, labels), m)
	case 2:
		m = fmt.Sprintf("max(sum by (%s) (%s))", pickOne(r, labels), m)
	case 3:
		m = fmt.Sprintf("count(count by (%s) (%s))", pickOne(r, labels), m)
	}
	return m
}
