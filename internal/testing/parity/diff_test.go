package parity

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestRandomDifferential asks a running Loki holding the parity dataset
// (DIFF_LOKI_URL, e.g. the oracle of make parity-record) and vloki the
// same randomly built queries and reports every difference. It explores
// combinations the corpus does not list; DIFF_N sets how many (default
// 200), DIFF_SEED the seed or an inclusive range of seeds (1-50), DIFF_GEN=2 to 6 another generator (6: mutants),
// DIFF_DATASET=2 adds the second dataset (Generate2) to both and asks the
// first two generators about it.
func TestRandomDifferential(t *testing.T) {
	loki := os.Getenv("DIFF_LOKI_URL")
	if loki == "" {
		t.Skip("set DIFF_LOKI_URL to a Loki holding the parity dataset")
	}
	n, _ := strconv.Atoi(os.Getenv("DIFF_N"))
	if n <= 0 {
		n = 200
	}
	first, last, err := seedRange(os.Getenv("DIFF_SEED"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.Assemble(config.Default(), slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "embedded", func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	defer srv.Close()
	ctx := context.Background()
	if err := Push(ctx, srv.URL, "", Generate(DefaultLines, DefaultSpan), 1<<20); err != nil {
		t.Fatal(err)
	}
	diffSources = sources
	if os.Getenv("DIFF_DATASET") == "2" {
		ds := Generate2(DefaultLines/4, DefaultSpan)
		for _, u := range []string{srv.URL, loki} {
			if err := Push(ctx, u, "", ds, 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		if err := waitCount(loki, `{suite="two"}`, Total(ds)); err != nil {
			t.Fatal(err)
		}
		diffSources = sources2
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	gen := randomCase
	switch os.Getenv("DIFF_GEN") {
	case "2":
		gen = randomCase2
	case "3":
		gen = randomCase3
	case "4":
		gen = randomCase4
	case "5":
		gen = randomCase5
	case "6":
		gen = randomCase6
	}
	var steady []difference
	for seed := first; seed <= last; seed++ {
		t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
			steady = append(steady, askRandom(t, ctx, loki, srv.URL, gen, rand.New(rand.NewPCG(seed, 99)), n)...)
		})
	}
	t.Run("after_loki_flush", func(t *testing.T) { askFlushed(t, ctx, loki, steady) })
}

// difference is a query Loki answered steadily otherwise than vloki.
type difference struct {
	cs    Case
	got   Answer
	diffs []string
}

// askFlushed flushes Loki's ingesters into its store and asks the
// differences again: where Loki now answers as vloki, its first answer came
// from ingester state (a head block's order of entries sharing a
// timestamp) that its own store does not keep. The others fail the test.
func askFlushed(t *testing.T, ctx context.Context, loki string, steady []difference) {
	if len(steady) == 0 {
		return
	}
	if err := FlushLoki(ctx, loki, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	remain := 0
	for _, d := range steady {
		again, err := Ask(ctx, loki, "", d.cs)
		if err != nil {
			t.Fatal(err)
		}
		if len(Compare(d.cs, again, d.got)) == 0 {
			t.Logf("once flushed, Loki answers %s %v as vloki does", d.cs.Endpoint, d.cs.Params)
			continue
		}
		remain++
		t.Errorf("%s %v\n  %s", d.cs.Endpoint, d.cs.Params, clip(strings.Join(d.diffs, "; ")))
	}
	t.Logf("%d of the %d steady differences remain once Loki's ingesters are flushed", remain, len(steady))
}

// askRandom asks Loki and vloki n queries of gen and returns the
// differences Loki keeps when asked again, to be asked once more after
// Loki's flush (askFlushed).
func askRandom(t *testing.T, ctx context.Context, loki, vloki string, gen func(*rand.Rand, int) Case, r *rand.Rand, n int) []difference {
	var steady []difference
	varied := 0
	for i := 0; i < n; i++ {
		cs := gen(r, i)
		want, err := Ask(ctx, loki, "", cs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Ask(ctx, vloki, "", cs)
		if err != nil {
			t.Fatal(err)
		}
		if bothRacingErrors(want, got) {
			// Loki reports whichever failure one of its concurrent
			// sub-queries or legs meets first: asked again, it names
			// another series, or the other failure.
			continue
		}
		diffs := Compare(cs, want, got)
		if len(diffs) == 0 {
			continue
		}
		switch askedAgain(t, ctx, loki, cs, want, got) {
		case lokiGaveIt:
			continue
		case lokiVaries:
			varied++
			t.Logf("Loki answers %s %v differently when asked again; vloki's answer is not among %d of its answers:\n  %s", cs.Endpoint, cs.Params, reasks+1, clip(strings.Join(diffs, "; ")))
			continue
		}
		steady = append(steady, difference{cs, got, diffs})
		t.Logf("%s %v (asked again after Loki's flush)\n  %s", cs.Endpoint, cs.Params, clip(strings.Join(diffs, "; ")))
	}
	t.Logf("%d of %d random queries differ before Loki's flush (%d more where Loki disagrees with itself)", len(steady), n, varied)
	return steady
}

// reasks is how many more times a query vloki answers differently is put
// to Loki.
const reasks = 12

type reask int

const (
	lokiSteady reask = iota // Loki answered the same each time
	lokiGaveIt              // one of Loki's answers is vloki's
	lokiVaries              // Loki's answers differ from each other
)

// askedAgain puts cs to Loki again: some answers of Loki's depend on its
// map order or on which of its concurrent legs ends first (as which twin
// series it reads first, see read/metric's jamTwins).
func askedAgain(t *testing.T, ctx context.Context, loki string, cs Case, first, got Answer) reask {
	varies := false
	for range reasks {
		again, err := Ask(ctx, loki, "", cs)
		if err != nil {
			t.Fatal(err)
		}
		if len(Compare(cs, again, got)) == 0 {
			return lokiGaveIt
		}
		varies = varies || len(Compare(cs, first, again)) > 0
	}
	if varies {
		return lokiVaries
	}
	return lokiSteady
}

// seedRange reads DIFF_SEED: one seed ("7") or an inclusive range ("1-50").
func seedRange(s string) (first, last uint64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	if first, err = strconv.ParseUint(a, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("DIFF_SEED %q: %w", s, err)
	}
	if !isRange {
		return first, first, nil
	}
	if last, err = strconv.ParseUint(b, 10, 64); err != nil || last < first {
		return 0, 0, fmt.Errorf("DIFF_SEED %q: want a seed or first-last", s)
	}
	return first, last, nil
}

// bothRacingErrors reports two 400s, each a pipeline error or the series
// limit: which of them Loki answers depends on timing.
func bothRacingErrors(a, b Answer) bool {
	racing := func(x Answer) bool {
		return x.Status == 400 && (strings.HasPrefix(x.Body, "pipeline error: '") || strings.HasPrefix(x.Body, "maximum number of series"))
	}
	return racing(a) && racing(b)
}

type source struct {
	sel     string
	parser  string
	filters []string
	fields  []string // labels the parser yields
	unwrap  []string // numeric fields with their conversion
}

// diffSources are the streams the first two generators ask about.
var diffSources []source

var sources = []source{
	{`{app="checkout"}`, "json", []string{`level="error"`, `amount > 100`, `paid="true"`, `user_country=~"D.|US"`, `duration > 500ms`}, []string{"level", "user_country", "paid", "currency"}, []string{"amount", "duration(duration)"}},
	{`{app="payments"}`, "logfmt", []string{`status="declined"`, `method!="card"`, `latency < 1s`, `amount >= 250`}, []string{"method", "status", "level"}, []string{"amount", "duration(latency)"}},
	{`{app="frontend"}`, "logfmt", []string{`status >= 500`, `path=~"/api.*"`, `bytes > 100KB`, `level!="debug"`}, []string{"path", "status", "level"}, []string{"bytes", "duration(duration)", "status"}},
	{`{app="search", component="query"}`, "logfmt", []string{`cache="hit"`, `took > 1s`, `size > 1MB`, `rows < 100`}, []string{"cache", "query"}, []string{"bytes(size)", "duration(took)", "rows"}},
	{`{job="nginx"}`, `pattern "<ip> - - <_> \"<method> <path> <_>\" <status> <size> <_>"`, []string{`status >= 500`, `method="GET"`, `size > 40000`}, []string{"method", "status"}, []string{"size"}},
	{`{service="auth"}`, "json", []string{`severity="warning"`, `mfa="true"`, `attempts > 1`}, []string{"severity", "mfa"}, []string{"attempts"}},
	{`{namespace="shop"}`, "", nil, []string{"app", "pod"}, nil},
	{`{host=~"db-.*"}`, "logfmt", []string{`level="error"`, `duration > 1s`}, []string{"level", "host"}, []string{"rows"}},
	{`{name="gateway"}`, "logfmt", []string{`client = ip("10.0.0.0/8")`, `status=504`}, []string{"status"}, nil},
}

// sources2 are the second dataset's streams (DIFF_DATASET=2).
var sources2 = []source{
	{`{suite="two", app="deep"}`, "json", []string{`level="error"`, `n > 100`, `a_b=~".+"`, `x_y!=""`, `dup="second"`, `id > 1e2`}, []string{"level", "dup", "a_b", "x_y", "id"}, []string{"id", "n", "k_1"}},
	{`{suite="two", app="quote"}`, "logfmt", []string{`msg=~".*hi.*"`, `empty=""`, `dur > 1s`, `size > 10KB`, `n >= 50`, `eq="x=y"`}, []string{"level", "msg", "eq", "empty"}, []string{"n", "duration(dur)", "bytes(size)", "duration(latency)"}},
	{`{suite="two", app="collide"}`, "json", []string{`level="info"`, `level_extracted="warn"`, `msg="from metadata"`, `user=~"u[0-4]"`, `app_extracted="inner"`}, []string{"level", "user", "msg", "app"}, nil},
	{`{suite="two", path="/a b"c\d"}`, "logfmt", []string{`n > 10`, `level!="info"`}, []string{"note", "level"}, []string{"n"}},
	{`{suite="two", app="bursts"}`, `regexp "value=(?P<value>\d+)"`, []string{`value > 50`}, []string{"value"}, []string{"value"}},
	{`{suite="two", app="twin"}`, "json", []string{`level="warn"`, `zone="a"`}, []string{"zone", "level"}, []string{"n"}},
	{`{suite="two", app="short"}`, "logfmt", []string{`idx=~"1.*"`, `n < 10`}, []string{"idx", "level"}, []string{"n"}},
	{`{suite=~"tw.", note=~".*ünï.*"}`, "", nil, []string{"note", "path"}, nil},
}

var lineFilters = []string{`|= "error"`, `!= "info"`, `|~ "(?i)warn"`, `|= "a" or "e"`, `!~ "^\\{"`, `|= ""`,
	`|> "<_>error<_>"`, `!> "<_> ok <_>"`, `|~ "status=5.."`, `!= "debug" != "info"`, `|= ip("10.0.0.0/8")`}

var stages = []string{`| drop __error__, __error_details__`, `| line_format "{{.level}} {{__line__ | len}}"`, `| label_format lvl=level`,
	`| keep level, app`, `| decolorize`, `| drop level="info"`, `| label_format x="{{ .level | upper }}-{{ .app }}"`,
	`| line_format "{{ if .level }}{{ .level | ToUpper }}{{ else }}none{{ end }}"`, `| regexp "(?P<word>[a-z]+)"`,
	`| pattern "<first> <_>"`, `| unpack`, `| json first="msg", nested="user.country"`, `| logfmt --strict`,
	`| logfmt --keep-empty level, msg`, `| level="error" or level="warn"`, `| level!="info", app=~".+"`,
	`| line_format "{{ .msg | trunc 12 }}|{{ __timestamp__ | unixEpoch }}"`, `| label_format a="{{ .app | replace \"e\" \"3\" }}", b=app`,
	`| drop app, __error__`, `| keep app, level="error"`, `| line_format "{{ .level }}" |= "err"`, `| app=~"(check|pay).*"`,
	`| label_format level="{{ default \"none\" .level }}"`, `| level=""`, `| regexp "(?P<first>\\S+) (?P<second>\\S+)"`}

func pickOne[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomLogQuery builds a selector, maybe a line filter, maybe a parser
// with a label filter and a formatting stage.
func randomLogQuery(r *rand.Rand, s source) string {
	q := s.sel
	if r.IntN(2) == 0 {
		q += " " + pickOne(r, lineFilters)
	}
	if s.parser != "" && r.IntN(3) > 0 {
		q += " | " + s.parser
		if len(s.filters) > 0 && r.IntN(2) == 0 {
			q += " | " + pickOne(r, s.filters)
		}
	}
	for k := r.IntN(3); k > 1; k-- {
		q += " " + pickOne(r, stages)
	}
	if r.IntN(3) == 0 {
		q += " " + pickOne(r, stages)
	}
	return q
}

func randomCase(r *rand.Rand, i int) Case {
	s := pickOne(r, diffSources)
	startH := r.IntN(20)
	span := []string{"5m", "30m", "1h", "3h"}[r.IntN(4)]
	params := map[string]string{"start": fmt.Sprintf("@%dh", startH), "end": fmt.Sprintf("@%dh%s", startH, "")}
	d, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(span, "m"), "h"))
	if strings.HasSuffix(span, "m") {
		params["end"] = fmt.Sprintf("@%dh%dm", startH, d)
	} else {
		params["end"] = fmt.Sprintf("@%dh", startH+d)
	}
	c := Case{ID: fmt.Sprintf("random_%d", i), Endpoint: "/loki/api/v1/query_range", Params: params}
	if r.IntN(2) == 0 {
		c.Params["query"] = randomLogQuery(r, s)
		c.Params["limit"] = strconv.Itoa([]int{10, 100, 1000}[r.IntN(3)])
		if r.IntN(2) == 0 {
			c.Params["direction"] = "forward"
		}
		if r.IntN(4) == 0 {
			c.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}
		}
		if r.IntN(6) == 0 {
			c.Params["interval"] = pickOne(r, []string{"10s", "1m"})
		}
		return c
	}
	c.Params["step"] = []string{"60", "300", "900"}[r.IntN(3)]
	rng := []string{"1m", "5m", "10m"}[r.IntN(3)]
	inner := randomLogQuery(r, s)
	var m string
	switch k := r.IntN(5); {
	case k < 2 || len(s.unwrap) == 0 || s.parser == "":
		m = fmt.Sprintf("%s(%s [%s])", pickOne(r, []string{"count_over_time", "rate", "bytes_over_time", "bytes_rate", "absent_over_time"}), inner, rng)
	default:
		if !strings.Contains(inner, "| "+s.parser) {
			inner += " | " + s.parser
		}
		fn := pickOne(r, []string{"sum_over_time", "avg_over_time", "max_over_time", "min_over_time", "quantile_over_time",
			"stddev_over_time", "stdvar_over_time", "first_over_time", "last_over_time", "rate_counter"})
		param := ""
		if fn == "quantile_over_time" {
			param = pickOne(r, []string{"0.5", "0.9", "0.99"}) + ", "
		}
		grouping := ""
		if fn != "sum_over_time" && r.IntN(2) == 0 {
			grouping = " by (" + pickOne(r, s.fields) + ")"
		}
		m = fmt.Sprintf("%s(%s%s | unwrap %s | __error__=\"\" [%s])%s", fn, param, inner, pickOne(r, s.unwrap), rng, grouping)
	}
	if r.IntN(5) == 0 {
		m = strings.Replace(m, "])", "] offset 5m)", 1)
	}
	switch r.IntN(4) {
	case 0:
		m = fmt.Sprintf("sum by (%s) (%s)", pickOne(r, s.fields), m)
	case 1:
		// Not topk: Loki breaks its ties in map order.
		m = fmt.Sprintf("sum without (%s) (%s)", pickOne(r, s.fields), m)
	case 2:
		m = fmt.Sprintf("%s(%s)", pickOne(r, []string{"sum", "avg", "max", "count", "min", "stddev"}), m)
	}
	switch r.IntN(8) {
	case 0:
		m = fmt.Sprintf("%s %s %s", m, pickOne(r, []string{"/", "*", "+", "-", "> bool", "<", ">=", "%", "^", "== bool"}), pickOne(r, []string{"2", "0.5", "vector(1)"}))
	case 4:
		other := fmt.Sprintf("count_over_time(%s [%s])", s.sel, rng)
		m = fmt.Sprintf("%s %s %s", m, pickOne(r, []string{"and", "or", "unless", "/ ignoring(level)", "> on()", "+ on(app) group_left"}), other)
	case 5:
		m = fmt.Sprintf("-%s", m)
	case 1:
		m = fmt.Sprintf("sum(%s) / sum(count_over_time(%s [5m]))", m, s.sel)
	case 2:
		m = fmt.Sprintf("label_replace(%s, \"dst\", \"v-$1\", \"%s\", \"(.*)\")", m, pickOne(r, s.fields))
	case 3:
		m = fmt.Sprintf("%s or vector(0)", m)
	}
	c.Params["query"] = m
	if r.IntN(5) == 0 {
		c.Endpoint = "/loki/api/v1/query"
		c.Params = map[string]string{"query": m, "time": params["end"]}
	}
	// Loki adds up series in map order: the last digits of a sum vary.
	c.Tags = []string{"float10"}
	return c
}
