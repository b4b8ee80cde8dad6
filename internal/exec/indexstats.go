package exec

import (
	"context"
	"strconv"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/logsql"
)

// IndexStats is what Loki's index stats report of a selector and range.
type IndexStats struct {
	Streams, Entries, Bytes int64
}

// ReadIndexStats counts the streams, entries and line bytes of the rows
// matching streams in [start, end] (inclusive Unix ns).
func ReadIndexStats(ctx context.Context, c *backend.Client, t backend.Tenant, streams logsql.Filter, start, end int64) (IndexStats, error) {
	query := logsql.Query{
		Filter: logsql.And{logsql.TimeRange{Start: start, End: end}, streams},
		Pipes:  []logsql.Pipe{logsql.IndexStats{Lines: backend.LineBytesPipe}},
	}
	var st IndexStats
	err := c.Query(ctx, t, backend.QueryRequest{Query: query.String()}, func(row *backend.Row) error {
		st.Entries, _ = strconv.ParseInt(string(row.Get("c")), 10, 64)
		st.Streams, _ = strconv.ParseInt(string(row.Get("s")), 10, 64)
		var err error
		st.Bytes, err = logsql.ParseLineBytes(row.Get("b"), row.Get("b0"))
		return err
	})
	return st, err
}
