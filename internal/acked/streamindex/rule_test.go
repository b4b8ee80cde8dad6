package streamindex

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// clock is a settable wall clock.
type clock struct{ at time.Time }

func (c *clock) now() time.Time { return c.at }

// t10 is 10:01 UTC, a minute into the 10:00 head period.
var t10 = time.Date(2026, 1, 2, 10, 1, 0, 0, time.UTC)

func ruleIndex(c *clock, lookback time.Duration) *Index {
	return New(Config{MaxStreams: 10, Horizon: horizonAt(-1), Now: c.now,
		Labels: LabelRule{ChunkIdle: 6 * time.Minute, FlushCheck: 10 * time.Second, Lookback: lookback}})
}

// names asks the label values of app over [from, to) at the index's clock.
func values(t *testing.T, ix *Index, detected bool, from, to time.Time) []string {
	t.Helper()
	ask := ix.Recent
	if detected {
		ask = ix.Detected
	}
	streams, ok, err := ask(context.Background(), tn, Range{Start: from.UnixNano(), End: to.UnixNano()})
	if err != nil || !ok {
		t.Fatalf("not answered: %v %v", ok, err)
	}
	return Values(streams, "app")
}

// pushAt pushes app=name with entries at ts, the clock at wall.
func pushAt(ix *Index, c *clock, wall time.Time, name string, ts ...time.Time) {
	c.at = wall
	var ns []int64
	for _, x := range ts {
		ns = append(ns, x.UnixNano())
	}
	ix.Acked(tn, pushed(lbls("app", name), ns...))
}

// The rule's states in turn: memory (any range), the head of the flush
// period (cross-day, kept one more period), the period's per-day files,
// the day units.
func TestRuleFollowsFlushesAndUnits(t *testing.T) {
	c := &clock{}
	ix := ruleIndex(c, -1)
	yday := t10.Add(-26 * time.Hour)
	pushAt(ix, c, t10, "a", t10.Add(-time.Minute))
	pushAt(ix, c, t10, "y", yday)
	steps := []struct {
		at       time.Duration // after t10
		from, to time.Time
		detected bool
		want     []string
	}{
		{5 * time.Minute, t10.Add(4 * time.Minute), t10.Add(5 * time.Minute), false, []string{"a", "y"}}, // memory: any range
		{5 * time.Minute, t10.Add(4 * time.Minute), t10.Add(5 * time.Minute), true, []string{"a", "y"}},
		{7 * time.Minute, t10.Add(6 * time.Minute), t10.Add(7 * time.Minute), false, []string{}},          // flushed at 10:07:10; head ends at 10:00
		{7 * time.Minute, t10.Add(-2 * time.Minute), t10.Add(7 * time.Minute), false, []string{"a", "y"}}, // the 10:00 head spans both days
		{7 * time.Minute, t10.Add(-2 * time.Minute), t10.Add(7 * time.Minute), true, []string{}},          // detected: memory only
		{16 * time.Minute, yday, yday.Add(time.Second), false, []string{"a", "y"}},                        // the previous head, and yesterday's file
		{31 * time.Minute, yday, yday.Add(time.Second), false, []string{"y"}},                             // heads gone, days merged
		{31 * time.Minute, t10.Add(-2 * time.Minute), t10, false, []string{"a"}},
	}
	for _, s := range steps {
		c.at = t10.Add(s.at)
		if got := values(t, ix, s.detected, s.from, s.to); !slices.Equal(got, s.want) {
			t.Errorf("at +%v over [%v, %v) detected %v: %v, want %v", s.at, s.from.Format("15:04:05"), s.to.Format("15:04:05"), s.detected, got, s.want)
		}
	}
}

// Between its files' rotation and the merge lag a period's files are
// units of their own: a range over the day's earlier stream misses a
// stream flushed later, until the merge.
func TestRulePeriodFilesUntilMerged(t *testing.T) {
	c := &clock{}
	ix := ruleIndex(c, -1)
	pushAt(ix, c, t10, "early", t10.Add(-time.Hour))
	pushAt(ix, c, t10.Add(20*time.Minute), "late", t10.Add(20*time.Minute)) // flushed 10:27:10, period 10:15
	from, to := t10.Add(-time.Hour), t10.Add(-59*time.Minute)
	for at, want := range map[time.Duration][]string{
		35 * time.Minute: {"early"},         // 10:36: late in its 10:15 head and its file, units of their own
		45 * time.Minute: {"early", "late"}, // 10:46: merged into the day 13 min after 10:30
	} {
		c.at = t10.Add(at)
		if got := values(t, ix, false, from, to); !slices.Equal(got, want) {
			t.Errorf("at +%v: %v, want %v", at, got, want)
		}
	}
}

