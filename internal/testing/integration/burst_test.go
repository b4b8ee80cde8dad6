package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/parity"
)

// burstPushes put entries of one stream on one timestamp in an order
// their lines do not sort in, across two pushes and out of time order;
// one stream holds 30 entries on a few timestamps, enough for the
// frontend's sort to move them. Another (cutPushes) holds 140 entries on
// one timestamp with three values of structured metadata, then enough
// later lines for Loki to cut its head block: the 140 sit in a cut block.
func burstPushes() []string {
	at := anchoredAt(3 * time.Hour)
	v := func(s int, line string) string { return fmt.Sprintf(`[%q,%q]`, at(s), line) }
	first := []string{v(10, "c first"), v(10, "a second"), v(10, "b third"), v(11, "z1"), v(10, "d fourth"), v(11, "y2"), v(10, "e fifth")}
	var many []string
	for i := range 30 {
		many = append(many, v(20+i%4, fmt.Sprintf("entry %02d", (i*7)%30)))
	}
	for i := range 6 {
		many = append(many, v(3590+i, fmt.Sprintf("late %d", 5-i)), v(3600+i%2, fmt.Sprintf("next hour %d", i)))
	}
	return append([]string{
		`{"streams":[{"stream":{"app":"burst"},"values":[` + strings.Join(first, ",") + `]},{"stream":{"app":"burst2"},"values":[` + v(10, "other stream") + `]}]}`,
		`{"streams":[{"stream":{"app":"burst"},"values":[` + v(10, "f sixth (second push)") + "," + v(11, "x3") + `]}]}`,
		`{"streams":[{"stream":{"app":"many"},"values":[` + strings.Join(many, ",") + `]}]}`,
	}, cutPushes(at)...)
}

// cutPushes: 140 entries on one timestamp (more than one ingester
// message), metadata k in 0..2 in an order that does not sort (the first
// ten alike), then 300 KB of later lines.
func cutPushes(at func(int) string) []string {
	var group, filler []string
	for i := range 140 {
		k := (i*7 + 2) % 3
		if i < 10 {
			k = 1 // after line_format "{{.k}}", ten alike first
		}
		group = append(group, fmt.Sprintf(`[%q,"cut entry %03d",{"k":"%d"}]`, at(100), i, k))
	}
	pad := strings.Repeat("x", 1000)
	for i := range 300 {
		filler = append(filler, fmt.Sprintf(`[%q,"filler %03d %s"]`, at(101+i), i, pad))
	}
	return []string{
		`{"streams":[{"stream":{"app":"cut"},"values":[` + strings.Join(group, ",") + `]}]}`,
		`{"streams":[{"stream":{"app":"cut"},"values":[` + strings.Join(filler, ",") + `]}]}`,
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
	for _, q := range []string{`{app="cut"}`, `{app="cut"} | line_format "{{.k}}"`} {
		for _, dir := range []string{"forward", "backward"} {
			for _, limit := range []string{"5", "130", "1000"} {
				for _, flags := range []string{"", "categorize-labels"} {
					c := parity.Case{ID: fmt.Sprintf("cut_%s_%s_%s_%s", q, dir, limit, flags), Endpoint: "/loki/api/v1/query_range",
						Params: map[string]string{"query": q, "start": "@3h", "end": "@3h1m41s", "limit": limit, "direction": dir}}
					if flags != "" {
						c.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": flags}
					}
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// TestSameTimestampOrderMatchesLoki: entries of a stream sharing a
// timestamp come in the order they were pushed (reversed backward), by
// label within each ingester message, duplicates after the pipeline
// dropped before the limit, as the frontend's accumulator leaves them
// (testdata/burst_loki.json, recorded with make burst-record).
func TestSameTimestampOrderMatchesLoki(t *testing.T) {
	// Whether a push repeats a timestamp its stream held before is known
	// when vloki is the only writer (the default on the embedded engine).
	pushesMatchLoki(t, "burst_loki.json", "BURST_RECORD_LOKI_URL", burstPushes(), burstQueries(),
		func(c *config.Config) { c.Backend.SoleWriter = "on" })
}
