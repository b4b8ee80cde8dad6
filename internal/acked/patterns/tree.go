package patterns

// tree is a Drain's prefix tree: children by token, cluster ids at the
// leaves. Its nodes, edges and the edges' tokens sit in three slices
// without pointers, and point at each other by index: a heap object per
// node, per children slice and per token made the miner most of the
// process' objects (1.5 M at 100 streams and 5 levels), all of which
// every garbage collection marks.
type tree struct {
	nodes []treeNode
	edges []treeEdge
	// text holds the edges' tokens, copied: the tree keeps no pushed line
	// or cluster alive.
	text []byte
	// leaves are the cluster ids of the nodes that have some.
	leaves [][]int
}

// treeNode's children are a list of edges in the order they were added
// (first, then each edge's sibling).
type treeNode struct {
	first, last int32
	children    int32
	leaf        int32 // index in leaves, or none
}

// treeEdge is a child and its token, text[off:off+n].
type treeEdge struct {
	off, n  uint32
	child   int32
	sibling int32
}

const (
	none int32 = -1
	root int32 = 0
)

func newTree() *tree {
	t := &tree{}
	t.newNode()
	return t
}

func (t *tree) newNode() int32 {
	t.nodes = append(t.nodes, treeNode{first: none, last: none, leaf: none})
	return int32(len(t.nodes) - 1)
}

// find is n's child under token tok, or none.
func (t *tree) find(n int32, tok string) int32 {
	for e := t.nodes[n].first; e != none; e = t.edges[e].sibling {
		if string(t.token(e)) == tok { // compared without a copy
			return t.edges[e].child
		}
	}
	return none
}

// add files a new child of n under tok.
func (t *tree) add(n int32, tok string) int32 {
	child := t.newNode()
	t.link(n, tok, child)
	return child
}

// token is edge e's token, in the text.
func (t *tree) token(e int32) []byte {
	ed := &t.edges[e]
	return t.text[ed.off : ed.off+ed.n]
}

// link makes child n's last child, under tok.
func (t *tree) link(n int32, tok string, child int32) {
	t.text = append(t.text, tok...)
	t.linkText(n, len(tok), child)
}

// linkText makes child n's last child, under the text's last k bytes.
func (t *tree) linkText(n int32, k int, child int32) {
	off := uint32(len(t.text) - k)
	t.edges = append(t.edges, treeEdge{off: off, n: uint32(k), child: child, sibling: none})
	e := int32(len(t.edges) - 1)
	if nd := &t.nodes[n]; nd.last == none {
		nd.first = e
	} else {
		t.edges[nd.last].sibling = e
	}
	t.nodes[n].last = e
	t.nodes[n].children++
}

func (t *tree) clusterIDs(n int32) []int {
	if l := t.nodes[n].leaf; l != none {
		return t.leaves[l]
	}
	return nil
}

func (t *tree) setClusterIDs(n int32, ids []int) {
	if l := t.nodes[n].leaf; l != none {
		t.leaves[l] = ids
		return
	}
	t.leaves = append(t.leaves, ids)
	t.nodes[n].leaf = int32(len(t.leaves) - 1)
}

// size is where a copy stands, to take back a branch that was not kept.
type size struct{ nodes, edges, text, leaves int }

func (t *tree) size() size { return size{len(t.nodes), len(t.edges), len(t.text), len(t.leaves)} }

func (t *tree) truncate(s size) {
	clear(t.leaves[s.leaves:])
	t.nodes, t.edges, t.text, t.leaves = t.nodes[:s.nodes], t.edges[:s.edges], t.text[:s.text], t.leaves[:s.leaves]
}
