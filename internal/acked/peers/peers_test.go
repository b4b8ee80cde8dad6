package peers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

const testLease = 400 * time.Millisecond

// replica is one group member behind a real HTTP server, with what the
// others told it.
type replica struct {
	g    *Group
	srv  *httptest.Server
	mu   sync.Mutex
	told []lokidata.Stream
	// failed counts failed pushes told, invalidated and deleted delete
	// requests' effects; gaps Gap calls.
	failed, invalidated, deleted, prepared, gaps atomic.Int64
	// refuse makes the server answer deliveries 503 (out of reach).
	refuse atomic.Bool
}

// pair starts two replicas that know each other.
func pair(t *testing.T) (a, b *replica) {
	t.Helper()
	a, b = &replica{}, &replica{}
	for _, r := range []*replica{a, b} {
		r.srv = httptest.NewUnstartedServer(nil)
	}
	urls := []string{"http://" + a.srv.Listener.Addr().String(), "http://" + b.srv.Listener.Addr().String()}
	for i, r := range []*replica{a, b} {
		r.g = New(Config{Self: urls[i], Peers: urls, Lease: testLease, MaxBodyBytes: 1 << 20})
		h := r.g.Handler()
		r.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if r.refuse.Load() && !strings.HasSuffix(req.URL.Path, "/lease") {
				http.Error(w, "unreachable", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, req)
		})
		r.srv.Start()
		r.g.Start(Local{
			Acked: func(_ context.Context, _ tenant.ID, s []lokidata.Stream) {
				r.mu.Lock()
				r.told = append(r.told, s...)
				r.mu.Unlock()
			},
			Failed:      func(tenant.ID) { r.failed.Add(1) },
			Prepare:     func(context.Context, tenant.ID) { r.prepared.Add(1) },
			Invalidated: func(tenant.ID) { r.invalidated.Add(1) },
			Deleted:     func(tenant.ID) { r.deleted.Add(1) },
			Gap:         func(context.Context) error { r.gaps.Add(1); return nil },
		})
		t.Cleanup(func() { r.g.Close(); r.srv.Close() })
	}
	waitFor(t, "both trusted", func() bool { return a.g.Trusted() && b.g.Trusted() })
	return a, b
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * testLease)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *replica) streams() []lokidata.Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]lokidata.Stream(nil), r.told...)
}

var pushed = []lokidata.Stream{{
	Labels: lokidata.Labels{{Name: "app", Value: "api"}},
	Entries: []lokidata.Entry{
		{TimestampNs: 1, Line: "first", StructuredMetadata: lokidata.Labels{{Name: "trace_id", Value: "abc"}}},
		{TimestampNs: 1, Line: "", Seq: 7},
	},
}}

// TestDeliveredBeforeReturn: a push is in the other replica's ledger
// before Acked returns, exactly as pushed, and so are failed pushes and
// delete requests' effects; each met the other once (one gap each, at
// first contact).
func TestDeliveredBeforeReturn(t *testing.T) {
	a, b := pair(t)
	a.g.Writing(tenant.ID{AccountID: 3})
	a.g.Writing(tenant.ID{AccountID: 3})
	if n := b.prepared.Load(); n != 1 {
		t.Fatalf("b prepared the tenant %d times, want once", n)
	}
	a.g.Acked(tenant.ID{AccountID: 3}, pushed)
	if got := b.streams(); !reflect.DeepEqual(got, pushed) {
		t.Fatalf("b was told %+v, want %+v", got, pushed)
	}
	a.g.Failed(tenant.ID{})
	b.g.Invalidated(tenant.ID{})
	b.g.Deleted(tenant.ID{})
	if b.failed.Load() != 1 || len(a.streams()) != 0 || a.invalidated.Load() != 1 || a.deleted.Load() != 1 || b.deleted.Load() != 0 {
		t.Fatalf("b told of %d failed pushes, a of %d streams, %d invalidations, %d deletions", b.failed.Load(), len(a.streams()),
			a.invalidated.Load(), a.deleted.Load())
	}
	if a.gaps.Load() != 1 || b.gaps.Load() != 1 {
		t.Fatalf("gaps a=%d b=%d, want 1 each", a.gaps.Load(), b.gaps.Load())
	}
}

// TestUndeliveredWaitsOutTheLease: when the other replica cannot be told,
// Acked returns only once that replica stopped trusting or started over
// (a gap) — never while it still trusts what it knows without the push.
func TestUndeliveredWaitsOutTheLease(t *testing.T) {
	a, b := pair(t)
	a.g.Writing(tenant.ID{})
	b.refuse.Store(true)
	gaps := b.gaps.Load()
	began := time.Now()
	a.g.Acked(tenant.ID{}, pushed)
	took := time.Since(began)
	if b.g.Trusted() && b.gaps.Load() == gaps {
		t.Fatal("b trusts its knowledge without the push and without a gap")
	}
	if took < testLease/2 || took > 3*testLease {
		t.Fatalf("Acked took %v, want about the lease (%v)", took, testLease)
	}
	// b asks again, meets a new epoch, starts over and trusts again.
	waitFor(t, "b trusts after a gap", func() bool { return b.g.Trusted() && b.gaps.Load() > gaps })
	b.refuse.Store(false)
	a.g.Writing(tenant.ID{})
	if n := b.prepared.Load(); n != 2 {
		t.Fatalf("b, started over, was prepared %d times in all, want twice", n)
	}
	a.g.Acked(tenant.ID{}, pushed)
	if len(b.streams()) != len(pushed) {
		t.Fatalf("b was told %d streams after it came back, want %d", len(b.streams()), len(pushed))
	}
}

// TestTrustLapsesWithoutThePeer: a replica whose peer stops answering
// stops trusting within the lease; a peer that never answered is never
// trusted.
func TestTrustLapsesWithoutThePeer(t *testing.T) {
	a, b := pair(t)
	a.srv.Close()
	time.Sleep(testLease + 50*time.Millisecond)
	if b.g.Trusted() {
		t.Fatal("b still trusts a lease a can no longer renew")
	}
	lone := New(Config{Self: "http://127.0.0.1:1", Peers: []string{"http://127.0.0.1:2"}, Lease: testLease})
	lone.Start(Local{Gap: func(context.Context) error { return nil }})
	defer lone.Close()
	time.Sleep(testLease / 2)
	if lone.Trusted() {
		t.Fatal("trusted without ever hearing from its peer")
	}
}

// TestStrangersAreRefused: only listed replicas are granted leases or
// heard.
func TestStrangersAreRefused(t *testing.T) {
	a, _ := pair(t)
	for _, path := range []string{"/vloki/peers/lease", "/vloki/peers/push", "/vloki/peers/failed"} {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		req.Header.Set(peerHeader, "http://stranger:3100")
		rec := httptest.NewRecorder()
		a.g.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("%s from a stranger: %d", path, rec.Code)
		}
	}
}
