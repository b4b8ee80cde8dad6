package lease

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const (
	renew    = 40 * time.Millisecond
	duration = 200 * time.Millisecond
)

// holders counts the replicas evaluating at once, as their callbacks say.
type holders struct {
	mu          sync.Mutex
	now, most   int
	acquisition map[string]time.Time
	losses      map[string]time.Time
}

func newHolders() *holders {
	return &holders{acquisition: map[string]time.Time{}, losses: map[string]time.Time{}}
}

func (h *holders) lease(path, name string) *Lease {
	return New(Options{Path: path, Holder: name, Duration: duration, RenewPeriod: renew,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnAcquire: func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.now++
			h.most = max(h.most, h.now)
			h.acquisition[name] = time.Now()
		},
		OnLose: func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.now--
			h.losses[name] = time.Now()
		}})
}

func (h *holders) snapshot() (now, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now, h.most
}

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// crash stops the lease as a killed process would: no release, no
// OnLose.
func crash(l *Lease) {
	l.cancel()
	<-l.done
}

// TestOneHolderAmongTakers: replicas starting together on a free lease
// end with one holder, and never two at once.
func TestOneHolderAmongTakers(t *testing.T) {
	for range 5 {
		h := newHolders()
		path := filepath.Join(t.TempDir(), FileName)
		var ls []*Lease
		for _, name := range []string{"a", "b", "c"} {
			l := h.lease(path, name)
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Start() // its first look runs at once, concurrently
		}
		waitFor(t, "a holder", time.Second, func() bool { n, _ := h.snapshot(); return n == 1 })
		time.Sleep(3 * duration)
		held := 0
		for _, l := range ls {
			if l.Held() {
				held++
			}
		}
		if n, most := h.snapshot(); n != 1 || most != 1 || held != 1 {
			t.Fatalf("holding now %d, at most %d, Held() %d", n, most, held)
		}
		for _, l := range ls {
			l.Stop()
		}
	}
}

// TestReleasedLeaseTakenAtOnce: a holder that stops stops evaluating,
// then releases the lease, which another takes within a renew period.
func TestReleasedLeaseTakenAtOnce(t *testing.T) {
	h := newHolders()
	path := filepath.Join(t.TempDir(), FileName)
	a := h.lease(path, "a")
	a.Start()
	waitFor(t, "a holds", time.Second, a.Held)
	b := h.lease(path, "b")
	b.Start()
	defer b.Stop()
	time.Sleep(2 * duration)
	if b.Held() {
		t.Fatal("b took a held lease")
	}
	a.Stop()
	took := waitFor(t, "b takes over", duration, b.Held)
	if _, most := h.snapshot(); most != 1 || took > renew+renew/5+20*time.Millisecond {
		t.Errorf("at most %d holders; took over after %v", most, took)
	}
	var rec record
	raw, _ := os.ReadFile(path)
	if json.Unmarshal(raw, &rec) != nil || rec.Holder != "b" || !rec.Expires.After(rec.Renewed) {
		t.Errorf("lease file: %s", raw)
	}
}

// TestCrashedHolderExpires: a holder that dies without releasing is
// taken over once its lease has not changed for the duration, not before.
func TestCrashedHolderExpires(t *testing.T) {
	h := newHolders()
	path := filepath.Join(t.TempDir(), FileName)
	a := h.lease(path, "a")
	a.Start()
	waitFor(t, "a holds", time.Second, a.Held)
	b := h.lease(path, "b")
	b.Start()
	defer b.Stop()
	time.Sleep(duration)
	crash(a)
	died := time.Now()
	waitFor(t, "b takes over", 3*duration, b.Held)
	if took := time.Since(died); took < duration || took > duration+2*renew+renew/5+20*time.Millisecond {
		t.Errorf("took over %v after the holder died (duration %v)", took, duration)
	}
}

// TestStableNameResumes: a replica restarted under its name takes a lease
// that still names it at once, without waiting for it to expire.
func TestStableNameResumes(t *testing.T) {
	h := newHolders()
	path := filepath.Join(t.TempDir(), FileName)
	a := h.lease(path, "a")
	a.Start()
	waitFor(t, "a holds", time.Second, a.Held)
	crash(a)
	again := h.lease(path, "a")
	again.Start()
	defer again.Stop()
	if took := waitFor(t, "a resumes", duration, again.Held); took > renew/5+20*time.Millisecond {
		t.Errorf("resumed after %v", took)
	}
}

// TestHolderGivesUpUnrenewable: a holder that cannot renew (its directory
// gone) stops evaluating before the others may take over.
func TestHolderGivesUpUnrenewable(t *testing.T) {
	h := newHolders()
	dir := filepath.Join(t.TempDir(), "rules")
	a := h.lease(filepath.Join(dir, FileName), "a")
	a.Start()
	defer a.Stop()
	waitFor(t, "a holds", time.Second, a.Held)
	// Renewals fail from here: the directory is a file now.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := time.Now()
	waitFor(t, "a gives up", 2*duration, func() bool { return !a.Held() })
	if gave := time.Since(broken); gave >= duration {
		t.Errorf("gave up %v after renewals failed, not before the lease could be taken (%v)", gave, duration)
	}
}
