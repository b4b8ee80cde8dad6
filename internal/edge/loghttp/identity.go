package loghttp

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Identity is what the layers after the edge know of a decoded read
// request besides its typed parameters: what identifies its answer, the
// time the answer reads, and how long a span it reads.
type Identity struct {
	// Key is the request's parameters (sorted) and the headers that change
	// the answer.
	Key string
	// End is the latest time the answer reads; FollowsNow when the
	// request gave none (it reads up to now).
	End        time.Time
	FollowsNow bool
	// DaysFrom is, for an answer holding whole UTC days (label names and
	// values, detected labels: LabelIndexSpan), the first of them; zero
	// otherwise.
	DaysFrom time.Time
	// Uncacheable marks an answer that depends on data after End (a
	// negative offset) or on now (patterns).
	Uncacheable bool
	// Span is how much time the request reads, to schedule it.
	Span time.Duration
	// NoCache is Cache-Control: no-cache.
	NoCache bool
	// StepsKey, for a metric range query, names its answer by its steps
	// instead of its end: every end up to the next step asks the same
	// steps, split the same way (whether end lies on the last step is in
	// it: Loki's splits then differ), so reads the same data and answers
	// the same. LastStep is the last step's time, ReadsFrom the earliest
	// time its steps read (start less the longest range and offset).
	// Empty for other requests.
	StepsKey            string
	LastStep, ReadsFrom time.Time
}

// Headers are the request headers that reads depend on.
type Headers struct {
	Flags Flags
	// Accept and Flags change the answer's bytes.
	Accept string
	// QueryTags is X-Query-Tags ("datasample" queries are not measured
	// against max_query_bytes_read).
	QueryTags string
	NoCache   bool
}

// ReadHeaders decodes the headers a read depends on.
func ReadHeaders(h http.Header) Headers {
	return Headers{Flags: EncodingFlags(h), Accept: h.Get("Accept"), QueryTags: h.Get("X-Query-Tags"),
		NoCache: h.Get("Cache-Control") == "no-cache"}
}

// identity is the identity of an answer read from f's parameters up to
// end (followsNow: none given), over span.
func (h Headers) identity(f *Form, end time.Time, followsNow bool, span time.Duration) Identity {
	return Identity{Key: h.key(f.Key()), End: end, FollowsNow: followsNow, Span: span, NoCache: h.NoCache}
}

// key is the parameters' key with the headers that change the answer.
func (h Headers) key(params string) string {
	return params + "\x00flags=" + strings.Join(h.Flags, ",") + "\x00accept=" + h.Accept
}

// readsAhead reports a negative offset: a step then reads data after its
// own time.
func readsAhead(e logql.Expr) bool {
	found := false
	logql.Walk(e, func(n logql.Expr) bool {
		if r, ok := n.(*logql.RangeAggregationExpr); ok && r.Left.Offset < 0 {
			found = true
		}
		return !found
	})
	return found
}

// spanOf is how long [start, end] is, zero when reversed.
func spanOf(start, end time.Time) time.Duration {
	return max(end.Sub(start), 0)
}

// Identify sets a range request's identity, once its query is parsed
// (Expr; nil when the query is a selector read by another endpoint).
func (q *RangeQuery) Identify(f *Form, h Headers) {
	q.Headers = h
	q.Identity = h.identity(f, q.End, !f.has("end"), spanOf(q.Start, q.End)+logql.LongestRange(q.Expr))
	q.Identity.Uncacheable = q.Expr != nil && readsAhead(q.Expr)
	if _, metric := q.Expr.(logql.SampleExpr); metric && q.Step > 0 && !q.End.Before(q.Start) {
		last := q.Start.Add(q.End.Sub(q.Start) / q.Step * q.Step)
		q.Identity.LastStep, q.Identity.ReadsFrom = last, q.Start.Add(-logql.LongestReach(q.Expr))
		q.Identity.StepsKey = h.key(f.Key("end")) + "\x00last-step=" + strconv.FormatInt(last.UnixNano(), 10) +
			"," + strconv.FormatBool(last.Equal(q.End))
	}
}

// Identify sets an instant query's identity once its query is parsed.
func (q *InstantQuery) Identify(f *Form, h Headers) {
	q.Headers = h
	q.Identity = h.identity(f, q.Time, !f.has("time"), logql.LongestRange(q.Expr))
	q.Identity.Uncacheable = q.Expr != nil && readsAhead(q.Expr)
}

// Identify sets a series request's identity.
func (q *SeriesQuery) Identify(f *Form, h Headers) {
	q.Identity = h.identity(f, q.End, !f.has("end"), spanOf(q.Start, q.End))
}

// Identify sets a volume request's identity.
func (q *VolumeQuery) Identify(f *Form, h Headers) {
	q.Identity = h.identity(f, q.End, !f.has("end"), spanOf(q.Start, q.End))
}

// Identify sets a detected_fields request's identity.
func (q *DetectedFieldsQuery) Identify(f *Form, h Headers) {
	q.Identity = h.identity(f, q.End, !f.has("end"), spanOf(q.Start, q.End))
}

// Identify sets a label-index request's identity (label names and values,
// detected labels) from the range asked, before LabelIndexSpan widens it:
// its answer holds the whole UTC days the range touches. When those days
// do not move with now (a start is given, or the end is past), they are
// what identifies the answer: they stand for start, end and since in the
// key, so "the last hour" asked again later that day is the same answer.
// An answer that follows the push times (byDays false: the stream index's
// rule for recent ranges) changes with time alone: never cached, its key
// the range asked.
func (q *LabelQuery) Identify(f *Form, h Headers, now time.Time, byDays bool) {
	q.Identity = h.identity(f, q.End, !f.has("end"), spanOf(q.Start, q.End))
	if !byDays {
		q.Identity.Uncacheable = true
		return
	}
	if q.Identity.FollowsNow {
		return
	}
	from, through := LabelIndexSpan(q.Start, q.End)
	q.Identity.End = through
	if !f.has("start") && q.End.After(now) {
		return // start follows now
	}
	q.Identity.DaysFrom = from
	q.Identity.Key = h.key(f.Key("start", "end", "since") + "\x00days=" +
		strconv.FormatInt(from.UnixNano(), 10) + "-" + strconv.FormatInt(through.UnixNano(), 10))
}
