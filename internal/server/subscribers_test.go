package server

import (
	"context"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/acked/patterns"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/live/tailhub"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
)

// invalidations is a results cache that checks, when a push moves a
// tenant's generation on, what already holds the push.
type invalidations struct {
	*frontend.Memory
	check func()
}

func (c invalidations) Invalidate(ctx context.Context, tenant string) {
	c.check()
	c.Memory.Invalidate(ctx, tenant)
}

// TestPushSubscribersOrder: a push of old entries moves the tenant's
// cache generation on only once the live tails, the stream index and the
// live patterns hold it, and after the read-your-writes wait covers it;
// its number is given after all of them.
func TestPushSubscribersOrder(t *testing.T) {
	ledger, tn := acks.New(acks.Config{Keep: acks.Keep}), tenant.ID{AccountID: 5}
	tails := tailhub.New()
	sub, _ := tails.Subscribe(tn)
	defer sub.Close()
	streams := streamindex.New(streamindex.Config{MaxStreams: 10,
		Horizon: func(context.Context, tenant.ID) (int64, bool, error) { return 0, true, nil }})
	live := patterns.NewLive[tenant.ID](10, nil)
	checked := 0
	cache := invalidations{Memory: frontend.NewMemory(1 << 20), check: func() {
		checked++
		if len(sub.C()) != 1 || streams.Streams() != 1 || live.Streams() != 1 {
			t.Errorf("generation moved on before the push was everywhere: tail %d, index %d, patterns %d",
				len(sub.C()), streams.Streams(), live.Streams())
		}
		if ledger.LastAck(tn).Order != 1 || ledger.Seq(tn) != 0 {
			t.Errorf("acknowledgement %+v, number %d", ledger.LastAck(tn), ledger.Seq(tn))
		}
	}}
	front := frontend.New(frontend.Config{MaxCacheFreshness: 10 * time.Minute, Cache: cache})
	ledger.Subscribe(pushSubscribers(tails, front, metrics.New(), streams, live)...)
	old := time.Now().Add(-time.Hour).UnixNano()
	ledger.Acked(tn, []lokidata.Stream{{Labels: lokidata.Labels{{Name: "app", Value: "a"}},
		Entries: []lokidata.Entry{{TimestampNs: old, Line: "late line"}}}})
	if checked != 1 || ledger.Seq(tn) != 1 {
		t.Fatalf("%d invalidations, number %d", checked, ledger.Seq(tn))
	}
}
