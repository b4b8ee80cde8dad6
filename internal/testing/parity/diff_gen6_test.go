package parity

import (
	"math/rand/v2"

	"github.com/vloki/vloki/internal/lang/logql/mutate"
)

// randomCase6 builds malformed queries (DIFF_GEN=6, issue 31's malformed
// queries): a valid query of the first, second or fifth generator,
// mutated once by internal/lang/logql/mutate (a token deleted, doubled,
// swapped, inserted or replaced, a literal's kind changed, by/without/
// offset/bool/on/ignoring/group_left moved, a pipeline wrapped where a
// vector belongs, ...), asked with the same parameters. Loki's status,
// error text and column must match; a mutant Loki runs is compared as
// any query is. The same seed gives the same mutants, and every seed
// others (the salt).
func randomCase6(r *rand.Rand, i int) Case {
	valid := []func(*rand.Rand, int) Case{randomCase, randomCase2, randomCase5}
	c := valid[r.IntN(len(valid))](r, i)
	c.ID = "random6_" + c.ID
	if ms := mutate.GenerateSalted([]string{c.Params["query"]}, 1, r.Uint64()); len(ms) > 0 {
		c.Params["query"] = ms[0].Query
	}
	return c
}
