// Package tail runs Loki's live tails: entries from this process's
// acknowledged pushes (tailhub) and, when configured, VictoriaLogs' own
// live tail (tailshare), after the history of the newest entries since the
// tail's start. The API upgrades the connection and writes the frames.
package tail

import (
	"context"
	"errors"
	"time"

	"github.com/vloki/vloki/internal/acked/readyourwrites"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/live/livetail"
	"github.com/vloki/vloki/internal/live/tailhub"
	"github.com/vloki/vloki/internal/live/tailshare"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Config is where tails read from.
type Config struct {
	// Engine gives the query timeout, the names of data other agents
	// wrote and the lines delete requests hide.
	Engine  *engine.Engine
	Storage *backend.Client
	// Pushes hands acknowledged pushes to tails; nil tails only through
	// VictoriaLogs.
	Pushes *tailhub.Hub
	// FromStorage also tails VictoriaLogs itself, for rows other agents
	// or other vloki replicas write, through StorageTails (one
	// VictoriaLogs tail per distinct request).
	FromStorage  bool
	StorageTails *tailshare.Sharer
	// Visibility, when set, makes the history wait until the tenant's
	// acknowledged pushes are searchable.
	Visibility *readyourwrites.Syncer
	// History answers the history's log query as Loki's frontend answers
	// a log query (frontend.Frontend.Logs).
	History func(context.Context, *engine.LogRun) (*logs.Result, error)
}

// Service opens tails.
type Service struct{ c Config }

// New returns a Service.
func New(c Config) *Service { return &Service{c: c} }

// Tail is one live tail.
type Tail struct {
	s     *Service
	t     tenant.ID
	req   *loghttp.TailQuery
	query *plan.LogQuery
	// categorize is the client's categorize-labels flag.
	categorize bool
	live       *livetail.Tail
	// ended reports the first live source to end.
	ended chan error
}

// Open plans the tail of sel for t (before the connection is upgraded,
// so its errors answer with HTTP statuses); Start runs it.
func (s *Service) Open(ctx context.Context, t tenant.ID, req *loghttp.TailQuery, sel logql.LogSelectorExpr, categorize bool) (*Tail, error) {
	f, err := s.c.Engine.Foreign(ctx, t, req.Start.UnixNano(), time.Now().UnixNano())
	if err != nil {
		return nil, err
	}
	lq, err := plan.CompileLog(sel, f)
	if err != nil {
		return nil, err
	}
	live := livetail.New(lq, categorize, req.Start.UnixNano(), req.DelayFor, s.c.Pushes != nil && s.c.FromStorage)
	return &Tail{s: s, t: t, req: req, query: lq, categorize: categorize, live: live, ended: make(chan error, 2)}, nil
}

// Start starts the live sources, then reads the history: the newest
// limit entries since the tail's start, oldest first. The live sources
// start first, so nothing pushed in between falls through the gap. ctx
// bounds the whole tail.
func (tl *Tail) Start(ctx context.Context) ([]lokidata.Stream, error) {
	tl.startSources(ctx)
	if v := tl.s.c.Visibility; v != nil {
		_ = v.Wait(ctx, tl.t) // the history sees every acknowledged push
	}
	return tl.history(ctx)
}

// Ready is signalled when live entries arrive.
func (tl *Tail) Ready() <-chan struct{} { return tl.live.Ready() }

// Take returns the live entries due at now, in time order, and when the
// next one falls due (zero: none waiting).
func (tl *Tail) Take(now time.Time) ([]lokidata.Stream, time.Time) { return tl.live.Take(now) }

// Ended reports the first live source to end, with the error to close
// the tail with.
func (tl *Tail) Ended() <-chan error { return tl.ended }

// startSources feeds the tail from this process's acknowledged pushes
// and, when configured, VictoriaLogs' own live tail (rows other agents or
// other replicas wrote).
func (tl *Tail) startSources(ctx context.Context) {
	c := tl.s.c
	if c.Pushes != nil {
		sub, replay := c.Pushes.Subscribe(tl.t)
		go func() { tl.ended <- endError(ctx, tl.live.RunPushed(ctx, sub, replay)) }()
	}
	if c.Pushes == nil || c.FromStorage {
		sub := c.StorageTails.Subscribe(tl.t, tl.live.BackendRequest())
		go func() { tl.ended <- endError(ctx, tl.live.RunBackend(ctx, sub)) }()
	}
}

// history reads the newest limit entries since the tail's start under
// the query timeout, as Loki's querier reads a tail's history (its error
// goes to the close frame as it is, as there), and hands them to the live
// tail, which then sends no entry twice.
func (tl *Tail) history(ctx context.Context) ([]lokidata.Stream, error) {
	ctx, cancel := tl.s.c.Engine.WithQueryTimeout(ctx, tl.t)
	defer cancel()
	now := time.Now()
	// Delete requests hide lines from the history only, as in Loki.
	query := *tl.query
	query.Hide(tl.s.c.Engine.Hidden(tl.t))
	hist, err := tl.s.c.History(ctx, tl.s.c.Engine.Planned(tl.t, logs.Request{
		Query: &query, Start: tl.req.Start.UnixNano(), End: now.UnixNano(), Limit: int(tl.req.Limit),
		Direction: logs.Backward, Categorize: tl.categorize, KeepParsed: true,
	}))
	if err != nil {
		return nil, err
	}
	entries := livetail.Entries(hist.Streams)
	tl.live.SetHistory(entries, len(entries) >= int(tl.req.Limit), now)
	return entries, nil
}

// errSourceEnded closes a tail whose VictoriaLogs live tail stopped
// (VictoriaLogs restarted, say): the client reconnects.
var errSourceEnded = errors.New("VictoriaLogs ended the live tail; reconnect to resume")

// endError is why a live source ended: its error, else the tail's end,
// else VictoriaLogs ending its tail.
func endError(ctx context.Context, err error) error {
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = errSourceEnded
	}
	return err
}
