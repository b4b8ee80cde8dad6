package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/indexstats"
	"github.com/vloki/vloki/internal/read/plan"
)

// Loki's max_query_bytes_read: before a metric query, or a log query with
// a filter (not one Grafana tags "datasample"), its frontend asks the
// index how many bytes each selector reads over its range and refuses the
// query above the limit.
const (
	msgTooManyBytes = "the query would read too many bytes (query: %s, limit: %s); consider adding more specific stream selectors or reduce the time range of the query"
	// instantLookback is Loki's default max_look_back_period: a selector
	// without a range is measured this far before an instant query.
	instantLookback = 30 * time.Second
)

// selectorRange is one selector of a query and the range it reads before
// each evaluation time.
type selectorRange struct {
	sel              logql.LogSelectorExpr
	interval, offset time.Duration
}

// CheckBytesRead applies MaxQueryBytesRead to a query evaluated over
// [start, end] (Unix ns).
func (e *Engine) CheckBytesRead(ctx context.Context, t tenant.ID, expr logql.Expr, start, end int64) error {
	limit := int64(e.limits.For(t).MaxQueryBytesRead)
	if limit <= 0 {
		return nil
	}
	f, err := e.Foreign(ctx, t, start, end)
	if err != nil {
		return err
	}
	var total int64
	for _, g := range selectorRanges(expr) {
		from := start - int64(g.interval+g.offset)
		if g.interval == 0 {
			from -= int64(instantLookback)
		}
		st, err := indexstats.Read(ctx, e.c, t, plan.StreamFilter(g.sel.Matchers(), f), from, end-int64(g.offset))
		if err != nil {
			return err
		}
		total += st.Bytes
	}
	if total > limit {
		return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(msgTooManyBytes, humanize.IBytes(uint64(total)), humanize.IBytes(uint64(limit)))}
	}
	return nil
}

// selectorRanges lists the query's selectors with their ranges, as Loki's
// MatcherGroups does.
func selectorRanges(expr logql.Expr) []selectorRange {
	if sel, ok := expr.(logql.LogSelectorExpr); ok {
		return []selectorRange{{sel: sel}}
	}
	var out []selectorRange
	logql.Walk(expr, func(e logql.Expr) bool {
		if ra, ok := e.(*logql.RangeAggregationExpr); ok {
			out = append(out, selectorRange{sel: ra.Left.Left, interval: ra.Left.Interval, offset: ra.Left.Offset})
		}
		return true
	})
	return out
}

// LogQuerySized reports whether Loki's frontend measures a log query
// before running it: only one with a filter, and not Grafana's
// "datasample" queries.
func LogQuerySized(sel logql.LogSelectorExpr, queryTags string) bool {
	if strings.Contains(queryTags, "datasample") {
		return false
	}
	for _, st := range sel.Stages() {
		switch st := st.(type) {
		case *logql.LabelFilterExpr:
			return true
		case *logql.LineFilterExpr:
			// An empty contains or regex filter keeps every line.
			if (st.Type != logql.LineMatchEqual && st.Type != logql.LineMatchRegexp) || len(st.Values) == 0 || st.Values[0] != "" {
				return true
			}
		}
	}
	return false
}
