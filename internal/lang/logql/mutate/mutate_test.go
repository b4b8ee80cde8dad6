package mutate

import (
	"slices"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
)

var testSeeds = []string{
	`sum by (app) (rate({app="foo"} |= "x" | json | unwrap latency [5m] offset 1h))`,
	`{app="foo"} | logfmt | level="error" or status >= 500`,
	`count_over_time({app="foo"}[1m]) > bool on (app) group_left (env) vector(1)`,
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(testSeeds, 300), Generate(testSeeds, 300)
	if !slices.Equal(a, b) {
		t.Fatal("two runs gave different mutants")
	}
	if other := GenerateSalted(testSeeds, 300, 1); slices.Equal(a, other) {
		t.Error("another salt gave the same mutants")
	}
}

func TestGenerateMakesDistinctMutantsOfEveryKind(t *testing.T) {
	ms := Generate(testSeeds, 300)
	if len(ms) != 3*300 {
		t.Fatalf("%d mutants, want 900", len(ms))
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, m := range ms {
		if seen[m.Query] || slices.Contains(testSeeds, m.Query) {
			t.Errorf("duplicate or seed: %q", m.Query)
		}
		seen[m.Query] = true
		kinds[m.Kind]++
	}
	for _, q := range quotas {
		if kinds[q.kind] == 0 {
			t.Errorf("no %s mutant", q.kind)
		}
	}
}

func TestMovesAndWraps(t *testing.T) {
	g := &gen{seed: testSeeds[0], rng: rngFor(testSeeds[0], 0)}
	toks := mustLex(t, testSeeds[0])
	g.pieces = split(testSeeds[0], toks)
	if !slices.Contains(g.moves(), `sum (rate({app="foo"} |= "x" | json | unwrap latency [5m] offset 1h)) by (app)`) {
		t.Error("by (app) not moved after the call")
	}
	if !slices.Contains(g.moves(), `sum by (app) (rate({app="foo"} |= "x" | json | unwrap latency offset 1h [5m]))`) {
		t.Error("offset not moved before the range")
	}
	if !slices.Contains(g.wraps(), `sum by (app) ({app="foo"} |= "x" | json | unwrap latency)`) {
		t.Error("pipeline not put where the vector was")
	}
}

func TestSelectSeedsIgnoresOrder(t *testing.T) {
	rev := slices.Clone(testSeeds)
	slices.Reverse(rev)
	a, b := SelectSeeds(testSeeds, 2), SelectSeeds(rev, 2)
	if !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("%q vs %q", a, b)
	}
	if !strings.HasPrefix(a[0], "sum by") {
		t.Errorf("the richest seed first: %q", a)
	}
}

func mustLex(t *testing.T, q string) []logql.Lexeme {
	t.Helper()
	toks, err := logql.Lex(q)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}
