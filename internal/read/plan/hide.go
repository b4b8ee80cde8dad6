package plan

import "github.com/vloki/vloki/internal/lang/logsql"

// Hide narrows the log query to the rows hidden does not match (Loki's
// delete requests, filtered at query time). hidden is exact, so the
// pushdown stays as exact as it was. A query is narrowed once, however
// many plan nodes share it.
func (q *LogQuery) Hide(hidden logsql.Filter) {
	if hidden == nil || q.hidden {
		return
	}
	q.Pushdown = logsql.And{q.Pushdown, logsql.Not{F: hidden}}
	q.hidden = true
}

// HideMetric narrows every log query of m (see LogQuery.Hide).
func HideMetric(m Metric, hidden logsql.Filter) {
	if hidden == nil {
		return
	}
	EachLog(m, func(q *LogQuery) { q.Hide(hidden) })
}
