package livetail

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/live/tailhub"
	"github.com/vloki/vloki/internal/live/tailshare"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// ErrBehind ends a tail whose client could not keep up with the pushes.
var ErrBehind = errors.New("live tail fell too far behind the pushes to deliver every entry; reconnect to resume")

// BackendRequest is the VictoriaLogs live tail this tail follows; tails
// asking the same share one (package tailshare). Its stream filters are
// widened (tailFilter); RunBackend checks the selector itself.
func (tl *Tail) BackendRequest() backend.TailRequest {
	return backend.TailRequest{Query: logsql.Query{Filter: tailFilter(tl.q.Pushdown)}.String(), Delay: tl.delay}
}

// RunBackend feeds the rows of a shared VictoriaLogs live tail until ctx
// ends or the shared tail does.
func (tl *Tail) RunBackend(ctx context.Context, sub *tailshare.Sub) error {
	defer sub.Close()
	streams := logrow.NewStreamCache(tl.q.Foreign)
	for {
		select {
		case <-ctx.Done():
			return nil
		case r, ok := <-sub.C():
			if !ok {
				return sub.Err()
			}
			row, err := logrow.Read(r, streams)
			if err != nil {
				return err
			}
			if logql.MatchLabels(tl.q.Selector, row.Labels.Get) {
				tl.add(sourcedRow{row: row, backlog: true})
			}
		}
	}
}

// RunPushed feeds the pushes of a hub subscription: first the replayed
// ones (which may predate the tail), then every new one, until ctx ends
// or the subscriber falls behind.
func (tl *Tail) RunPushed(ctx context.Context, sub *tailhub.Subscription, replay []*tailhub.Batch) error {
	defer sub.Close()
	p := &pushedRows{streams: logrow.NewStreamCache(tl.q.Foreign)}
	for _, b := range replay {
		tl.feedBatch(p, b, true)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Overflowed():
			return ErrBehind
		case b := <-sub.C():
			tl.feedBatch(p, b, false)
		}
	}
}

func (tl *Tail) feedBatch(p *pushedRows, b *tailhub.Batch, backlog bool) {
	for i := range b.Streams {
		p.each(&b.Streams[i], tl.q, func(row logrow.Row) {
			tl.add(sourcedRow{row: row, backlog: backlog})
		})
	}
}

// pushedRows turns pushed entries into the rows VictoriaLogs would return
// for them, so they take the read path's exact rules (stored names, empty
// lines, data-other-agents renaming).
type pushedRows struct {
	streams *logrow.StreamCache
	row     backend.Row
	buf     []byte
}

// each calls fn for every entry of s whose stream the selector matches.
func (p *pushedRows) each(s *lokidata.Stream, q *plan.LogQuery, fn func(logrow.Row)) {
	stream := []byte(vlStream(s))
	for _, e := range s.Entries {
		p.row.Fields = append(p.row.Fields[:0],
			backend.Field{Name: []byte("_stream"), Value: stream},
			backend.Field{Name: []byte("_time"), Value: p.time(e.TimestampNs)},
		)
		if e.Line == "" {
			p.row.Fields = append(p.row.Fields, backend.Field{Name: []byte(schema.EmptyLineField), Value: []byte("1")})
		} else {
			p.row.Fields = append(p.row.Fields, backend.Field{Name: []byte("_msg"), Value: []byte(e.Line)})
		}
		for _, m := range e.StructuredMetadata {
			if m.Value != "" { // VictoriaLogs stores no empty fields
				p.row.Fields = append(p.row.Fields, backend.Field{Name: []byte(m.Name), Value: []byte(m.Value)})
			}
		}
		row, err := logrow.Read(&p.row, p.streams)
		if err == nil && selects(q, &row) {
			fn(row)
		}
	}
}

func (p *pushedRows) time(ns int64) []byte {
	p.buf = time.Unix(0, ns).UTC().AppendFormat(p.buf[:0], time.RFC3339Nano)
	return append([]byte(nil), p.buf...)
}

// vlStream writes labels as VictoriaLogs' _stream value.
func vlStream(s *lokidata.Stream) string {
	b := []byte{'{'}
	for i, l := range s.Labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.Name...)
		b = append(b, '=')
		b = strconv.AppendQuote(b, l.Value)
	}
	return string(append(b, '}'))
}

// selects applies the stream selector to a row's (Loki-named) stream
// labels: an absent label reads as empty, as in Loki.
func selects(q *plan.LogQuery, r *logrow.Row) bool {
	for _, m := range q.Selector {
		v, _ := r.Labels.Get(m.Name)
		if !m.Matches(v) {
			return false
		}
	}
	return true
}