// With a positive look-back memory answers only ranges ending after now
// minus it; detected labels read the units before it.
func TestRuleLookback(t *testing.T) {
	c := &clock{}
	ix := ruleIndex(c, 2*time.Hour+41*time.Minute)
	pushAt(ix, c, t10, "a", t10.Add(-5*time.Hour))
	c.at = t10.Add(time.Minute)
	if got := values(t, ix, false, t10.Add(-5*time.Hour), t10.Add(-4*time.Hour)); len(got) != 0 {
		t.Errorf("a range before the look-back: %v from memory", got)
	}
	if got := values(t, ix, false, t10.Add(-time.Hour), t10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("a range inside the look-back: %v", got)
	}
	c.at = t10.Add(20 * time.Minute) // flushed into the 10:00 head, bounds at 05:01
	if got := values(t, ix, true, t10.Add(-6*time.Hour), t10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("detected labels over the store's range: %v", got)
	}
}

// A restarted index answers as the one that saved it, now and later.
func TestRuleSurvivesRestart(t *testing.T) {
	c := &clock{}
	ix := ruleIndex(c, -1)
	yday := t10.Add(-26 * time.Hour)
	pushAt(ix, c, t10, "old", yday)
	pushAt(ix, c, t10.Add(40*time.Minute), "old", t10.Add(40*time.Minute)) // old's first chunk flushed, merged
	pushAt(ix, c, t10.Add(41*time.Minute), "mid", t10.Add(-time.Hour))
	pushAt(ix, c, t10.Add(55*time.Minute), "new", t10.Add(55*time.Minute))
	file := filepath.Join(t.TempDir(), "index.json")
	if err := ix.Save(file, 1); err != nil {
		t.Fatal(err)
	}
	re := ruleIndex(c, -1)
	if _, err := re.Load(file); err != nil {
		t.Fatal(err)
	}
	ranges := [][2]time.Time{{yday, yday.Add(time.Second)}, {t10.Add(-time.Hour), t10}, {t10.Add(50 * time.Minute), t10.Add(time.Hour)}}
	for _, at := range []time.Duration{56 * time.Minute, 70 * time.Minute, 3 * time.Hour} {
		c.at = t10.Add(at)
		for _, r := range ranges {
			for _, detected := range []bool{false, true} {
				want, got := values(t, ix, detected, r[0], r[1]), values(t, re, detected, r[0], r[1])
				if !slices.Equal(got, want) {
					t.Errorf("at +%v over %v detected %v: restored %v, saved %v", at, r, detected, got, want)
				}
			}
		}
	}
	c.at = t10.Add(3 * time.Hour)
	if got := values(t, re, false, yday, yday.Add(time.Second)); !slices.Equal(got, []string{"old"}) {
		t.Errorf("yesterday's unit after the restart: %v", got)
	}
}

// Ranges reaching a day the index may not hold all of (rows stored
// before it, up to the horizon) are not answered by the rule.
func TestRuleDefersBeforeHorizonDay(t *testing.T) {
	c := &clock{at: t10}
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(t10.Add(-time.Hour).UnixNano()), Now: c.now,
		Labels: LabelRule{ChunkIdle: 6 * time.Minute}})
	ix.Acked(tn, []lokidata.Stream{{Labels: lbls("app", "a"), Entries: []lokidata.Entry{{TimestampNs: t10.UnixNano()}}}})
	if _, ok, _ := ix.Recent(context.Background(), tn, Range{Start: t10.Add(-time.Minute).UnixNano(), End: t10.UnixNano()}); ok {
		t.Error("a range of the horizon's day answered by the rule")
	}
	tomorrow := t10.Add(24 * time.Hour)
	if _, ok, _ := ix.Recent(context.Background(), tn, Range{Start: tomorrow.UnixNano(), End: tomorrow.Add(time.Hour).UnixNano()}); !ok {
		t.Error("a range of a later day not answered by the rule")
	}
}

func TestStreamDayRunsMerge(t *testing.T) {
	st := &stream{}
	for _, r := range []dayRun{{5, 5}, {9, 10}, {7, 7}, {6, 6}, {12, 12}, {3, 4}} {
		st.addDays(r.First, r.Last)
	}
	want := []dayRun{{3, 7}, {9, 10}, {12, 12}}
	if !slices.Equal(st.days, want) {
		t.Fatalf("runs %v, want %v", st.days, want)
	}
	if !st.inDays([]int64{1, 10}) || st.inDays([]int64{8, 11, 13}) {
		t.Fatalf("inDays wrong over %v", st.days)
	}
	if got := st.dayList(); !slices.Equal(got, []int64{3, 4, 5, 6, 7, 9, 10, 12}) {
		t.Fatalf("dayList %v", got)
	}
}

func TestStreamMetadataSets(t *testing.T) {
	st := &stream{}
	a := lokidata.Labels{{Name: "trace", Value: "1"}, {Name: "detected_level", Value: "info"}}
	b := lokidata.Labels{{Name: "detected_level", Value: "info"}, {Name: "trace", Value: "1"}}
	if st.metaSet(nil) != 0 || st.metaSet(a) != 1 || st.metaSet(b) != 1 {
		t.Fatalf("one set in two orders got sets %v", st.metaSets)
	}
	for i := 0; len(st.metaSets) < maxMetaSets; i++ {
		st.metaSet(lokidata.Labels{{Name: "trace", Value: strconv.Itoa(i)}})
	}
	if got := st.metaSet(lokidata.Labels{{Name: "trace", Value: "new"}}); got != unknownMeta {
		t.Fatalf("a set past the bound got %d", got)
	}
}
