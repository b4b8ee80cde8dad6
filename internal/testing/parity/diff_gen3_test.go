package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randomCase3 is the third generator (DIFF_GEN=3): queries Loki refuses
// (log and metric expressions mixed, pipelines where a vector belongs,
// functions with arguments of the wrong kind, malformed ip() filters,
// subquery syntax, misplaced offset, by, without and bool, odd ranges),
// mixed with valid ones, and regex matchers of every shape on stream
// labels, structured metadata and parsed labels, which Loki simplifies
// before it matches. A quarter of them end where they start (Loki reads
// that instant inclusively, from its store).
func randomCase3(r *rand.Rand, i int) Case {
	start := fmt.Sprintf("@%dh", r.IntN(20))
	c := Case{ID: fmt.Sprintf("random3_%d", i), Endpoint: "/loki/api/v1/query_range",
		Params: map[string]string{"start": start, "end": endAfter(start, pickOne(r, []string{"0s", "10m", "1h", "3h"}))}}
	var q string
	switch r.IntN(3) {
	case 0:
		q = refusedQuery(r)
	case 1:
		q = regexLogQuery(r)
		c.Params["limit"] = pickOne(r, []string{"20", "200"})
	default:
		q = fmt.Sprintf("%s(%s [%s])", pickOne(r, []string{"count_over_time", "bytes_over_time"}), regexLogQuery(r), pickOne(r, []string{"1m", "5m"}))
		if r.IntN(2) == 0 {
			q = "sum by (app) (" + q + ")"
		}
	}
	c.Params["query"] = q
	if !strings.HasPrefix(q, "{") || r.IntN(3) == 0 {
		c.Params["step"] = pickOne(r, []string{"60", "300"})
	}
	if r.IntN(4) == 0 {
		c.Endpoint = "/loki/api/v1/query"
		c.Params = map[string]string{"query": q, "time": c.Params["end"]}
	}
	return c
}

var regexMatchers = []string{`check.*`, `.*out`, `(?i)CHECKOUT`, `check|pay.*`, `[a-c].*`, `checkout|`, `check(out)?`,
	`\\w+`, `.+`, `.*`, `c.*t`, `(checkout|payments)`, `pay[a-z]+s`, `^checkout$`, `.*e.*`, `(?s).*kout`, `CHECKOUT`, ``}

var parsedRegexes = []string{`level=~"(?i)ERR.*"`, `level!~"info|debug"`, `level=~""`, `level=~".*rror"`, `level=~"e.*r"`,
	`level=~"err|"`, `level!~".*"`, `level=~"[ew].+"`, `level=~"(?i)warn(ing)?"`, `user_country=~"D.|U."`,
	`user_country!~"(?i)us"`, `detected_level=~"err.*"`, `detected_level!~"(info|debug)"`, `level=~"\\w{4,5}"`}

// regexLogQuery selects by a regex on a stream label, maybe filters by a
// regex on structured metadata or a parsed label.
func regexLogQuery(r *rand.Rand) string {
	op := pickOne(r, []string{"=~", "!~"})
	sel := fmt.Sprintf(`{app%s"%s"}`, op, pickOne(r, regexMatchers))
	if op == "!~" || r.IntN(3) == 0 {
		sel = strings.TrimSuffix(sel, "}") + `, namespace="shop"}`
	}
	switch r.IntN(4) {
	case 0:
		return sel
	case 1:
		return sel + " | " + pickOne(r, parsedRegexes[11:13])
	default:
		return sel + " | json | " + pickOne(r, parsedRegexes)
	}
}

