package frontend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

type tenantCtxKey struct{}

func tenantOf(ctx context.Context) backend.Tenant {
	t, _ := ctx.Value(tenantCtxKey{}).(backend.Tenant)
	return t
}

// countingHandler answers with its tenant and how often it ran.
type countingHandler struct {
	runs    atomic.Int32
	release chan struct{}
	status  int
}

func (h *countingHandler) serve(w http.ResponseWriter, r *http.Request) {
	n := h.runs.Add(1)
	if h.release != nil {
		<-h.release
	}
	if h.status != 0 {
		w.WriteHeader(h.status)
	}
	fmt.Fprintf(w, "tenant %d run %d", tenantOf(r.Context()).AccountID, n)
}

var now = time.Unix(1_800_000_000, 0)

func ask(f *Frontend, h http.HandlerFunc, tn uint32, end time.Time, hdr ...string) (int, string) {
	r := httptest.NewRequest("GET", "/loki/api/v1/query_range?query=%7Ba%3D%22b%22%7D&end="+strconv.FormatInt(end.UnixNano(), 10), nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	r = r.WithContext(context.WithValue(r.Context(), tenantCtxKey{}, backend.Tenant{AccountID: tn}))
	w := httptest.NewRecorder()
	f.Wrap("query_range", tenantOf, h)(w, r)
	return w.Code, w.Body.String()
}

func newTest(coalesce bool) *Frontend {
	f := New(Config{MaxCacheFreshness: 10 * time.Minute, Cache: NewMemory(1 << 20), Coalesce: coalesce})
	f.now = func() time.Time { return now }
	return f
}

func TestCachesOnlyFrozenAnswersPerTenant(t *testing.T) {
	f, h := newTest(false), &countingHandler{}
	old, recent := now.Add(-time.Hour), now.Add(-time.Minute)
	for range 3 {
		if _, body := ask(f, h.serve, 1, old); body != "tenant 1 run 1" {
			t.Fatalf("old range: %q", body)
		}
	}
	if _, body := ask(f, h.serve, 2, old); body != "tenant 2 run 2" {
		t.Fatalf("another tenant got %q", body)
	}
	ask(f, h.serve, 1, recent)
	if _, body := ask(f, h.serve, 1, recent); body != "tenant 1 run 4" {
		t.Fatalf("a range within the freshness window came from the cache: %q", body)
	}
	if _, body := ask(f, h.serve, 1, old, "Cache-Control", "no-cache"); body != "tenant 1 run 5" {
		t.Fatalf("no-cache: %q", body)
	}
	if _, body := ask(f, h.serve, 1, old, "X-Loki-Response-Encoding-Flags", "categorize-labels"); body != "tenant 1 run 6" {
		t.Fatalf("other encoding flags shared an answer: %q", body)
	}
}

func TestErrorsAreNotCached(t *testing.T) {
	f, h := newTest(false), &countingHandler{status: 500}
	ask(f, h.serve, 1, now.Add(-time.Hour))
	if code, body := ask(f, h.serve, 1, now.Add(-time.Hour)); code != 500 || body != "tenant 1 run 2" {
		t.Fatalf("%d %q", code, body)
	}
}

func TestOldPushInvalidatesTheTenant(t *testing.T) {
	f, h := newTest(false), &countingHandler{}
	old := now.Add(-time.Hour)
	ask(f, h.serve, 1, old)
	ask(f, h.serve, 2, old)
	fresh := []model.Stream{{Entries: []model.Entry{{TimestampNs: now.UnixNano()}}}}
	f.Acked(backend.Tenant{AccountID: 1}, fresh)
	if _, body := ask(f, h.serve, 1, old); body != "tenant 1 run 1" {
		t.Fatalf("a push of new entries invalidated: %q", body)
	}
	late := []model.Stream{{Entries: []model.Entry{{TimestampNs: now.Add(-2 * time.Hour).UnixNano()}}}}
	f.Acked(backend.Tenant{AccountID: 1}, late)
	if _, body := ask(f, h.serve, 1, old); body != "tenant 1 run 3" {
		t.Fatalf("a late push did not invalidate: %q", body)
	}
	if _, body := ask(f, h.serve, 2, old); body != "tenant 2 run 2" {
		t.Fatalf("another tenant's cache was invalidated: %q", body)
	}
}

func TestCoalescing(t *testing.T) {
	f, h := newTest(true), &countingHandler{release: make(chan struct{})}
	f.cfg.Cache = nil
	var wg sync.WaitGroup
	bodies := make([]string, 5)
	for i := range bodies {
		wg.Add(1)
		go func() { defer wg.Done(); _, bodies[i] = ask(f, h.serve, 1, now) }()
	}
	for h.runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the others join
	close(h.release)
	wg.Wait()
	if h.runs.Load() != 1 {
		t.Fatalf("%d executions for 5 identical requests", h.runs.Load())
	}
	for _, b := range bodies {
		if b != "tenant 1 run 1" {
			t.Fatalf("bodies %q", bodies)
		}
	}
}

// TestLabelsAreFrozenAfterTheirDay: label names, values and detected
// labels hold the streams of their end's whole UTC day (Loki's index
// files), so they are cached only once that day is older than the
// freshness window.
func TestLabelsAreFrozenAfterTheirDay(t *testing.T) {
	day := now.UTC().Truncate(24 * time.Hour)
	for _, route := range []string{"labels", "label_values", "detected_labels"} {
		f, h := newTest(false), &countingHandler{}
		ask := func(end time.Time) string {
			r := httptest.NewRequest("GET", "/loki/api/v1/x?end="+strconv.FormatInt(end.UnixNano(), 10), nil)
			r = r.WithContext(context.WithValue(r.Context(), tenantCtxKey{}, backend.Tenant{AccountID: 1}))
			w := httptest.NewRecorder()
			f.Wrap(route, tenantOf, h.serve)(w, r)
			return w.Body.String()
		}
		today := day.Add(time.Second) // hours before now, within its day
		ask(today)
		if body := ask(today); body != "tenant 1 run 2" {
			t.Fatalf("%s: an answer over a day still being written came from the cache: %q", route, body)
		}
		yesterday := day.Add(-time.Hour)
		ask(yesterday)
		if body := ask(yesterday); body != "tenant 1 run 3" {
			t.Fatalf("%s: yesterday's answer was not cached: %q", route, body)
		}
	}
}

// TestRecentLabelsLastUntilTheTenantsNextPush: with vloki the sole writer
// (AckSeq), label-index answers over today are cached until the tenant's
// next acknowledged push, unless the storage's retention could delete
// rows of their days meanwhile.
func TestRecentLabelsLastUntilTheTenantsNextPush(t *testing.T) {
	var seq [3]atomic.Uint64
	f, h := newTest(false), &countingHandler{}
	f.cfg.AckSeq = func(t backend.Tenant) uint64 { return seq[t.AccountID].Load() }
	ask := func(tn uint32, start time.Time) string {
		q := "?start=" + strconv.FormatInt(start.UnixNano(), 10) + "&end=" + strconv.FormatInt(now.UnixNano(), 10)
		r := httptest.NewRequest("GET", "/loki/api/v1/labels"+q, nil)
		r = r.WithContext(context.WithValue(r.Context(), tenantCtxKey{}, backend.Tenant{AccountID: tn}))
		w := httptest.NewRecorder()
		f.Wrap("labels", tenantOf, h.serve)(w, r)
		return w.Body.String()
	}
	hourAgo := now.Add(-time.Hour)
	ask(1, hourAgo)
	ask(2, hourAgo)
	if body := ask(1, hourAgo); body != "tenant 1 run 1" {
		t.Fatalf("no push since, yet computed again: %q", body)
	}
	seq[1].Add(1)
	if body := ask(1, hourAgo); body != "tenant 1 run 3" {
		t.Fatalf("a push did not end the cached answer: %q", body)
	}
	if body := ask(2, hourAgo); body != "tenant 2 run 2" {
		t.Fatalf("another tenant's push ended the answer: %q", body)
	}

	f.cfg.Retention = 48 * time.Hour
	threeDaysAgo := now.Add(-72 * time.Hour)
	ask(1, threeDaysAgo)
	if body := ask(1, threeDaysAgo); body != "tenant 1 run 5" {
		t.Fatalf("days the retention may delete rows of came from the cache: %q", body)
	}
	if body := ask(1, hourAgo); body != "tenant 1 run 3" {
		t.Fatalf("today within a 48h retention was not cached: %q", body)
	}
	f.cfg.AckSeq = nil // another writer may add rows at any time
	ask(1, hourAgo)
	if body := ask(1, hourAgo); body != "tenant 1 run 7" {
		t.Fatalf("cached without knowing every push: %q", body)
	}
}

func TestNegativeOffset(t *testing.T) {
	for q, want := range map[string]bool{
		`sum(rate({a="b"}[5m] offset -1h))`:           true,
		`rate({a="b"}[5m] OFFSET	-5m)`:                true,
		`rate({a="b"}[5m] Offset-5m)`:                 true,
		`rate({a="b"}[5m] offset 1h) - 1`:             false,
		`{a="b-c"} |= "offset"`:                       false,
		`{a="b"} |= "offset" | line_format "-{{.a}}"`: false,
		"rate({a=\"b\"}[5m] offset \n -1h)":           true,
		``:                                            false,
	} {
		if got := negativeOffset(q); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

// TestLabelsAreKeyedByTheirDays: a label request's answer holds the whole
// UTC days of its range, so other ranges over the same days share it;
// other days, a range over max_query_length, and days that move with now
// (no start, an end to come) do not.
func TestLabelsAreKeyedByTheirDays(t *testing.T) {
	f, h := newTest(false), &countingHandler{}
	f.cfg.MaxQueryLength = func(backend.Tenant) time.Duration { return 48 * time.Hour }
	ask := func(params string) string {
		r := httptest.NewRequest("GET", "/loki/api/v1/labels?"+params, nil)
		r = r.WithContext(context.WithValue(r.Context(), tenantCtxKey{}, backend.Tenant{AccountID: 1}))
		w := httptest.NewRecorder()
		f.Wrap("labels", tenantOf, h.serve)(w, r)
		return w.Body.String()
	}
	at := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).UnixNano(), 10) }
	day := now.UTC().Truncate(24 * time.Hour)
	yesterday := func(h time.Duration) string { return strconv.FormatInt(day.Add(-24*time.Hour+h).UnixNano(), 10) }
	ask("start=" + yesterday(time.Hour) + "&end=" + yesterday(2*time.Hour))
	if body := ask("start=" + yesterday(5*time.Hour) + "&end=" + yesterday(6*time.Hour)); body != "tenant 1 run 1" {
		t.Fatalf("another hour of the same day was computed again: %q", body)
	}
	if body := ask("since=1h&end=" + yesterday(3*time.Hour)); body != "tenant 1 run 1" {
		t.Fatalf("since instead of start, same day: %q", body)
	}
	if body := ask("start=" + yesterday(-time.Hour) + "&end=" + yesterday(2*time.Hour)); body != "tenant 1 run 2" {
		t.Fatalf("a range reaching the day before shared the answer: %q", body)
	}
	// The day before and yesterday: two hours, then 47 hours (over 30).
	f.cfg.MaxQueryLength = func(backend.Tenant) time.Duration { return 30 * time.Hour }
	ask("start=" + yesterday(-time.Hour) + "&end=" + yesterday(time.Hour))
	if body := ask("start=" + yesterday(-24*time.Hour) + "&end=" + yesterday(23*time.Hour)); body != "tenant 1 run 3" {
		t.Fatalf("a range over max_query_length was answered for its days: %q", body)
	}
	// Until the next push (sole writer): the same, over today.
	f.cfg.AckSeq = func(backend.Tenant) uint64 { return 7 }
	ask("start=" + at(-time.Hour) + "&end=" + at(0))
	if body := ask("start=" + at(-30*time.Minute) + "&end=" + at(time.Minute)); body != "tenant 1 run 4" {
		t.Fatalf("today, another range: %q", body)
	}
	ask("end=" + at(time.Hour))
	if body := ask("end=" + at(time.Hour)); body != "tenant 1 run 6" {
		t.Fatalf("a start that follows now came from the cache: %q", body)
	}
}

