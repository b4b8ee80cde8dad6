package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/parity"
)

// burstPushes put entries of one stream on one timestamp in an order
// their lines do not sort in, across two pushes and out of time order;
// one stream holds 30 entries on a few timestamps, enough for the
// frontend's sort to move them.
func burstPushes() []string {
	at := func(s int) string {
		return fmt.Sprint(parity.Anchor.Add(3*time.Hour + time.Duration(s)*time.Second).UnixNano())
	}
	v := func(s int, line string) string { return fmt.Sprintf(`[%q,%q]`, at(s), line) }
	first := []string{v(10, "c first"), v(10, "a second"), v(10, "b third"), v(11, "z1"), v(10, "d fourth"), v(11, "y2"), v(10, "e fifth")}
	var many []string
	for i := range 30 {
		many = append(many, v(20+i%4, fmt.Sprintf("entry %02d", (i*7)%30)))
	}
	for i := range 6 {
		many = append(many, v(3590+i, fmt.Sprintf("late %d", 5-i)), v(3600+i%2, fmt.Sprintf("next hour %d", i)))
	}
	return []string{
		`{"streams":[{"stream":{"app":"burst"},"values":[` + strings.Join(first, ",") + `]},{"stream":{"app":"burst2"},"values":[` + v(10, "other stream") + `]}]}`,
		`{"streams":[{"stream":{"app":"burst"},"values":[` + v(10, "f sixth (second push)") + "," + v(11, "x3") + `]}]}`,
		`{"streams":[{"stream":{"app":"many"},"values":[` + strings.Join(many, ",") + `]}]}`,
	}
}

func burstQueries() []parity.Case {
	var out []parity.Case
	for _, q := range []string{`{app=~"burst.*"}`, `{app="many"}`, `{app="many"} |= "entry"`} {
		for _, dir := range []string{"forward", "backward"} {
			for _, limit := range []string{"3", "5", "100"} {
				for _, end := range []string{"@3h30m", "@4h30m"} {
					for _, flags := range []string{"", "categorize-labels"} {
						c := parity.Case{ID: fmt.Sprintf("burst_%s_%s_%s_%s_%s", q, dir, limit, end, flags), Endpoint: "/loki/api/v1/query_range",
							Params: map[string]string{"query": q, "start": "@3h", "end": end, "limit": limit, "direction": dir}}
						if flags != "" {
							c.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": flags}
						}
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// TestSameTimestampOrderMatchesLoki: entries of a stream sharing a
// timestamp come in the order they were pushed (reversed backward), as
// the frontend's accumulator leaves them (testdata/burst_loki.json,
// recorded with make burst-record).
func TestSameTimestampOrderMatchesLoki(t *testing.T) {
	// Whether a push repeats a timestamp its stream held before is known
	// when vloki is the only writer (the default on the embedded engine).
	pushesMatchLoki(t, "burst_loki.json", "BURST_RECORD_LOKI_URL", burstPushes(), burstQueries(),
		func(c *config.Config) { c.Backend.SoleWriter = "on" })
}
