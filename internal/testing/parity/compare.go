package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Compare returns every difference between Loki's answer and vloki's, or
// nil when vloki answered exactly. Normalisation is limited to what Loki
// itself leaves undetermined:
//   - the stats object (timings and storage internals) is not compared;
//   - label maps and series lists compare as maps and sets where Loki's
//     own order is unspecified (series, detected_* lists);
//   - with the case tag "float10", metric values compare to 10 significant
//     digits (Loki sums in map order, so the last digits of avg/stddev vary);
//   - the series a "pipeline error" names is not compared (Loki reports the
//     first erroring series of a map iteration).
func Compare(c Case, want, got Answer) []string {
	if want.Status != got.Status {
		return []string{fmt.Sprintf("status %d, Loki %d; body %q, Loki %q", got.Status, want.Status, clip(got.Body), clip(want.Body))}
	}
	if want.Status != 200 {
		if normalizePipelineError(want.Body) != normalizePipelineError(got.Body) {
			return []string{fmt.Sprintf("error body %q, Loki %q", got.Body, want.Body)}
		}
		return nil
	}
	var w, g any
	if err := json.Unmarshal([]byte(want.Body), &w); err != nil {
		return []string{"Loki's body is not JSON: " + err.Error()}
	}
	if err := json.Unmarshal([]byte(got.Body), &g); err != nil {
		return []string{"vloki's body is not JSON: " + err.Error()}
	}
	cmp := &comparer{float10: hasTag(c, "float10")}
	switch c.Endpoint {
	case "/loki/api/v1/query", "/loki/api/v1/query_range":
		cmp.queryAnswer(w, g)
	case "/loki/api/v1/series":
		cmp.unordered("data", get(w, "data"), get(g, "data"))
		cmp.equal("status", get(w, "status"), get(g, "status"))
	case "/loki/api/v1/detected_labels":
		// Loki builds these lists from maps: their order is random.
		cmp.unordered("detectedLabels", get(w, "detectedLabels"), get(g, "detectedLabels"))
	case "/loki/api/v1/detected_fields":
		cmp.unordered("fields", get(w, "fields"), get(g, "fields"))
		cmp.equal("limit", get(w, "limit"), get(g, "limit"))
	default:
		if strings.HasPrefix(c.Endpoint, "/loki/api/v1/detected_field/") {
			cmp.unordered("values", get(w, "values"), get(g, "values"))
			cmp.equal("limit", get(w, "limit"), get(g, "limit"))
			break
		}
		cmp.equal("", dropStats(w), dropStats(g))
	}
	return cmp.diffs
}

// normalizePipelineError blanks the series a "pipeline error" names: Loki
// reports whichever erroring series its map iteration meets first.
func normalizePipelineError(body string) string {
	const marker = "' for series: '"
	if !strings.HasPrefix(body, "pipeline error: '") {
		return body
	}
	i := strings.Index(body, marker)
	j := strings.Index(body, "'.\n")
	if i < 0 || j < i {
		return body
	}
	return body[:i+len(marker)] + "<series>" + body[j:]
}

