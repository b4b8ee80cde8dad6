// Package indexstats reads what Loki's index stats report of a selector
// and range (streams, entries, line bytes) from one VictoriaLogs query.
package indexstats

import (
	"context"
	"strconv"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// Stats is what Loki's index stats report of a selector and range.
type Stats struct {
	Streams, Entries, Bytes int64
}

// Read counts the streams, entries and line bytes of the rows
// matching streams in [start, end] (inclusive Unix ns).
func Read(ctx context.Context, c *backend.Client, t tenant.ID, streams logsql.Filter, start, end int64) (Stats, error) {
	query := logsql.Query{
		Filter: logsql.And{logsql.TimeRange{Start: start, End: end}, streams},
		Pipes:  []logsql.Pipe{logsql.IndexStats{Lines: schema.LineBytesPipe}},
	}
	var st Stats
	err := c.Query(ctx, t, backend.QueryRequest{Query: query.String()}, func(row *backend.Row) error {
		st.Entries, _ = strconv.ParseInt(string(row.Get("c")), 10, 64)
		st.Streams, _ = strconv.ParseInt(string(row.Get("s")), 10, 64)
		var err error
		st.Bytes, err = logsql.ParseLineBytes(row.Get("b"), row.Get("b0"))
		return err
	})
	return st, err
}
