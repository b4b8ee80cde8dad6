package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Generate2 builds the second dataset, over the same day as the first and
// told apart by suite="two": shapes the first lacks — deep and irregular
// JSON, logfmt quoting edge cases, structured metadata colliding with
// stream labels and with parsed keys, label values with special
// characters, small bursts on one timestamp, streams differing in one
// label, many short streams.
func Generate2(lines int, span time.Duration) []Stream {
	return generateAll(rand.New(rand.NewPCG(20250210, 7)), generators2(), lines, span)
}

func generators2() []generator {
	gens := []generator{
		{labels: []string{"suite", "two", "app", "deep", "shape", "json"}, every: 3 * time.Second, line: deepJSON},
		{labels: []string{"suite", "two", "app", "quote", "shape", "logfmt"}, every: 4 * time.Second, line: quotedLogfmt},
		{labels: []string{"suite", "two", "app", "collide", "level", "info"}, every: 5 * time.Second, line: collidingJSON},
		{labels: []string{"suite", "two", "app", "special", "path", `/a b"c\d`, "note", "ünï=,{}\t|"}, every: 20 * time.Second, line: quotedLogfmt},
		{labels: []string{"suite", "two", "app", "bursts"}, every: 10 * time.Second, burstUpTo: 12, line: burstLine2},
		{labels: []string{"suite", "two", "app", "twin", "zone", "a"}, every: 6 * time.Second, line: deepJSON},
		{labels: []string{"suite", "two", "app", "twin", "zone", "b"}, every: 6 * time.Second, line: deepJSON},
	}
	for i := range 40 {
		gens = append(gens, generator{labels: []string{"suite", "two", "app", "short", "idx", fmt.Sprint(i)}, every: 90 * time.Minute, line: quotedLogfmt})
	}
	return gens
}

var keys2 = []string{"id", "a.b", "x-y", "ключ", "日本", "k_1", "Upper", "with space", "n"}

// deepJSON writes irregular JSON: nesting up to four levels, arrays of
// objects and numbers, keys with dots, dashes and unicode, numbers in
// exponent form, nulls, empty containers, sometimes a duplicated key.
func deepJSON(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	var b strings.Builder
	writeJSONObject(&b, r, 0)
	line := b.String()
	if r.IntN(6) == 0 {
		line = strings.Replace(line, "{", fmt.Sprintf(`{"dup":%d,"dup":"second",`, i), 1)
	}
	return line, nil
}

func writeJSONObject(b *strings.Builder, r *rand.Rand, depth int) {
	b.WriteByte('{')
	n := 1 + r.IntN(4)
	if depth == 0 {
		fmt.Fprintf(b, `"level":%q,"msg":%q,`, levelWord(r), pick(r, "done", "failed \"hard\"", "retry in 5s", "ünïcode ✓", `back\slash`))
	}
	for k := range n {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, "%q:", pick(r, keys2...))
		writeJSONValue(b, r, depth)
	}
	b.WriteByte('}')
}

func writeJSONValue(b *strings.Builder, r *rand.Rand, depth int) {
	switch k := r.IntN(9); {
	case k == 0 && depth < 3:
		writeJSONObject(b, r, depth+1)
	case k == 1 && depth < 3:
		b.WriteByte('[')
		for j := range r.IntN(3) {
			if j > 0 {
				b.WriteByte(',')
			}
			writeJSONValue(b, r, depth+1)
		}
		b.WriteByte(']')
	case k == 2:
		b.WriteString(pick(r, "1e3", "-2.5E-3", "0", "1.0", "12345678901234567890", "-0", "3.14"))
	case k == 3:
		b.WriteString(pick(r, "null", "true", "false", "{}", "[]"))
	case k == 4:
		fmt.Fprintf(b, "%d", r.IntN(1000))
	default:
		fmt.Fprintf(b, "%q", pick(r, "plain", "with \"quotes\"", "tab\there", "é", "", "a=b c=d", "{not json}"))
	}
}

// quotedLogfmt writes logfmt with quoting edge cases: escaped quotes,
// empty values, bare keys, spaces and unicode in quoted values, repeated
// keys, a malformed pair now and then.
func quotedLogfmt(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	parts := []string{fmt.Sprintf("level=%s", levelWord(r)), fmt.Sprintf("n=%d", i)}
	for range 1 + r.IntN(4) {
		parts = append(parts, pick(r,
			`msg="he said \"hi\""`, `empty=`, `bare`, `path="/a b/c"`, `uni="ünï ✓"`, `dur=1.5s`, `size=12KB`,
			`n=99`, `quote="a\\b"`, `eq="x=y"`, `k==v`, `"quoted key"=1`, `tab="a	b"`, `code=0x1F`, `latency=250ms`))
	}
	r.Shuffle(len(parts)-1, func(a, b int) { parts[a+1], parts[b+1] = parts[b+1], parts[a+1] })
	return strings.Join(parts, " "), nil
}

// collidingJSON carries structured metadata named like the stream's level
// label and like keys the JSON parser extracts.
func collidingJSON(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	line := fmt.Sprintf(`{"level":%q,"msg":"collide %d","user":"u%d","app":"inner"}`, levelWord(r), i, r.IntN(9))
	var metadata lokidata.Labels
	switch r.IntN(4) {
	case 0:
		metadata = md("level", pick(r, "warn", "debug"))
	case 1:
		metadata = md("msg", "from metadata", "user", "meta-user")
	case 2:
		metadata = md("app", "meta-app")
	}
	return line, metadata
}

func burstLine2(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf("burst entry %d value=%d %s", i, r.IntN(100), levelWord(r)), nil
}
