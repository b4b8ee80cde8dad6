// Package mutate derives malformed LogQL queries from valid ones, token by
// token, as the goldens of the parser's errors: Loki's answers to them are
// recorded (parity/cmd/record-malformed) and vloki's parser must give the
// same (internal/lang/logql's TestLokiMalformed).
//
// Every mutation works on the tokens vloki's own lexer reads (logql.Lex):
// delete, duplicate or swap tokens, insert or substitute any token of
// LogQL's vocabulary, change a literal's kind, move a grouping, offset,
// bool or vector matching elsewhere, insert one, and put a log pipeline
// where a vector belongs (and a vector where a pipeline belongs). The
// output depends only on the seeds: the same seeds give the same mutants.
package mutate

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Mutant is a query derived from a seed and the kind of mutation that made it.
type Mutant struct {
	Query string
	Kind  string
}

// Generate returns up to perSeed mutants of every seed, in seed order,
// without duplicates (across seeds too) and without the seeds themselves.
func Generate(seeds []string, perSeed int) []Mutant { return GenerateSalted(seeds, perSeed, 0) }

// GenerateSalted is Generate with other random choices for each salt.
func GenerateSalted(seeds []string, perSeed int, salt uint64) []Mutant {
	seen := map[string]bool{}
	for _, s := range seeds {
		seen[s] = true
	}
	var out []Mutant
	for _, s := range seeds {
		out = append(out, mutantsOf(s, perSeed, salt, seen)...)
	}
	return out
}

// quotas are how many mutants of each kind one round takes, before the next kind.
var quotas = []struct {
	kind  string
	share int
}{
	{"delete", 3}, {"duplicate", 2}, {"swap", 2}, {"insert", 8}, {"replace", 6},
	{"literal", 2}, {"move", 3}, {"construct", 3}, {"wrap", 2}, {"splice", 2}, {"double", 5},
}

// mutantsOf draws up to n new mutants of seed, kinds taking turns by
// their shares so that none crowds the others out.
func mutantsOf(seed string, n int, salt uint64, seen map[string]bool) []Mutant {
	toks, err := logql.Lex(seed)
	if err != nil || len(toks) == 0 {
		return nil
	}
	g := &gen{seed: seed, pieces: split(seed, toks), rng: rngFor(seed, salt)}
	pools := map[string][]string{}
	for _, q := range quotas {
		pools[q.kind] = g.candidates(q.kind)
		g.rng.Shuffle(len(pools[q.kind]), func(i, j int) {
			pools[q.kind][i], pools[q.kind][j] = pools[q.kind][j], pools[q.kind][i]
		})
	}
	var out []Mutant
	for progress := true; progress && len(out) < n; {
		progress = false
		for _, q := range quotas {
			for taken := 0; taken < q.share && len(pools[q.kind]) > 0 && len(out) < n; {
				m := pools[q.kind][0]
				pools[q.kind] = pools[q.kind][1:]
				progress = true
				if seen[m] {
					continue
				}
				seen[m] = true
				out = append(out, Mutant{Query: m, Kind: q.kind})
				taken++
			}
		}
	}
	return out
}

// rngFor seeds the random source with the query, so each seed's mutants
// are the same whichever seeds come before it.
func rngFor(seed string, salt uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(seed))
	return rand.New(rand.NewPCG(h.Sum64(), 0x6d616c666f726d64^salt))
}

// piece is a token with the text before it (blanks, comments).
type piece struct {
	pre, text, name string
}

// split cuts the query into its tokens, each with what precedes it; the
// last piece holds what follows the last token, with no name.
func split(q string, toks []logql.Lexeme) []piece {
	var out []piece
	at := 0
	for _, t := range toks {
		out = append(out, piece{pre: q[at:t.Off], text: q[t.Off:t.End], name: t.Name})
		at = t.End
	}
	return append(out, piece{pre: q[at:]})
}

func join(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.pre)
		b.WriteString(p.text)
	}
	return b.String()
}

type gen struct {
	seed   string
	pieces []piece // the last one is the trailer
	rng    *rand.Rand
}

// tokens is how many tokens the seed has (the trailer is none).
func (g *gen) tokens() int { return len(g.pieces) - 1 }