func hasTag(c Case, tag string) bool {
	for _, t := range c.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

type comparer struct {
	float10 bool
	diffs   []string
}

func (c *comparer) addf(format string, args ...any) {
	if len(c.diffs) < 20 {
		c.diffs = append(c.diffs, fmt.Sprintf(format, args...))
	}
}

func get(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

func dropStats(v any) any {
	if m, ok := v.(map[string]any); ok {
		out := map[string]any{}
		for k, x := range m {
			if k != "stats" {
				out[k] = dropStats(x)
			}
		}
		return out
	}
	return v
}

func (c *comparer) queryAnswer(w, g any) {
	c.equal("status", get(w, "status"), get(g, "status"))
	c.equal("warnings", get(w, "warnings"), get(g, "warnings"))
	wd, gd := get(w, "data"), get(g, "data")
	c.equal("data.resultType", get(wd, "resultType"), get(gd, "resultType"))
	c.equal("data.encodingFlags", get(wd, "encodingFlags"), get(gd, "encodingFlags"))
	wr, gr := get(wd, "result"), get(gd, "result")
	switch get(wd, "resultType") {
	case "streams":
		c.streams(wr, gr)
	case "matrix", "vector":
		c.series(wr, gr)
	default:
		c.values("data.result", wr, gr)
	}
}

// streams compares stream by stream, in order: labels, then every entry.
func (c *comparer) streams(w, g any) {
	ws, _ := w.([]any)
	gs, _ := g.([]any)
	if len(ws) != len(gs) {
		c.addf("%d streams, Loki %d: %s", len(gs), len(ws), streamKeys(gs, ws))
	}
	for i := 0; i < len(ws) && i < len(gs); i++ {
		wl, gl := canon(get(ws[i], "stream")), canon(get(gs[i], "stream"))
		if wl != gl {
			c.addf("stream %d labels %s, Loki %s", i, gl, wl)
			continue
		}
		wv, _ := get(ws[i], "values").([]any)
		gv, _ := get(gs[i], "values").([]any)
		if len(wv) != len(gv) {
			c.addf("stream %s: %d entries, Loki %d", wl, len(gv), len(wv))
		}
		for j := 0; j < len(wv) && j < len(gv); j++ {
			if a, b := canon(wv[j]), canon(gv[j]); a != b {
				c.addf("stream %s entry %d: %s, Loki %s", wl, j, clip(b), clip(a))
				break
			}
		}
	}
}

func streamKeys(gs, ws []any) string {
	set := func(xs []any) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[canon(get(x, "stream"))] = true
		}
		return m
	}
	g, w := set(gs), set(ws)
	var extra, missing []string
	for k := range g {
		if !w[k] {
			extra = append(extra, k)
		}
	}
	for k := range w {
		if !g[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	return fmt.Sprintf("extra %v, missing %v", extra, missing)
}

// series compares matrix or vector results in order.
func (c *comparer) series(w, g any) {
	ws, _ := w.([]any)
	gs, _ := g.([]any)
	if len(ws) != len(gs) {
		c.addf("%d series, Loki %d", len(gs), len(ws))
	}
	for i := 0; i < len(ws) && i < len(gs); i++ {
		wm, gm := canon(get(ws[i], "metric")), canon(get(gs[i], "metric"))
		if wm != gm {
			c.addf("series %d metric %s, Loki %s", i, gm, wm)
			continue
		}
		if get(ws[i], "values") != nil {
			c.values("series "+wm, get(ws[i], "values"), get(gs[i], "values"))
		} else {
			c.values("series "+wm, get(ws[i], "value"), get(gs[i], "value"))
		}
	}
}

// values compares points; values are strings, compared exactly unless the
// case allows 10 significant digits.
func (c *comparer) values(where string, w, g any) {
	a, b := canon(w), canon(g)
	if a == b {
		return
	}
	if c.float10 && close10(w, g) {
		return
	}
	if wl, ok := w.([]any); ok {
		if gl, ok := g.([]any); ok {
			c.addf("%s: %s", where, firstDifference(gl, wl))
			return
		}
	}
	c.addf("%s: %s, Loki %s", where, clip(b), clip(a))
}

// firstDifference describes where two lists of points part: their lengths
// and the first point that differs, with its neighbours.
func firstDifference(got, want []any) string {
	i := 0
	for i < len(got) && i < len(want) && canon(got[i]) == canon(want[i]) {
		i++
	}
	around := func(l []any) string {
		lo, hi := max(i-1, 0), min(i+2, len(l))
		return clip(canon(l[lo:hi]))
	}
	return fmt.Sprintf("%d points, Loki %d; from point %d: %s, Loki %s", len(got), len(want), i, around(got), around(want))
}

// close10 reports values equal to 10 significant digits: a relative
// difference below 1e-10 (rounding both would split values that straddle
// a rounding boundary).
func close10(w, g any) bool {
	switch x := w.(type) {
	case []any:
		y, ok := g.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !close10(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := g.(string)
		if !ok {
			return false
		}
		a, errA := strconv.ParseFloat(x, 64)
		b, errB := strconv.ParseFloat(y, 64)
		if errA != nil || errB != nil {
			return x == y
		}
		return x == y || math.Abs(a-b) <= 1e-10*math.Max(math.Abs(a), math.Abs(b))
	}
	return canon(w) == canon(g)
}

func (c *comparer) equal(where string, w, g any) {
	if a, b := canon(w), canon(g); a != b {
		c.addf("%s: %s, Loki %s", where, clip(b), clip(a))
	}
}

// unordered compares two JSON arrays as multisets.
func (c *comparer) unordered(where string, w, g any) {
	ws, _ := w.([]any)
	gs, _ := g.([]any)
	sortCanon := func(xs []any) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = canon(x)
		}
		sort.Strings(out)
		return out
	}
	a, b := strings.Join(sortCanon(ws), "\n"), strings.Join(sortCanon(gs), "\n")
	if a != b {
		c.addf("%s differs: %d items, Loki %d", where, len(gs), len(ws))
	}
}

// canon renders JSON with sorted keys.
func canon(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