var refusedQueries = []string{
	`{app="checkout"} + count_over_time({app="checkout"}[1m])`,
	`count_over_time({app="checkout"}[1m]) > {app="checkout"}`,
	`sum({app="checkout"} |= "a")`,
	`rate({app="checkout"})`,
	`sum by (app) ({app="checkout"})`,
	`topk("a", rate({app="checkout"}[1m]))`,
	`topk(rate({app="checkout"}[1m]), 5)`,
	`quantile_over_time({app="checkout"} | json | unwrap amount [1m])`,
	`label_replace(rate({app="checkout"}[1m]), "a")`,
	`absent_over_time(rate({app="checkout"}[1m])[1m])`,
	`vector("a")`,
	`{app="checkout"} |= ip("300.1.1.1")`,
	`{app="checkout"} | logfmt | addr = ip("10.0.0.0/33")`,
	`{app="checkout"} |= ip("")`,
	`{app="checkout"} | json | x = ip("a-b")`,
	`rate({app="checkout"}[5m:1m])`,
	`max_over_time(rate({app="checkout"}[1m])[5m:1m])`,
	`sum(rate({app="checkout"}[1m])) offset 1m`,
	`sum(rate({app="checkout"}[1m])) by (app) by (pod)`,
	`rate({app="checkout"}[1m]) by (app)`,
	`sum without () (rate({app="checkout"}[1m]))`,
	`count_over_time({app="checkout"}[1m]) bool > 1`,
	`count_over_time({app="checkout"}[1m]) > bool 1`,
	`1 > bool 2`,
	`count_over_time({app="checkout"} bool [1m])`,
	`count_over_time({app="checkout"}[0s])`,
	`count_over_time({app="checkout"}[-1m])`,
	`count_over_time({app="checkout"}[1.5m])`,
	`count_over_time({app="checkout"}[1y])`,
	`count_over_time({app="checkout"}[1m] offset -1m)`,
	`count_over_time({app="checkout"}[1m] offset 1m offset 1m)`,
	`sum by (app) count_over_time({app="checkout"}[1m])`,
	`sum(count_over_time({app="checkout"}[1m]), 2)`,
	`topk(2, count_over_time({app="checkout"}[1m]), 3)`,
	`count_over_time({app="checkout"} | json [1m]) without (app)`,
	`avg_over_time({app="checkout"} | json | unwrap amount [1m]) by (level) without (app)`,
	`sort(count_over_time({app="checkout"}[1m]))`,
	`sort_desc(count_over_time({app="checkout"}[1m]), 1)`,
	`count_over_time({app="checkout"}[1m]) and on (app) group_left count_over_time({app="payments"}[1m])`,
	`count_over_time({app="checkout"}[1m]) / on(app) group_left(pod) count_over_time({app="payments"}[1m])`,
	`count_over_time({app=~".*"}[1m])`,
	`{app=""}`,
	`{}`,
	`{app="checkout"} | unwrap amount`,
	`sum_over_time({app="checkout"} | json [1m])`,
	`rate_counter({app="checkout"} | json | unwrap bytes(amount) [1m])`,
	`count_over_time({app="checkout"} |> "<_" [1m])`,
	`{app="checkout"} | line_format "{{.a"`,
	`{app="checkout"} | label_format a=`,
	`{app="checkout"} | json | level > "a"`,
	`{app="checkout"} | json | amount > 1 or`,
	`{app="checkout"} | regexp "(?P<a>x"`,
	`{app="checkout"} | regexp "x"`,
	`{app="checkout"} | pattern "<a> <b"`,
	`{app="checkout"} | pattern "abc"`,
	`{app="checkout"} | drop`,
	`{app="checkout"} | keep a=`,
	`{app="checkout"} | decolorize 1`,
	`{app="checkout"} |= "a" or`,
	`{app="checkout"} or {app="payments"}`,
	`count_over_time({app="checkout"}[1m]) or vector(0)`,
	`label_replace(count_over_time({app="checkout"}[1m]), "x", "$1", "app", "(")`,
	`label_replace(count_over_time({app="checkout"}[1m]), "1x", "$1", "app", "(.*)")`,
}

// refusedQuery is a refused query, now and then with a valid one's
// spacing changed (Loki's parser is whitespace-insensitive).
func refusedQuery(r *rand.Rand) string {
	q := pickOne(r, refusedQueries)
	if r.IntN(4) == 0 {
		q = strings.ReplaceAll(q, ", ", ",")
	}
	return q
}
