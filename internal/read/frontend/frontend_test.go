package frontend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// serve asks f for the answer to a request decoded as the edge decodes
// it (loghttp): route's parameters in rawQuery, for tenant tn.
func serve(f *Frontend, h http.HandlerFunc, route string, tn uint32, rawQuery string, hdr ...string) (int, string) {
	r := httptest.NewRequest("GET", "/loki/api/v1/"+route+"?"+rawQuery, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	form, err := loghttp.ReadForm(r)
	if err != nil {
		panic(err)
	}
	headers := loghttp.ReadHeaders(r.Header)
	req := &Request{Route: route, Path: r.URL.Path, Tenant: tenant.ID{AccountID: tn}}
	switch route {
	case "query_range":
		q, err := loghttp.ParseRangeQuery(form, f.now())
		if err != nil {
			panic(err)
		}
		q.Identify(form, headers)
		req.Identity = q.Identity
	default: // label-index routes
		q, err := loghttp.ParseLabelQuery(form, f.now())
		if err != nil {
			panic(err)
		}
		q.Identify(form, headers, f.now(), true)
		req.Identity = q.Identity
	}
	w := httptest.NewRecorder()
	f.Serve(w, r, req, func(w http.ResponseWriter, ctx context.Context, _ ReadState) {
		h(w, r.WithContext(context.WithValue(ctx, tenantCtxKey{}, req.Tenant)))
	})
	return w.Code, w.Body.String()
}

type tenantCtxKey struct{}

func tenantOf(ctx context.Context) tenant.ID {
	t, _ := ctx.Value(tenantCtxKey{}).(tenant.ID)
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
	return serve(f, h, "query_range", tn, "query=%7Ba%3D%22b%22%7D&end="+strconv.FormatInt(end.UnixNano(), 10), hdr...)
}

func newTest(coalesce bool) *Frontend {
	f := New(Config{MaxCacheFreshness: 10 * time.Minute, Cache: NewMemory(1 << 20), Coalesce: coalesce})
	f.now = func() time.Time { return now }
	f.admitFirst = true // admission: TestAnswersAreCachedTheSecondTimeAsked
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
	f.Acked(acks.Push{Tenant: tenant.ID{AccountID: 1}, Oldest: now.UnixNano()})
	if _, body := ask(f, h.serve, 1, old); body != "tenant 1 run 1" {
		t.Fatalf("a push of new entries invalidated: %q", body)
	}
	f.Acked(acks.Push{Tenant: tenant.ID{AccountID: 1}, Oldest: now.Add(-2 * time.Hour).UnixNano()})
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

// TestCoalescingNeverJoinsAnExecutionOlderThanAPush: a request does not
// share an execution that started before its tenant's last acknowledged
// push (the ledger's LastAck); it runs its own.
func TestCoalescingNeverJoinsAnExecutionOlderThanAPush(t *testing.T) {
	f, h := newTest(true), &countingHandler{release: make(chan struct{})}
	f.cfg.Cache = nil
	ledger := acks.New(acks.Config{Now: func() time.Time { return now.Add(time.Second) }})
	f.cfg.LastAck = ledger.LastAck
	first := make(chan string)
	go func() { _, body := ask(f, h.serve, 1, now); first <- body }()
	for h.runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ledger.Acked(tenant.ID{AccountID: 1}, nil) // after the execution started
	second := make(chan string)
	go func() { _, body := ask(f, h.serve, 1, now); second <- body }()
	time.Sleep(20 * time.Millisecond) // the second request meets the first execution
	close(h.release)
	if body := <-first; body != "tenant 1 run 1" {
		t.Fatalf("first: %q", body)
	}
	if body := <-second; body != "tenant 1 run 2" {
		t.Fatalf("the request after a push shared an execution older than it: %q", body)
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
			_, body := serve(f, h.serve, route, 1, "end="+strconv.FormatInt(end.UnixNano(), 10))
			return body
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
	f.cfg.AckSeq = func(t tenant.ID) (uint64, bool) { return seq[t.AccountID].Load(), true }
	ask := func(tn uint32, start time.Time) string {
		_, body := serve(f, h.serve, "labels", tn, "start="+strconv.FormatInt(start.UnixNano(), 10)+"&end="+strconv.FormatInt(now.UnixNano(), 10))
		return body
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

// TestLabelsAreKeyedByTheirDays: a label request's answer holds the whole
// UTC days of its range, so other ranges over the same days share it;
// other days and days that move with now (no start, an end to come) do
// not. (A range over max_query_length is answered at the edge.)
func TestLabelsAreKeyedByTheirDays(t *testing.T) {
	f, h := newTest(false), &countingHandler{}
	ask := func(params string) string {
		_, body := serve(f, h.serve, "labels", 1, params)
		return body
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
	// Until the next push (sole writer): the same, over today.
	f.cfg.AckSeq = func(tenant.ID) (uint64, bool) { return 7, true }
	ask("start=" + at(-time.Hour) + "&end=" + at(0))
	if body := ask("start=" + at(-30*time.Minute) + "&end=" + at(time.Minute)); body != "tenant 1 run 3" {
		t.Fatalf("today, another range: %q", body)
	}
	ask("end=" + at(time.Hour))
	if body := ask("end=" + at(time.Hour)); body != "tenant 1 run 5" {
		t.Fatalf("a start that follows now came from the cache: %q", body)
	}
}

// TestNothingCachedWhilePushNumbersAreUnknown: a replica that may have
// missed pushes of another (package peers) serves no answer from its
// cache, not even a frozen one, and stores none.
func TestNothingCachedWhilePushNumbersAreUnknown(t *testing.T) {
	f := New(Config{MaxCacheFreshness: 10 * time.Minute, Cache: NewMemory(1 << 20)})
	f.now, f.admitFirst = func() time.Time { return now }, true
	known := true
	f.cfg.AckSeq = func(tenant.ID) (uint64, bool) { return 7, known }
	var runs atomic.Int32
	h := func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "run %d", runs.Add(1)) }
	old := now.Add(-time.Hour)
	ask(f, h, 1, old)
	if _, body := ask(f, h, 1, old); body != "run 1" {
		t.Fatalf("known: %q, want the cached run 1", body)
	}
	known = false
	for _, want := range []string{"run 2", "run 3"} {
		if _, body := ask(f, h, 1, old); body != want {
			t.Fatalf("unknown: %q, want %q", body, want)
		}
	}
}

// TestInvalidateAll: after InvalidateAll no answer cached before is
// served, for a tenant known to the cache or not; with no results cache
// the frontend's own generations move too.
func TestInvalidateAll(t *testing.T) {
	for _, cache := range []Cache{NewMemory(1 << 20), nil} {
		f := New(Config{MaxCacheFreshness: 10 * time.Minute, Cache: cache})
		f.now, f.admitFirst = func() time.Time { return now }, true
		before, _ := f.Generation(context.Background(), tenant.ID{AccountID: 9})
		f.InvalidateAll()
		if after, _ := f.Generation(context.Background(), tenant.ID{AccountID: 9}); after == before {
			t.Fatalf("cache %T: an unseen tenant kept generation %d", cache, after)
		}
		if cache == nil {
			continue
		}
		var runs atomic.Int32
		h := func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "run %d", runs.Add(1)) }
		old := now.Add(-time.Hour)
		ask(f, h, 1, old)
		f.InvalidateAll()
		if _, body := ask(f, h, 1, old); body != "run 2" {
			t.Fatalf("after InvalidateAll: %q, want run 2", body)
		}
	}
}

// TestAnswersAreCachedTheSecondTimeAsked: a window asked once (as windows
// that move with each refresh are) is not stored; asked again, it is:
// with answers gzipped for clients (Loki's compress_responses) as its
// gzipped bytes alone, else as written; weighed at what it holds.
func TestAnswersAreCachedTheSecondTimeAsked(t *testing.T) {
	long := strings.Repeat("a line of a long answer, ", 4000) // 100 kB, gzips well
	for _, gzip := range []bool{true, false} {
		mem := NewMemory(1 << 20)
		f := New(Config{MaxCacheFreshness: 10 * time.Minute, Cache: mem, Gzip: gzip})
		f.now = func() time.Time { return now }
		var runs atomic.Int32
		h := func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, "run %d %s", runs.Add(1), long)
		}
		old := now.Add(-time.Hour)
		for i, want := range []string{"run 1", "run 2", "run 2", "run 2"} {
			if _, body := ask(f, h, 1, old); !strings.HasPrefix(body, want+" ") || !strings.HasSuffix(body, long) {
				t.Fatalf("gzip %v, ask %d: %.20q…, want %q", gzip, i+1, body, want)
			}
		}
		mem.c.CleanUp() // the weights are applied in the cache's maintenance
		held, entries, _ := mem.Usage()
		if gzip && (held == 0 || held > uint64(len(long))/20) || !gzip && (held < uint64(len(long)) || held > uint64(len(long))+1024) || entries != 1 {
			t.Fatalf("gzip %v: held %d bytes in %d entries for a %d-byte answer", gzip, held, entries, len(long))
		}
	}
}
