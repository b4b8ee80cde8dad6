package logs

import (
	"context"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/storage/backend"
)

// StoredEntries calls fn with every entry VictoriaLogs holds for exactly
// the stream ls (not streams with more labels) in [from, to], as vloki
// reads them: its line and sorted structured metadata.
func StoredEntries(ctx context.Context, c *backend.Client, t tenant.ID, ls lokidata.Labels, from, to int64, fn func(lokidata.Entry)) error {
	sf := logsql.StreamFilter{Matchers: make([]logsql.StreamMatcher, 0, len(ls))}
	for _, l := range ls {
		sf.Matchers = append(sf.Matchers, logsql.StreamMatcher{Label: l.Name, Op: logsql.StreamEq, Value: l.Value})
	}
	q := logsql.Query{Filter: logsql.And{sf, logsql.TimeRange{Start: from, End: to}}}
	sorted := append(lokidata.Labels(nil), ls...)
	sorted.Sort()
	key := sorted.String()
	streams := logrow.NewStreamCache(nil)
	return c.Query(ctx, t, backend.QueryRequest{Query: q.String()}, func(r *backend.Row) error {
		row, err := logrow.Read(r, streams)
		if err != nil || row.Key != key {
			return err
		}
		fn(lokidata.Entry{TimestampNs: row.TimestampNs, Line: row.Line, StructuredMetadata: row.Metadata})
		return nil
	})
}
