package frontend

import (
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// Request is a read request as the frontend sees it: decoded once at the
// edge (loghttp), its tenant resolved.
type Request struct {
	// Route names the operation (its answers are cached apart from other
	// routes'); Path tells apart routes answering in other shapes.
	Route, Path string
	Tenant      tenant.ID
	loghttp.Identity
}

// frozenBefore reports whether everything the request reads lies before
// cut, so its answer can no longer change.
func (q *Request) frozenBefore(cut time.Time) bool {
	return !q.FollowsNow && !q.Uncacheable && q.End.Before(cut)
}

// settledByPushes reports whether only pushes can change the request's
// answer while vloki is the sole writer: a label-index route whose first
// day lies more than a day inside the storage's retention (0: none), so
// no rows of it are deleted meanwhile.
func (q *Request) settledByPushes(now time.Time, retention time.Duration) bool {
	return !q.DaysFrom.IsZero() && !q.Uncacheable &&
		(retention <= 0 || q.DaysFrom.After(now.Add(-retention+24*time.Hour)))
}

// key identifies the answer for the tenant at a cache generation.
func (q *Request) key(generation uint64) string {
	var b strings.Builder
	b.Grow(len(q.Route) + len(q.Path) + len(q.Key) + 32)
	b.WriteString(strconv.FormatUint(uint64(q.Tenant.AccountID), 10))
	b.WriteByte(':')
	b.WriteString(strconv.FormatUint(uint64(q.Tenant.ProjectID), 10))
	b.WriteByte(':')
	b.WriteString(strconv.FormatUint(generation, 10))
	b.WriteByte('\x00')
	b.WriteString(q.Route)
	b.WriteByte('\x00')
	b.WriteString(q.Path)
	b.WriteString(q.Key)
	return b.String()
}
