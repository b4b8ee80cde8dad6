package server

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/acked/patterns"
	"github.com/vloki/vloki/internal/acked/peers"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/write/ingest"
)

// Assembly of the replicas that together are the only writers (package
// peers): what they tell each other and what it changes here.

// newPeers builds this replica's part of the replicas that together are
// the only writers (nil unless configured).
func newPeers(cfg config.Config, log *slog.Logger) *peers.Group {
	if !soleWriter(cfg) || len(cfg.Backend.SoleWriterPeers) == 0 {
		return nil
	}
	return peers.New(peers.Config{Self: cfg.Backend.SoleWriterSelf, Peers: cfg.Backend.SoleWriterPeers,
		Lease: cfg.Backend.SoleWriterLease, Log: log, MaxBodyBytes: 4 * cfg.Limits.MaxPushBodyBytes})
}

func peersHandler(group *peers.Group) http.Handler {
	if group == nil {
		return nil
	}
	return group.Handler()
}

// complete is whether this replica knows every acknowledged push: always
// without peers, while it holds every peer's lease with them.
func complete(group *peers.Group) func() bool {
	if group == nil {
		return nil
	}
	return group.Trusted
}

// startPeers makes the writer tell the peers of every push and applies
// theirs here; after a gap every structure built from pushes starts over.
func startPeers(group *peers.Group, w *ingest.Writer, c *backend.Client, ledger *acks.Ledger, front *frontend.Frontend,
	streams *streamindex.Index, livePatterns *patterns.Live[tenant.ID]) (stop func()) {
	if group == nil {
		return func() {}
	}
	deleted := localEffects(front, streams, livePatterns)
	w.Peers = group
	group.Start(peers.Local{
		Acked: func(_ context.Context, t tenant.ID, pushed []lokidata.Stream) {
			streams.Mark(t, pushed) // no horizon read: the rows are stored
			ledger.PeerAcked(t, pushed)
		},
		Failed:      ledger.Failed,
		Prepare:     streams.Prepare,
		Invalidated: deleted.changed, Deleted: deleted.processed,
		Gap: func(ctx context.Context) error {
			// Rows the others acknowledged before the gap are searchable
			// before anything is read again.
			if err := c.Flush(ctx); err != nil {
				return err
			}
			ledger.Gap()
			streams.ForgetAll()
			if livePatterns != nil {
				livePatterns.ForgetAll()
			}
			front.InvalidateAll()
			return nil
		},
	})
	return group.Close
}

// effects are what a delete request changes in this process and, through
// peers, in the other replicas: answers when it is taken or cancelled,
// and what was learnt from pushes once its rows are deleted.
type effects struct {
	changed, processed func(tenant.ID)
}

// localEffects are the delete requests' effects on this process.
func localEffects(front *frontend.Frontend, streams *streamindex.Index, livePatterns *patterns.Live[tenant.ID]) effects {
	return effects{changed: front.Invalidate, processed: func(t tenant.ID) {
		front.Invalidate(t)
		if streams != nil {
			streams.Forget(t)
		}
		if livePatterns != nil {
			livePatterns.Forget(t)
		}
	}}
}

// deletionEffects are the local effects, told to the peers too.
func deletionEffects(front *frontend.Frontend, streams *streamindex.Index, livePatterns *patterns.Live[tenant.ID], group *peers.Group) effects {
	local := localEffects(front, streams, livePatterns)
	if group == nil {
		return local
	}
	return effects{
		changed:   func(t tenant.ID) { local.changed(t); group.Invalidated(t) },
		processed: func(t tenant.ID) { local.processed(t); group.Deleted(t) },
	}
}