// TestTooLongLabelsDoNotJoinAnother: a label request over max_query_length
// in flight with a valid one over the same days gets its own answer (the
// handler's error), not the other's.
func TestTooLongLabelsDoNotJoinAnother(t *testing.T) {
	f, h := newTest(true), &countingHandler{release: make(chan struct{})}
	f.cfg.MaxQueryLength = func(backend.Tenant) time.Duration { return 30 * time.Hour }
	day := now.UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour)
	ask := func(from, to time.Duration) string {
		q := "start=" + strconv.FormatInt(day.Add(from).UnixNano(), 10) + "&end=" + strconv.FormatInt(day.Add(to).UnixNano(), 10)
		r := httptest.NewRequest("GET", "/loki/api/v1/labels?"+q, nil)
		r = r.WithContext(context.WithValue(r.Context(), tenantCtxKey{}, backend.Tenant{AccountID: 1}))
		w := httptest.NewRecorder()
		f.Wrap("labels", tenantOf, h.serve)(w, r)
		return w.Body.String()
	}
	var wg sync.WaitGroup
	var valid, long string
	wg.Go(func() { valid = ask(23*time.Hour, 25*time.Hour) })
	for h.runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() { long = ask(0, 47*time.Hour) })
	time.Sleep(20 * time.Millisecond) // it would join now
	close(h.release)
	wg.Wait()
	if h.runs.Load() != 2 || valid == long {
		t.Fatalf("%d executions: valid %q, too long %q", h.runs.Load(), valid, long)
	}
}
