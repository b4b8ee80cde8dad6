package exec

import (
	"context"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// streamBuckets evaluates a range aggregation per series, the stream's
// labels with the entry's structured metadata, from VictoriaLogs' counts
// per time bucket, stream and metadata value; ok is false when the
// buckets would be too fine.
func (ev *evaluator) streamBuckets(ctx context.Context, m *plan.RangeAgg) (value, bool, error) {
	first, last := ev.steps[0], ev.steps[len(ev.steps)-1]
	fields, err := ev.entryFields(ctx, m, first-m.Offset-m.Range+1, last-m.Offset)
	if err != nil {
		return value{}, true, err
	}
	streams := newStreamCache(m.Log.Foreign)
	labelsOf := func(row *backend.Row) (model.Labels, error) {
		stream, err := streams.get(row.Get("_stream"))
		if err != nil {
			return nil, err
		}
		var md model.Labels
		for _, f := range fields {
			// A field that is one of this stream's labels is no metadata.
			if v := row.Get(f); len(v) > 0 && !hasLabel(stream.stored, f) {
				md = append(md, model.Label{Name: f, Value: string(v)})
			}
		}
		if m.Log.Foreign != nil {
			md = foreign.Rename(md, stream.labels)
		}
		out := append(append(model.Labels{}, stream.labels...), md...)
		out.Sort()
		return out, nil
	}
	return ev.bucketed(ctx, m, append([]string{"_stream"}, fields...), labelsOf)
}

// entryFields lists the fields the selected entries carry besides
// VictoriaLogs' own, vloki's empty-line marker and the stream fields: a
// name every row holding it has as a stream field (as many rows hold it as
// a field as hold it in their stream) adds nothing to a grouping by
// _stream but its cost. Both lists are asked for at once.
func (ev *evaluator) entryFields(ctx context.Context, m *plan.RangeAgg, lo, hi int64) ([]string, error) {
	req := backend.MetadataRequest{Query: logsql.Query{Filter: m.Log.Pushdown}.String(), Start: lo, End: hi}
	var streamNames []backend.ValueHits
	var streamErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		streamNames, streamErr = ev.c.Values(ctx, ev.t, backend.StreamFieldNames, req)
	}()
	names, err := ev.c.Values(ctx, ev.t, backend.FieldNames, req)
	<-done
	if err == nil {
		err = streamErr
	}
	if err != nil {
		return nil, err
	}
	inStreams := make(map[string]uint64, len(streamNames))
	for _, n := range streamNames {
		inStreams[n.Value] = n.Hits
	}
	var out []string
	for _, n := range names {
		if isInternalField(n.Value) || backend.IsVlokiField(n.Value) || inStreams[n.Value] == n.Hits {
			continue
		}
		out = append(out, n.Value)
	}
	return out, nil
}
