package patterns

import "container/list"

// clusterLRU holds a Drain's clusters by id, least recently used first
// out once full. Every lookup counts as a use, as in Loki, so candidates
// compared during a search are refreshed too.
type clusterLRU struct {
	size    int
	order   *list.List // front: most recent
	byID    map[int]*list.Element
	onEvict func()
}

func newClusterLRU(size int, onEvict func()) *clusterLRU {
	return &clusterLRU{size: size, order: list.New(), byID: map[int]*list.Element{}, onEvict: onEvict}
}

func (c *clusterLRU) add(cl *cluster) {
	if el, ok := c.byID[cl.id]; ok {
		el.Value = cl
		c.order.MoveToFront(el)
		return
	}
	c.byID[cl.id] = c.order.PushFront(cl)
	if c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.byID, oldest.Value.(*cluster).id)
		c.onEvict()
	}
}

func (c *clusterLRU) get(id int) *cluster {
	el, ok := c.byID[id]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cluster)
}

// all lists the clusters, least recently used first.
func (c *clusterLRU) all() []*cluster {
	out := make([]*cluster, 0, c.order.Len())
	for el := c.order.Back(); el != nil; el = el.Prev() {
		out = append(out, el.Value.(*cluster))
	}
	return out
}

// remove drops a cluster without counting it as evicted.
func (c *clusterLRU) remove(id int) {
	if el, ok := c.byID[id]; ok {
		c.order.Remove(el)
		delete(c.byID, id)
	}
}
