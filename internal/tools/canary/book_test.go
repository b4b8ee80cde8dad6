package canary

import (
	"testing"
	"time"
)

func TestBook(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	b := newBook(40, 10*time.Second, 30*time.Second, time.Hour, nil)
	a := b.send(t0, 0)
	back := b.send(t0.Add(100*time.Millisecond), 45*time.Second)
	c := b.send(t0.Add(200*time.Millisecond), 0)
	d := b.send(t0.Add(300*time.Millisecond), 0)
	for _, e := range []*entry{a, back, c, d} {
		b.acked(e, e.sent.Add(time.Millisecond))
	}
	if len(line(a.ts, 40)) != 40 || line(a.ts, 5) != line(a.ts, 0) {
		t.Errorf("line %q", line(a.ts, 40))
	}
	if back.ts != t0.Add(100*time.Millisecond-45*time.Second).UnixNano() || !back.backStamped {
		t.Errorf("back-stamped entry %+v", back)
	}
	// c comes before a and back: out of order; then a, then a again, a
	// line that is not the canary's and a timestamp never sent.
	now := t0.Add(time.Second)
	b.receive(c.ts, line(c.ts, 40), now)
	b.receive(a.ts, line(a.ts, 40), now)
	b.receive(a.ts, line(a.ts, 40), now)
	b.receive(a.ts+5, line(a.ts+5, 40), now)
	b.receive(d.ts, "garbage", now)
	b.receive(d.ts, line(d.ts, 40)+"x", now)
	r := b.report()
	if r.OutOfOrder != 1 || r.Duplicates != 1 || r.Unexpected != 3 || r.ResponseLatencyCount != 2 {
		t.Errorf("%+v", r)
	}
	// back and d are not delivered: past Wait they are websocket-missing;
	// a query finds back; d is missing past MaxWait.
	b.prune(t0.Add(5*time.Second), false)
	if b.waiting() != 2 {
		t.Fatalf("%d waiting before Wait", b.waiting())
	}
	b.prune(t0.Add(11*time.Second), false)
	if got := b.lost(); len(got) != 2 || got[0] != back.ts || got[1] != d.ts {
		t.Fatalf("lost %v", got)
	}
	b.resolve(map[int64]string{back.ts: line(back.ts, 40), d.ts: "wrong"}, t0.Add(12*time.Second), false)
	if r := b.report(); r.WebsocketMissing != 2 || r.QueryFound != 1 || r.Missing != 0 {
		t.Errorf("%+v", r)
	}
	b.resolve(nil, t0.Add(31*time.Second), false)
	if r := b.report(); r.Missing != 1 || len(b.lost()) != 0 {
		t.Errorf("%+v", r)
	}
	// Delivered after that: unexpected.
	b.receive(d.ts, line(d.ts, 40), t0.Add(32*time.Second))
	if r := b.report(); r.Unexpected != 4 {
		t.Errorf("%+v", r)
	}
}

func TestBookWindow(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	b := newBook(40, time.Minute, time.Minute, time.Hour, nil)
	var es []*entry
	for i := range 10 {
		es = append(es, b.send(t0.Add(time.Duration(i)*time.Second), 0))
	}
	for _, e := range es[:8] {
		b.acked(e, e.sent.Add(time.Millisecond))
	}
	b.pushFailed(es[8], nil)
	// (t0+1s, t0+9s]: entries 2..9, 8 failed, 9 in flight.
	lo, hi := b.window(es[1].ts, es[9].ts, t0.Add(time.Minute), t0.Add(time.Minute))
	if lo != 6 || hi != 7 {
		t.Errorf("lo %d hi %d", lo, hi)
	}
	if e := b.latest(); e != es[7] {
		t.Errorf("latest %+v", e)
	}
}

func TestBookForgets(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	b := newBook(40, time.Second, time.Second, time.Minute, nil)
	a := b.send(t0, 0)
	b.receive(a.ts, line(a.ts, 40), t0)
	c := b.send(t0.Add(time.Second), 0)
	b.prune(t0.Add(2*time.Minute), false)
	if len(b.entries) != 1 || b.entries[c.ts] == nil {
		t.Errorf("remembered %v", b.entries)
	}
}
