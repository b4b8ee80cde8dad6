package querier

import (
	"context"
	"sort"

	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// Labels are the stream label names in the request's range, sorted.
func (q *Querier) Labels(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery) ([]string, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) ([]string, error) {
		return q.values(ctx, t, req, backend.StreamFieldNames, "")
	})
}

// LabelValues are the values of one stream label in the request's range,
// sorted.
func (q *Querier) LabelValues(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery, name string) ([]string, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) ([]string, error) {
		return q.values(ctx, t, req, backend.StreamFieldValues, name)
	})
}

// values are the label names (field "") or a label's values in req,
// sorted, from the storage endpoint when memory does not know them.
func (q *Querier) values(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery, endpoint, field string) ([]string, error) {
	f, err := q.foreign(ctx, t, req.Start, req.End)
	if err != nil {
		return nil, err
	}
	filter := selectorFilter(req.Matchers, f)
	if f != nil {
		return q.foreignValues(ctx, t, req, filter, f, field)
	}
	if vals, ok := q.valuesByRule(ctx, t, req, field); ok {
		return vals, nil
	}
	if vals, ok := q.valuesFromMemory(ctx, t, req, field); ok {
		return vals, nil
	}
	vals, err := q.storage.Values(ctx, t, endpoint, backend.MetadataRequest{
		Query: filter, Start: req.Start.UnixNano(), End: req.End.UnixNano(), Field: field,
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if !internalField(v.Value) {
			out = append(out, v.Value)
		}
	}
	sort.Strings(out)
	return out, nil
}

// LabelsFollowPushTimes reports whether label names, values and detected
// labels follow Loki's rule for recent ranges (the stream index's
// LabelRule): their answers then change with time alone.
func (q *Querier) LabelsFollowPushTimes() bool {
	return q.streams != nil && q.streams.RuleOn()
}

// valuesByRule answers as Loki does over the range asked, from the
// stream index's model of Loki's ingester and index units, when the
// rule is on and the index saw every row it needs.
func (q *Querier) valuesByRule(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery, field string) ([]string, bool) {
	if q.streams == nil || internalField(field) {
		return nil, false
	}
	streams, ok, err := q.streams.Recent(ctx, t, askedRange(req))
	ok = ok && err == nil
	if ok {
		q.metrics.ObserveLabelAnswer(true)
	}
	return streamindex.Values(streams, field), ok
}

// askedRange is the label request's selector and range as asked.
func askedRange(req *loghttp.LabelQuery) streamindex.Range {
	return streamindex.Range{Matchers: req.Matchers, Start: req.Asked[0].UnixNano(), End: req.Asked[1].UnixNano()}
}

// valuesFromMemory answers from the stream index when it knows the
// answer exactly; a failed read of the tenant's horizon leaves the
// request to VictoriaLogs.
func (q *Querier) valuesFromMemory(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery, field string) ([]string, bool) {
	if q.streams == nil || internalField(field) {
		return nil, false
	}
	vals, ok, err := q.streams.Answer(ctx, t, streamindex.Request{
		Matchers: req.Matchers, Start: req.Start.UnixNano(), End: req.End.UnixNano(), Name: field,
	})
	ok = ok && err == nil
	q.metrics.ObserveLabelAnswer(ok)
	return vals, ok
}

// internalField hides VictoriaLogs' own fields from label names.
func internalField(name string) bool {
	return name == "_stream" || name == "_stream_id" || name == "_time" || name == "_msg"
}

// selectorFilter turns an optional stream selector into LogsQL.
func selectorFilter(ms []*logql.Matcher, f *otheragents.Config) string {
	if len(ms) == 0 {
		return "*"
	}
	return plan.SelectorQuery(ms, f)
}
