package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// TestFrozenSamplesFillReadsAtMostItsBound: a sum over more entries than
// the frozen samples store keeps per input asks VictoriaLogs for counts
// per exact timestamp once, and VictoriaLogs must stop at the bound, not
// group every entry of the span first (at 5 M lines a day that held GBs
// in the storage for each such request). Asked again, each exact-time
// query vloki sent must count at most the bound plus one entry, and the
// answers stay those of the bucket path.
func TestFrozenSamplesFillReadsAtMostItsBound(t *testing.T) {
	const lines, bound = 25_000, 20_000 // bound: metric.maxTimeStatsSamples
	c, rec, vl := recordedVictoriaLogs(t, 0)
	tg, _ := serve(t, config.Default(), c, "timestats")
	for from := 0; from < lines; from += 5000 {
		es := make([]entry, 5000)
		for i := range es {
			es[i] = entry{ns(base.Add(time.Duration(from+i) * 100 * time.Millisecond)), "line " + strconv.Itoa(from+i)}
		}
		tg.pushJSON(t, "", jsonPush(map[string]string{"app": "fill"}, es...))
	}
	query := `sum(count_over_time({app="fill"}[1m]))`
	var totals []float64
	for _, step := range []string{"60", "30", "20"} { // a second grid asks for the fill
		r := tg.get(t, "/loki/api/v1/query_range", "", url.Values{"query": {query}, "start": {ns(base)}, "end": {ns(base.Add(time.Hour))}, "step": {step}}, nil)
		if r.status != http.StatusOK {
			t.Fatalf("step %s: %d %s", step, r.status, r.body)
		}
		totals = append(totals, sumOfWindows(t, r.body))
	}
	exact := rec.matching(func(q string) bool { return strings.Contains(q, "stats by (_time)") })
	if len(exact) == 0 {
		t.Fatalf("no query per exact timestamp was sent: the check proves nothing; queries: %q", rec.matching(func(string) bool { return true }))
	}
	for _, q := range exact {
		if n := countedBy(t, vl, q); n > bound+1 {
			t.Errorf("VictoriaLogs counted %d entries for %s; at most %d needed", n, q.query, bound+1)
		}
	}
	for i, step := range []time.Duration{time.Minute, 30 * time.Second, 20 * time.Second} {
		if want := windowCounts(lines, step); totals[i] != want {
			t.Errorf("at step %v the windows count %v entries, want %v", step, totals[i], want)
		}
	}
}

// windowCounts adds up, over the steps of [base, base+1h], the entries
// (one every 100 ms from base) in each window (t-1m, t].
func windowCounts(lines int, step time.Duration) float64 {
	total := 0
	for t := time.Duration(0); t <= time.Hour; t += step {
		for i := range lines {
			if at := time.Duration(i) * 100 * time.Millisecond; at > t-time.Minute && at <= t {
				total++
			}
		}
	}
	return float64(total)
}

// sumOfWindows adds up every value of a matrix answer.
func sumOfWindows(t *testing.T, body []byte) float64 {
	t.Helper()
	var m struct {
		Data struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, s := range m.Data.Result {
		for _, v := range s.Values {
			f, err := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
			if err != nil {
				t.Fatal(err)
			}
			total += f
		}
	}
	return total
}
