package patterns

import (
	"strconv"
	"strings"
	"unicode"
)

// Loki's Drain settings (pattern ingester defaults).
const (
	logClusterDepth  = 30
	maxNodeDepth     = logClusterDepth - 2
	similarity       = 0.3
	maxChildren      = 15
	maxClusters      = 300
	maxEvictionRatio = 0.25
	maxLineLength    = 3000
	minTokens        = 4
	maxLineTokens    = 80
	sampleInterval   = 10_000          // ms
	maxChunkAge      = 3_600_000       // ms
	throttleFor      = 600_000_000_000 // ns: a stream evicting too much pauses 10 minutes
)

// cluster is one pattern: its tokens (placeholders where lines differ),
// the spacing of the line that founded it, and its counts over time.
type cluster struct {
	id      int
	tokens  []string
	spaces  []int
	samples chunks
}

// drain clusters the lines of one stream and level as Loki's pattern
// ingester does (Drain: a prefix tree on token count and leading tokens,
// then the most similar cluster above a threshold).
type drain struct {
	tree     *tree
	clusters *clusterLRU
	lastID   int
	tok      tokenizer
	limit    limiter
}

func newDrain(tok tokenizer) *drain {
	d := &drain{tree: newTree(), tok: tok}
	d.clusters = newClusterLRU(maxClusters, func() { d.limit.evicted++ })
	return d
}

// train clusters one line at tsNano; clock is the time the eviction
// throttle counts in.
func (d *drain) train(line string, tsNano, clock int64) {
	if !d.limit.allow(clock) {
		return
	}
	tokens, spaces, ok := d.tok.tokenize(line)
	if !ok || len(tokens) < minTokens || len(tokens) > maxLineTokens {
		return
	}
	c := d.search(tokens)
	if c == nil {
		d.lastID++
		c = &cluster{id: d.lastID, tokens: cloneStrings(tokens), spaces: append([]int(nil), spaces...),
			samples: chunks{sampleInterval: sampleInterval, maxChunkAge: maxChunkAge}}
		c.samples.add(tsNano / 1e6)
		d.clusters.add(c)
		d.addToTree(c)
		return
	}
	for i, t := range tokens {
		if c.tokens[i] != t {
			c.tokens[i] = placeholder
		}
	}
	c.samples.add(tsNano / 1e6)
	d.clusters.get(c.id)
}

// cloneStrings copies ss into one allocation (a string apiece made the
// clusters' tokens a fifth of the process' heap objects).
func cloneStrings(ss []string) []string {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range ss {
		b.WriteString(s)
	}
	all, out := b.String(), make([]string, len(ss))
	for i, s := range ss {
		out[i], all = all[:len(s)], all[len(s):]
	}
	return out
}

// search walks the tree by token count, then by the leading tokens (a
// placeholder child when the token has none), and picks the best leaf
// cluster.
func (d *drain) search(tokens []string) *cluster {
	t := d.tree
	cur := t.find(root, strconv.Itoa(len(tokens)))
	if cur == none {
		return nil
	}
	for depth := 1; depth < maxNodeDepth && depth < len(tokens); depth++ {
		next := t.find(cur, tokens[depth-1])
		if next == none {
			next = t.find(cur, placeholder)
		}
		if next == none {
			return nil
		}
		cur = next
	}
	return d.bestMatch(t.clusterIDs(cur), tokens)
}

// bestMatch is the most similar cluster (ties: more placeholders), if its
// similarity reaches the threshold.
func (d *drain) bestMatch(ids []int, tokens []string) *cluster {
	var best *cluster
	bestSim, bestParams := -1.0, -1
	for _, id := range ids {
		c := d.clusters.get(id)
		if c == nil {
			continue
		}
		sim, params := seqSimilarity(c.tokens, tokens)
		if params < 0 {
			continue
		}
		if sim > bestSim || sim == bestSim && params > bestParams {
			best, bestSim, bestParams = c, sim, params
		}
	}
	if bestSim >= similarity {
		return best
	}
	return nil
}

// seqSimilarity is the share of positions where the cluster has the
// line's token (placeholders do not count), and the placeholder count;
// -1 when a cluster token starting with NUL (an exact-match mark)
// differs.
func seqSimilarity(clusterTokens, tokens []string) (float64, int) {
	same, params := 0, 0
	for i, ct := range clusterTokens {
		t := tokens[i]
		if ct != "" && ct[0] == 0 && ct != t {
			return 0, -1
		}
		switch ct {
		case placeholder:
			params++
		case t:
			same++
		}
	}
	return float64(same) / float64(len(clusterTokens)), params
}

// addToTree files a new cluster under its token count and leading tokens;
// tokens with digits go under the placeholder child, and a node full of
// children sends new tokens there too.
func (d *drain) addToTree(c *cluster) {
	key := strconv.Itoa(len(c.tokens))
	cur := d.tree.find(root, key)
	if cur == none {
		cur = d.tree.add(root, key)
	}
	for depth, t := range c.tokens {
		if depth+1 >= maxNodeDepth || depth+1 >= len(c.tokens) {
			d.addToLeaf(cur, c.id)
			return
		}
		cur = d.child(cur, t)
	}
}

// addToLeaf drops ids of evicted clusters before adding the new one.
func (d *drain) addToLeaf(n int32, id int) {
	ids := d.tree.clusterIDs(n)
	kept := make([]int, 0, len(ids)+1)
	for _, old := range ids {
		if d.clusters.get(old) != nil {
			kept = append(kept, old)
		}
	}
	d.tree.setClusterIDs(n, append(kept, id))
}

func (d *drain) child(cur int32, tok string) int32 {
	t := d.tree
	if next := t.find(cur, tok); next != none {
		return next
	}
	param := t.find(cur, placeholder)
	hasParam := param != none
	children := int(t.nodes[cur].children)
	switch {
	case hasNumbers(tok):
		if !hasParam {
			param = t.add(cur, placeholder)
		}
		return param
	case hasParam && children < maxChildren,
		!hasParam && children+1 < maxChildren:
		return t.add(cur, tok)
	case !hasParam && children+1 == maxChildren:
		return t.add(cur, placeholder)
	}
	return param
}

func hasNumbers(s string) bool {
	for _, r := range s {
		if unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// pattern is the cluster's text, runs of placeholders collapsed.
func (d *drain) pattern(c *cluster) string {
	return collapsePlaceholders(d.tok.join(c.tokens, c.spaces))
}

// limiter pauses a Drain for ten minutes once more than a quarter of the
// clusters it created were evicted (Loki measures the pause in wall-clock
// time at ingestion; mining stored lines, their own timestamps stand in).
type limiter struct {
	added, evicted int64
	blockedUntil   int64
}

func (l *limiter) allow(now int64) bool {
	if l.blockedUntil != 0 {
		if now < l.blockedUntil {
			return false
		}
		*l = limiter{}
	}
	if l.added == 0 {
		l.added++
		return true
	}
	if float64(l.evicted)/float64(l.added) > maxEvictionRatio {
		l.blockedUntil = now + throttleFor
		return false
	}
	l.added++
	return true
}
