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

// node is a prefix-tree node: children by token, clusters at leaves.
// Children are a slice, not a map: there are at most maxChildren, most
// nodes have one, and a map per node made the tree most of the miner's
// memory.
type node struct {
	children   []edge
	clusterIDs []int
}

// edge is a child and its token (the founding cluster's copy, never a
// slice of a pushed line).
type edge struct {
	token string
	next  *node
}

func newNode() *node { return &node{} }

// find is the child under token t, or nil.
func (n *node) find(t string) *node {
	for _, e := range n.children {
		if e.token == t {
			return e.next
		}
	}
	return nil
}

// add files a new child under t.
func (n *node) add(t string) *node {
	next := newNode()
	n.children = append(n.children, edge{t, next})
	return next
}

// drain clusters the lines of one stream and level as Loki's pattern
// ingester does (Drain: a prefix tree on token count and leading tokens,
// then the most similar cluster above a threshold).
type drain struct {
	root     *node
	clusters *clusterLRU
	lastID   int
	tok      tokenizer
	limit    limiter
}

func newDrain(tok tokenizer) *drain {
	d := &drain{root: newNode(), tok: tok}
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

func cloneStrings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// search walks the tree by token count, then by the leading tokens (a
// placeholder child when the token has none), and picks the best leaf
// cluster.
func (d *drain) search(tokens []string) *cluster {
	cur := d.root.find(strconv.Itoa(len(tokens)))
	if cur == nil {
		return nil
	}
	for depth := 1; depth < maxNodeDepth && depth < len(tokens); depth++ {
		next := cur.find(tokens[depth-1])
		if next == nil {
			next = cur.find(placeholder)
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return d.bestMatch(cur.clusterIDs, tokens)
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
	cur := d.root.find(key)
	if cur == nil {
		cur = d.root.add(key)
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
func (d *drain) addToLeaf(n *node, id int) {
	kept := make([]int, 0, len(n.clusterIDs)+1)
	for _, old := range n.clusterIDs {
		if d.clusters.get(old) != nil {
			kept = append(kept, old)
		}
	}
	n.clusterIDs = append(kept, id)
}

func (d *drain) child(cur *node, t string) *node {
	if next := cur.find(t); next != nil {
		return next
	}
	param := cur.find(placeholder)
	hasParam := param != nil
	switch {
	case hasNumbers(t):
		if !hasParam {
			param = cur.add(placeholder)
		}
		return param
	case hasParam && len(cur.children) < maxChildren,
		!hasParam && len(cur.children)+1 < maxChildren:
		return cur.add(t)
	case !hasParam && len(cur.children)+1 == maxChildren:
		return cur.add(placeholder)
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
