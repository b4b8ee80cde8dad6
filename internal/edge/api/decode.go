package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
)

// edge is an HTTP request at the edge, where it is decoded once: its
// parameters, headers and tenant. The decoders below turn it into the
// typed request every later layer reads, with Loki's checks in Loki's
// order, and its identity (loghttp.Identity) for the frontend.
type edge struct {
	r       *http.Request
	form    *loghttp.Form
	headers loghttp.Headers
	tenant  tenant.ID
	now     time.Time
}

// decodeRange reads a query_range request: parameters, the query parsed,
// the entries limit, max_query_length.
func (s *Server) decodeRange(e edge) (*loghttp.RangeQuery, loghttp.Identity, error) {
	q, err := loghttp.ParseRangeQuery(e.form, e.now)
	if err == nil {
		q.Expr, err = logql.ParseExpr(q.Query)
		if sel, ok := unbuiltLogQuery(err, e.headers.Flags); ok {
			q.Expr, q.Unbuilt, err = sel, true, nil
		}
	}
	if err == nil {
		err = loghttp.CheckEntriesLimit(q.Limit, s.limitsOf(e.tenant).MaxEntriesLimitPerQuery)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(e.tenant))
	}
	if err != nil {
		return nil, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	// max_query_length applies to each sub-query from its start less the
	// longest range to its end: an end later within the last step could
	// fail it where this one passes, so such a request is named by its end.
	if limit := s.maxQueryLength(e.tenant); limit > 0 && q.End.Sub(q.Start)+logql.LongestReach(q.Expr)+q.Step >= limit {
		q.Identity.StepsKey = ""
	}
	return q, q.Identity, nil
}

// unbuiltLogQuery is the selector of a log query whose stage failed to
// build, when categorize-labels is asked. Loki builds a log query's
// stages in its ingesters, and the iterator that categorizes labels drops
// the error of the iterator it wraps: Loki answers 200 with no streams,
// after every check its frontend makes.
func unbuiltLogQuery(err error, flags loghttp.Flags) (logql.Expr, bool) {
	e, unbuilt := logql.StageUnbuilt(err)
	sel, isLog := e.(logql.LogSelectorExpr)
	if !unbuilt || !isLog || !flags.Categorize() {
		return nil, false
	}
	return &logql.MatchersExpr{Mts: sel.Matchers()}, true
}

// decodeInstant reads a query request. Loki refuses a log query as an
// instant query before it builds its stages, whose errors (templates,
// ip()) come later: such a query is read leniently, for the engine's
// refusal.
func (s *Server) decodeInstant(e edge) (*loghttp.InstantQuery, loghttp.Identity, error) {
	q, err := loghttp.ParseInstantQuery(e.form, e.now)
	if err != nil {
		return nil, loghttp.Identity{}, err
	}
	if q.Expr, err = s.parseQuery(e.tenant, q.Query, q.Limit); err != nil {
		if lenient, lerr := logql.ParseForFormat(q.Query); lerr == nil {
			if _, ok := lenient.(logql.LogSelectorExpr); ok {
				q.Expr, err = lenient, nil
			}
		}
	}
	if err != nil {
		return nil, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	return q, q.Identity, nil
}

// decodeLabels reads a labels-shaped request (label names or values,
// detected labels): parameters, max_query_length, the range's order, the
// selector; the label is the path's {name} when named. Its range becomes
// the whole UTC days of the one asked, as Loki's index answers
// (LabelIndexSpan), the range asked kept for the stream index's rule of
// recent ranges, whose answers are never cached.
func (s *Server) decodeLabels(named bool) func(edge) (*loghttp.LabelQuery, loghttp.Identity, error) {
	return func(e edge) (*loghttp.LabelQuery, loghttp.Identity, error) {
		q, err := loghttp.ParseLabelQuery(e.form, e.now)
		if err == nil {
			err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(e.tenant))
		}
		if err == nil {
			err = loghttp.CheckRangeOrder(q.Start, q.End)
		}
		var ms []*logql.Matcher
		if err == nil && q.Query != "" {
			ms, err = logql.ParseMatchers(q.Query, true)
		}
		if err != nil {
			return nil, loghttp.Identity{}, err
		}
		q.Matchers = ms
		if named {
			q.Name = e.r.PathValue("name")
		}
		q.Identify(e.form, e.headers, e.now, s.d.Querier == nil || !s.d.Querier.LabelsFollowPushTimes())
		q.Asked = [2]time.Time{q.Start, q.End}
		q.Start, q.End = loghttp.LabelIndexSpan(q.Start, q.End)
		return q, q.Identity, nil
	}
}

// decodeSeries reads a series request in Loki's order: every group's kind
// is checked before any is validated, then max_query_length and the
// range's order, then each group validated.
func (s *Server) decodeSeries(e edge) (*loghttp.SeriesQuery, loghttp.Identity, error) {
	q, err := loghttp.ParseSeriesQuery(e.form, e.now)
	for i := 0; err == nil && i < len(q.Matchers); i++ {
		_, err = logql.ParseMatchers(q.Matchers[i], false)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(e.tenant))
	}
	if err == nil {
		err = loghttp.CheckRangeOrder(q.Start, q.End)
	}
	for i := 0; err == nil && i < len(q.Matchers); i++ {
		var ms []*logql.Matcher
		if ms, err = logql.ParseMatchers(q.Matchers[i], true); err == nil {
			q.Selectors = append(q.Selectors, ms)
		}
	}
	if err != nil {
		return nil, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	return q, q.Identity, nil
}

