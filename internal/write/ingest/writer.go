package ingest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/write/dedup"
	"github.com/vloki/vloki/internal/write/push"
)

// Writer validates pushes like Loki and writes them to VictoriaLogs.
type Writer struct {
	Backend *backend.Client
	// Limits are each tenant's ingestion limits.
	Limits *limits.Overrides
	// Rate is the per-tenant ingestion rate limit (nil: none).
	Rate *RateLimiter
	// Dedup, when set (vloki the only writer), drops the entries their
	// streams already hold; repeats within a push are dropped always.
	Dedup *dedup.Deduper
	// Newest, when set, tells which entries need an arrival number
	// (schema.SeqField) because their stream may already hold their
	// timestamp.
	Newest NewestFunc
	// Acks (required) is the ledger of acknowledged pushes, told of every
	// push about to be written, acknowledged by VictoriaLogs, or failed
	// once sent (VictoriaLogs may hold part of it): the read-your-writes
	// wait, the frontend, the live tails and the stream index learn of
	// pushes there.
	Acks *acks.Ledger
	// Peers, when set, are the other vloki replicas that with this one
	// are the only writers (package peers): told of every push once the
	// ledger has it, before the client is answered.
	Peers Peers

	// closing is held for reading by every write; Drain takes it whole.
	closing sync.RWMutex
	closed  bool
}

// Peers are told of the pushes this replica wrote.
type Peers interface {
	Writing(tenant.ID)
	Acked(tenant.ID, []lokidata.Stream)
	Failed(tenant.ID)
}

// ErrClosed answers pushes that arrive once the writer was drained.
var ErrClosed = errors.New("vloki is shutting down: push refused, try again")

// Drain waits for the writes in progress to finish, the ledger told of
// them, and refuses the writes that follow.
func (w *Writer) Drain() {
	w.closing.Lock()
	w.closed = true
	w.closing.Unlock()
}

// Write validates and enriches req, then returns only once VictoriaLogs
// has accepted every row. On a validation error nothing is written.
func (w *Writer) Write(ctx context.Context, t tenant.ID, req *push.Request, now time.Time) error {
	w.closing.RLock()
	defer w.closing.RUnlock()
	if w.closed {
		return &push.Error{Status: 503, Msg: ErrClosed.Error()}
	}
	if err := push.Validate(req, w.Limits.For(t), now); err != nil {
		return err
	}
	streams := make([]Stream, 0, len(req.Streams))
	for _, s := range req.Streams {
		if len(s.Entries) > 0 {
			// The labels are final: their string is built once for every step after.
			streams = append(streams, Stream{Labels: s.Labels, Entries: s.Entries, Key: s.Labels.String()})
		}
	}
	if len(streams) == 0 {
		return nil
	}
	// Loki checks the rate after validation: a bad push is a 400 first.
	if err := w.Rate.Admit(ctx, t, streams, now); err != nil {
		return err
	}
	renameClashingMetadata(streams)
	// Loki's ingesters drop repeats after its distributor counted the rate.
	streams = dedup.Within(streams)
	w.Acks.Writing(ctx, t, streams)
	if w.Peers != nil {
		w.Peers.Writing(t)
	}
	if w.Dedup != nil {
		kept, done, err := w.Dedup.Begin(ctx, t, streams)
		if err != nil {
			return err
		}
		defer done() // once acknowledged and in the ledger: the next push of these streams sees them
		if streams = kept; len(streams) == 0 {
			return nil // every entry was there already: Loki accepts the push
		}
	}
	sequence(t, streams, w.Newest, now)
	body, err := Encode(streams)
	if err != nil {
		return &push.Error{Status: 400, Msg: err.Error()}
	}
	if err := w.Backend.PushLoki(ctx, t, body); err != nil {
		w.Acks.Failed(t)
		if w.Peers != nil {
			w.Peers.Failed(t)
		}
		return err
	}
	w.Acks.Acked(t, streams)
	if w.Peers != nil {
		w.Peers.Acked(t, streams)
	}
	return nil
}
