package metric

import (
	"context"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// streamBuckets evaluates a range aggregation per series, the stream's
// labels with the entry's structured metadata, from VictoriaLogs' counts
// per time bucket, stream and metadata value; ok is false when the
// buckets would be too fine.
func (ev *evaluator) streamBuckets(ctx context.Context, m *plan.RangeAgg) (value, bool, error) {
	fields, err := ev.entryFields(ctx, m)
	if err != nil {
		return value{}, true, err
	}
	streams := logrow.NewStreamCache(m.Log.Foreign)
	labelsOf := func(row *backend.Row) (lokidata.Labels, error) {
		stream, err := streams.Get(row.Get("_stream"))
		if err != nil {
			return nil, err
		}
		var md lokidata.Labels
		for _, f := range fields {
			// A field that is one of this stream's labels is no metadata.
			if v := row.Get(f); len(v) > 0 && !logrow.HasLabel(stream.Stored, f) {
				md = append(md, lokidata.Label{Name: f, Value: string(v)})
			}
		}
		if m.Log.Foreign != nil {
			md = otheragents.Rename(md, stream.Labels)
		}
		out := append(append(lokidata.Labels{}, stream.Labels...), md...)
		out.Sort()
		return out, nil
	}
	return ev.bucketed(ctx, m, append([]string{"_stream"}, fields...), labelsOf)
}

// entryFields lists the fields the selected entries carry besides
// VictoriaLogs' own, vloki's empty-line marker and the stream fields: a
// name every row holding it has as a stream field (as many rows hold it as
// a field as hold it in their stream) adds nothing to a grouping by
// _stream but its cost. The rows are those the buckets are read from (see
// readBatches), with hits added up over the batches.
func (ev *evaluator) entryFields(ctx context.Context, m *plan.RangeAgg) ([]string, error) {
	hits, inStreams := map[string]uint64{}, map[string]uint64{}
	var names []string
	for _, req := range ev.metadataRequests(m) {
		fields, streamFields, err := ev.fieldNames(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, n := range fields {
			if _, seen := hits[n.Value]; !seen {
				names = append(names, n.Value)
			}
			hits[n.Value] += n.Hits
		}
		for _, n := range streamFields {
			inStreams[n.Value] += n.Hits
		}
	}
	var out []string
	for _, n := range names {
		if logrow.IsInternalField(n) || schema.IsVlokiField(n) || inStreams[n] == hits[n] {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// metadataRequests select the rows m's buckets are read from: a request
// per window batch, or the whole span.
func (ev *evaluator) metadataRequests(m *plan.RangeAgg) []backend.MetadataRequest {
	batches := ev.readBatches(m, sparseBucketsRatio)
	if batches == nil {
		sp := ev.span(m)
		return []backend.MetadataRequest{{Query: logsql.Query{Filter: m.Log.Pushdown}.String(), Start: sp.lo, End: sp.hi}}
	}
	out := make([]backend.MetadataRequest, len(batches))
	for i, b := range batches {
		sp := b.span()
		out[i] = backend.MetadataRequest{Query: logsql.Query{Filter: logsql.And{b.filter(), m.Log.Pushdown}}.String(), Start: sp.lo, End: sp.hi}
	}
	return out
}

// fieldNames asks for the field names and the stream field names of the
// request's rows at once.
func (ev *evaluator) fieldNames(ctx context.Context, req backend.MetadataRequest) (names, streamNames []backend.ValueHits, err error) {
	var streamErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		streamNames, streamErr = ev.c.Values(ctx, ev.t, backend.StreamFieldNames, req)
	}()
	names, err = ev.c.Values(ctx, ev.t, backend.FieldNames, req)
	<-done
	if err == nil {
		err = streamErr
	}
	return names, streamNames, err
}
