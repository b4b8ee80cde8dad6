package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/testing/vltest"
	"github.com/vloki/vloki/internal/tools/bench/scaledata"
	"github.com/vloki/vloki/internal/tools/bench/scaleingest"
)

// TestOwnEndpointLandsInVictoriaLogs: an ownendpoint target takes the
// dataset in each -via format through a real victoria-logs' own endpoint
// for it, every line counted back, its streams as the format defines them
// and each line kept whole in _msg (the Loki endpoint's parsing off).
func TestOwnEndpointLandsInVictoriaLogs(t *testing.T) {
	p, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	data := scaledata.Config{Now: time.Now().Truncate(time.Second), Days: 2, Lines: 1_500, Seed: 2} // VictoriaLogs refuses rows days ahead
	d := scaledata.New(data)
	for i, c := range []struct {
		via     scaleingest.Format
		streams int
	}{{scaleingest.LokiProto, len(d.Streams())}, {scaleingest.LokiJSON, len(d.Streams())}, {scaleingest.OTLP, 0}} {
		account := string(rune('1' + i))
		tg := Target{Name: "victorialogs", URL: p.URL, Twins: true, OwnEndpoint: true,
			Header: http.Header{"Accountid": {account}, "Projectid": {"0"}}}
		cfg := ScaleConfig{Data: data, Targets: []Target{tg}, Via: c.via, IngestOnly: true,
			Ingest: scaleingest.Options{Pushers: 2, BatchLines: 100}, CountWait: time.Minute}
		if c.via == scaleingest.LokiProto { // and queried meanwhile, by the twins of a dashboard's panels
			cfg.IngestLoad = Load{Clients: 2, Timeout: 10 * time.Second}
			cfg.IngestWorkloads = pick(t, ScaleWorkloads(d), IngestWorkloads(d))
		}
		rep, err := Scale(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := rep.Ingestion[0]
		if in.CountedBack != data.Lines || !strings.HasPrefix(in.Via, "VictoriaLogs' own endpoint, ") {
			t.Fatalf("%v: %+v", c.via, in)
		}
		if q := in.WhileQueried; (q != nil) != (cfg.IngestLoad.Clients > 0) || q != nil && (q.Requests == 0 || q.ErrorRate != 0) {
			t.Fatalf("%s: queried while ingesting: %+v", in.Via, q)
		}
		if q := in.WhileQueried; q != nil && !strings.Contains(rep.Markdown(), "Queried while ingesting, by 2 closed-loop clients") {
			t.Fatalf("report:\n%s", rep.Markdown())
		}
		if c.via == scaleingest.OTLP {
			continue // counted back above; its fields are VictoriaLogs' OTLP mapping's
		}
		got := logsqlRow(t, p.URL, account, d, `* | stats count_uniq(_stream) streams, count() if (_msg:~"^\\{.*\\}$") whole`)
		if got["streams"] != strconv.Itoa(c.streams) || got["whole"] != strconv.Itoa(data.Lines) {
			t.Fatalf("%s: %v, want %d streams and every line whole", in.Via, got, c.streams)
		}
	}
}

// logsqlRow asks VictoriaLogs one stats query over d's span.
func logsqlRow(t *testing.T, base, account string, d *scaledata.Dataset, q string) map[string]string {
	t.Helper()
	v := url.Values{"query": {q}, "start": {ns(d.Start())}, "end": {ns(d.End().Add(time.Second))}}
	req, _ := http.NewRequest(http.MethodGet, base+"/select/logsql/query?"+v.Encode(), nil)
	req.Header.Set("AccountID", account)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	row := map[string]string{}
	if err := json.NewDecoder(resp.Body).Decode(&row); err != nil {
		t.Fatal(err)
	}
	return row
}

// pick finds the named workloads.
func pick(t *testing.T, all []Workload, names []string) []Workload {
	t.Helper()
	var out []Workload
	for _, n := range names {
		for _, w := range all {
			if w.Name == n {
				out = append(out, w)
			}
		}
	}
	if len(out) != len(names) {
		t.Fatalf("workloads %v: found %d", names, len(out))
	}
	return out
}
