package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestDirectQueryMatchesHTTP: the embedded engine's direct query path
// returns exactly the rows, fields and order its HTTP handler returns —
// rows with empty fields, empty lines, metadata, stats pipes, sorting with
// a limit, and errors.
func TestDirectQueryMatchesHTTP(t *testing.T) {
	tn := tenant.ID{AccountID: 4242}
	direct, viaHTTP := directAndHTTP(t, tn, 50, func(i int) map[string]any {
		row := map[string]any{"app": fmt.Sprintf("d%d", i%3), "_msg": fmt.Sprintf(`{"n":%d,"s":"x\"y\\z"}`, i), "meta": fmt.Sprintf("m%d", i%4)}
		if i%7 == 0 {
			row["meta"] = ""
		}
		return row
	})
	for _, q := range []string{
		`*`,
		`{app="d1"} | sort by (_time desc) limit 7`,
		`* | stats by (app) count() as c, sum_len(_msg) as b`,
		`* | stats by (_time:10s offset 1ns, meta) count() as c`,
		`* | fields _time, meta`,
		`_msg:~"9" | delete _stream_id`,
		`this is not | logsql (`,
	} {
		want, werr := rowsOf(viaHTTP, tn, q)
		got, gerr := rowsOf(direct, tn, q)
		if !strings.Contains(q, "sort by") {
			// VictoriaLogs' workers deliver blocks (and stats groups) in
			// no fixed order, over HTTP as well.
			sort.Strings(want)
			sort.Strings(got)
		}
		if (werr == nil) != (gerr == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\ndirect %v %v\nhttp   %v %v", q, got, gerr, want, werr)
		}
	}
}

// TestDirectMetadataMatchesHTTP: the embedded engine's direct metadata
// path answers every metadata endpoint as its HTTP handler does.
func TestDirectMetadataMatchesHTTP(t *testing.T) {
	tn := tenant.ID{AccountID: 4343}
	direct, viaHTTP := directAndHTTP(t, tn, 30, func(i int) map[string]any {
		return map[string]any{"app": fmt.Sprintf("m%d", i%3), "_msg": "x", "meta": fmt.Sprintf("v%d", i%5)}
	})
	ranges := [][2]int64{{0, 0}, {base.UnixNano(), base.Add(10 * time.Second).UnixNano()}, {base.Add(5 * time.Second).UnixNano(), 0}}
	for _, ep := range []string{backend.FieldNames, backend.FieldValues, backend.StreamFieldNames, backend.StreamFieldValues, backend.Streams} {
		for _, r := range ranges {
			m := backend.MetadataRequest{Query: `{app=~"m.*"}`, Start: r[0], End: r[1], Field: "meta", Limit: 3}
			if ep == backend.StreamFieldValues {
				m.Field = "app"
			}
			want, werr := viaHTTP.Values(context.Background(), tn, ep, m)
			got, gerr := direct.Values(context.Background(), tn, ep, m)
			if (werr == nil) != (gerr == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %v:\ndirect %v %v\nhttp   %v %v", ep, r, got, gerr, want, werr)
			}
		}
	}
}

// directAndHTTP writes n rows (one a second from base) into the embedded
// engine for tn, and returns its direct client and one through its HTTP
// handlers.
func directAndHTTP(t *testing.T, tn tenant.ID, n int, row func(i int) map[string]any) (direct, viaHTTP *backend.Client) {
	t.Helper()
	direct, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if viaHTTP, err = vltest.EmbeddedViaHTTP(); err != nil {
		t.Fatal(err)
	}
	var body []byte
	for i := range n {
		r := row(i)
		r["_time"] = base.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		b, _ := json.Marshal(r)
		body = append(append(body, b...), '\n')
	}
	if err := direct.InsertJSONLines(context.Background(), tn, body, "app", "_msg"); err != nil {
		t.Fatal(err)
	}
	vltest.Flush(t, direct)
	return direct, viaHTTP
}

func rowsOf(c *backend.Client, tn tenant.ID, q string) ([]string, error) {
	var out []string
	err := c.Query(context.Background(), tn, backend.QueryRequest{Query: q}, func(r *backend.Row) error {
		s := ""
		for _, f := range r.Fields {
			s += string(f.Name) + "=" + string(f.Value) + ";"
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
