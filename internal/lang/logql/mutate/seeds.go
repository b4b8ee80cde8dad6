package mutate

import (
	"slices"
	"strings"

	"github.com/vloki/vloki/internal/lang/logql"
)

// maxSeedTokens keeps seeds short enough that a mutation's error is
// about the mutation.
const maxSeedTokens = 40

// SelectSeeds picks n of the valid queries that together cover the most
// of LogQL's syntax: greedily, the query adding the most token kinds and
// pairs of neighbouring kinds not yet covered (ties to the shorter, then
// the earlier in sorted order), so that the choice depends only on the
// set of queries given.
func SelectSeeds(valid []string, n int) []string {
	type cand struct {
		query    string
		features []string
	}
	queries := slices.Clone(valid)
	slices.Sort(queries)
	queries = slices.Compact(queries)
	var cands []cand
	for _, q := range queries {
		toks, err := logql.Lex(q)
		if err != nil || len(toks) == 0 || len(toks) > maxSeedTokens {
			continue
		}
		cands = append(cands, cand{q, features(q, toks)})
	}
	covered := map[string]bool{}
	var out []string
	for len(out) < n && len(cands) > 0 {
		best, bestGain := 0, -1
		for i, c := range cands {
			gain := 0
			for _, f := range c.features {
				if !covered[f] {
					gain++
				}
			}
			if gain > bestGain || gain == bestGain && len(c.query) < len(cands[best].query) {
				best, bestGain = i, gain
			}
		}
		for _, f := range cands[best].features {
			covered[f] = true
		}
		out = append(out, cands[best].query)
		cands = slices.Delete(cands, best, best+1)
	}
	return out
}

// features names a query's tokens (a function by its name) and their
// neighbouring pairs.
func features(q string, toks []logql.Lexeme) []string {
	names := make([]string, len(toks))
	for i, t := range toks {
		names[i] = t.Name
		if t.Name == "IDENTIFIER" && isFunction(q[t.Off:t.End]) {
			names[i] = strings.ToLower(q[t.Off:t.End])
		}
	}
	var out []string
	for i, n := range names {
		out = append(out, n)
		if i > 0 {
			out = append(out, names[i-1]+" "+n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