// volumeRequest is an index/volume(_range) request, its selector parsed.
type volumeRequest struct {
	*loghttp.VolumeQuery
	Matchers []*logql.Matcher
}

// decodeVolume reads a volume request; Loki's volume requests count
// whole seconds against max_query_length.
func (s *Server) decodeVolume(isRange bool) func(edge) (volumeRequest, loghttp.Identity, error) {
	return func(e edge) (volumeRequest, loghttp.Identity, error) {
		q, err := loghttp.ParseVolumeQuery(e.form, e.now, isRange)
		var ms []*logql.Matcher
		if err == nil {
			ms, err = logql.ParseMatchers(q.Query, true)
		}
		if err == nil {
			err = loghttp.CheckQueryLength(q.Start.Unix()*1000, q.End.Unix()*1000, s.maxQueryLength(e.tenant))
		}
		if err != nil {
			return volumeRequest{}, loghttp.Identity{}, err
		}
		q.Identify(e.form, e.headers)
		return volumeRequest{VolumeQuery: q, Matchers: ms}, q.Identity, nil
	}
}

// selectorRange is a range request over a stream selector: index stats.
type selectorRange struct {
	*loghttp.RangeQuery
	Matchers []*logql.Matcher
}

// decodeIndexStats reads an index stats request: Loki rounds it out to
// whole milliseconds for max_query_length, then reads the selector.
func (s *Server) decodeIndexStats(e edge) (selectorRange, loghttp.Identity, error) {
	q, err := loghttp.ParseRangeQuery(e.form, e.now)
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), loghttp.CeilMs(q.End), s.maxQueryLength(e.tenant))
	}
	var ms []*logql.Matcher
	if err == nil {
		ms, err = logql.ParseMatchers(q.Query, true)
	}
	if err != nil {
		return selectorRange{}, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	return selectorRange{RangeQuery: q, Matchers: ms}, q.Identity, nil
}

// patternsRequest is a patterns request: its range, selector and the time
// it was asked (the retained window ends there).
type patternsRequest struct {
	*loghttp.RangeQuery
	Selector logql.LogSelectorExpr
	Now      time.Time
}

// decodePatterns reads a patterns request. Its answer is never cached:
// templates later lines refine, a window that moves with now.
func (s *Server) decodePatterns(e edge) (patternsRequest, loghttp.Identity, error) {
	q, err := loghttp.ParseRangeQuery(e.form, e.now)
	if err == nil {
		_, err = logql.ParseMatchers(q.Query, true)
	}
	var sel logql.LogSelectorExpr
	if err == nil {
		sel, err = logql.ParseLogSelector(q.Query, true)
	}
	if err != nil {
		return patternsRequest{}, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	q.Identity.Uncacheable = true
	return patternsRequest{RangeQuery: q, Selector: sel, Now: e.now}, q.Identity, nil
}

// detectedRequest is a detected_fields or detected_field values request,
// its query parsed; Name is the field whose values are asked.
type detectedRequest struct {
	*loghttp.DetectedFieldsQuery
	Selector logql.LogSelectorExpr
	Name     string
}

// decodeDetected reads a detected_fields request (named: a field's values).
func (s *Server) decodeDetected(named bool) func(edge) (detectedRequest, loghttp.Identity, error) {
	return func(e edge) (detectedRequest, loghttp.Identity, error) {
		q, err := loghttp.ParseDetectedFieldsQuery(e.form, e.now)
		var sel logql.LogSelectorExpr
		if err == nil {
			sel, err = logql.ParseLogSelector(q.Query, true)
		}
		if err != nil {
			return detectedRequest{}, loghttp.Identity{}, err
		}
		q.Identify(e.form, e.headers)
		req := detectedRequest{DetectedFieldsQuery: q, Selector: sel}
		if named {
			req.Name = e.r.PathValue("name")
		}
		return req, q.Identity, nil
	}
}

// decodeLegacyQuery reads /api/prom/query in Loki's order: query_range's
// parameters, the regexp folded into the query, the query parsed and a
// metric query refused, then the entries limit and max_query_length.
func (s *Server) decodeLegacyQuery(e edge) (*loghttp.RangeQuery, loghttp.Identity, error) {
	q, err := loghttp.ParseLegacyQuery(e.form, e.now)
	if err != nil {
		return nil, loghttp.Identity{}, err
	}
	if q.Query, err = withLegacyRegexp(q.Query, q.Regexp); err != nil {
		return nil, loghttp.Identity{}, err
	}
	if q.Expr, err = logql.ParseExpr(q.Query); err != nil {
		return nil, loghttp.Identity{}, err
	}
	if _, ok := q.Expr.(logql.SampleExpr); ok {
		return nil, loghttp.Identity{}, legacyRPCError("legacy endpoints only support streams result type")
	}
	if err := loghttp.CheckEntriesLimit(q.Limit, s.limitsOf(e.tenant).MaxEntriesLimitPerQuery); err != nil {
		return nil, loghttp.Identity{}, err
	}
	if err := loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(e.tenant)); err != nil {
		return nil, loghttp.Identity{}, err
	}
	q.Identify(e.form, e.headers)
	return &q.RangeQuery, q.Identity, nil
}