func (g *gen) candidates(kind string) []string {
	switch kind {
	case "delete":
		return g.each(func(i int) []string { return []string{join(deleteAt(g.pieces, i))} })
	case "duplicate":
		return g.each(func(i int) []string { return []string{join(insertAt(g.pieces, i+1, g.pieces[i].text))} })
	case "swap":
		return g.each(func(i int) []string {
			if i+1 >= g.tokens() {
				return nil
			}
			return []string{join(swapAt(g.pieces, i))}
		})
	case "insert":
		return g.vocabulary(func(i int, v string) []piece { return insertAt(g.pieces, i, v) }, g.tokens()+1)
	case "replace":
		return g.vocabulary(func(i int, v string) []piece { return replaceAt(g.pieces, i, v) }, g.tokens())
	case "literal":
		return g.literalKinds()
	case "move":
		return g.moves()
	case "construct":
		return g.constructs()
	case "wrap":
		return g.wraps()
	case "splice":
		return g.splices()
	case "double":
		return g.doubles(400)
	}
	return nil
}

// each collects f's mutants for every token position.
func (g *gen) each(f func(i int) []string) []string {
	var out []string
	for i := range g.tokens() {
		out = append(out, f(i)...)
	}
	return out
}

// vocabulary applies f with every token of the vocabulary at every
// position below positions.
func (g *gen) vocabulary(f func(i int, v string) []piece, positions int) []string {
	var out []string
	for i := range positions {
		for _, v := range Vocabulary() {
			out = append(out, join(f(i, v)))
		}
	}
	return out
}

func deleteAt(ps []piece, i int) []piece {
	out := append([]piece{}, ps[:i]...)
	next := ps[i+1]
	if next.pre == "" && ps[i].pre != "" {
		next.pre = ps[i].pre
	}
	return append(append(out, next), ps[i+2:]...)
}

// insertAt puts text before the token at i, a blank before it.
func insertAt(ps []piece, i int, text string) []piece {
	out := append([]piece{}, ps[:i]...)
	out = append(out, piece{pre: " ", text: text})
	return append(out, ps[i:]...)
}

func replaceAt(ps []piece, i int, text string) []piece {
	out := append([]piece{}, ps...)
	out[i].text, out[i].name = text, ""
	return out
}

func swapAt(ps []piece, i int) []piece {
	out := append([]piece{}, ps...)
	out[i].text, out[i+1].text = ps[i+1].text, ps[i].text
	out[i].name, out[i+1].name = ps[i+1].name, ps[i].name
	return out
}

// literalKinds gives each string, number, duration, byte size and range
// the other kinds' spelling of a close value.
func (g *gen) literalKinds() []string {
	others := map[string][]string{
		"STRING":   {"5", "5m", "1KB", "[5m]", "app"},
		"NUMBER":   {`"5"`, "5m", "5KB", "[5m]", "app"},
		"DURATION": {"5", `"5m"`, "5KB", "[5m]", "app"},
		"BYTES":    {"5", "5m", `"5KB"`, "[5m]"},
		"RANGE":    {"5m", "5", `"5m"`, "[5]", "[5m:1m]", "[]"},
	}
	return g.each(func(i int) []string {
		var out []string
		for _, v := range others[g.pieces[i].name] {
			out = append(out, join(replaceAt(g.pieces, i, v)))
		}
		return out
	})
}

// doubles applies two random substitutions, insertions or deletions.
func (g *gen) doubles(n int) []string {
	if g.tokens() < 2 {
		return nil
	}
	var out []string
	for range n {
		ps := g.pieces
		for range 2 {
			ps = g.randomEdit(ps)
		}
		out = append(out, join(ps))
	}
	return out
}

func (g *gen) randomEdit(ps []piece) []piece {
	v := Vocabulary()
	tokens := len(ps) - 1
	if tokens < 1 {
		return insertAt(ps, 0, v[g.rng.IntN(len(v))])
	}
	switch g.rng.IntN(3) {
	case 0:
		return deleteAt(ps, g.rng.IntN(tokens))
	case 1:
		return insertAt(ps, g.rng.IntN(tokens+1), v[g.rng.IntN(len(v))])
	}
	return replaceAt(ps, g.rng.IntN(tokens), v[g.rng.IntN(len(v))])
}
