package eval

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
)

// A sample appended as soon as the WAL is open is sent (the queue finds
// the WAL at once), the queue's metrics carry Loki's names, the tenant
// and the receiver's URL (not the relay's), and closing unregisters them
// so that the tenant's next WAL can register them again.
func TestWALSendsAtOnceWithLokisMetrics(t *testing.T) {
	got := make(chan int64, 10)
	rw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw, _ := snappy.Decode(nil, b)
		var req prompb.WriteRequest
		if err := req.Unmarshal(raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, ts := range req.Timeseries {
			for _, s := range ts.Samples {
				got <- s.Timestamp
			}
		}
	}))
	defer rw.Close()
	reg := prometheus.NewRegistry()
	cfg := RemoteWrite{URL: rw.URL + "/api/v1/write", Dir: t.TempDir(), BatchSendDeadline: 50 * time.Millisecond}
	for round := range 2 {
		w, err := openWAL(cfg, "t1", newTenantRegisterer(reg, "loki_ruler_wal_", "tenant", "t1", quiet()), newTenantRegisterer(reg, "", "tenant", "t1", quiet()), quiet())
		if err != nil {
			t.Fatal(err)
		}
		// The queue sends samples newer than its watcher's start, which
		// comes a moment after openWAL returns: a rule's first sample is
		// at its first slot, after the manager's start.
		ts := time.Now().Add(time.Second).UnixMilli()
		app := w.Appender(context.Background())
		if _, err := app.Append(0, labels.FromStrings("__name__", "m"), ts, 1); err != nil {
			t.Fatal(err)
		}
		if err := app.Commit(); err != nil {
			t.Fatal(err)
		}
		select {
		case sent := <-got:
			if sent != ts {
				t.Fatalf("round %d: sent %d, appended %d", round, sent, ts)
			}
		case <-time.After(15 * time.Second): // a loaded 2-core machine
			t.Fatalf("round %d: the sample appended at once was not sent", round)
		}
		const name = "loki_ruler_wal_prometheus_remote_storage_samples_total"
		if v := sample(t, reg, name, `tenant="t1",url="`+rw.URL+`/api/v1/write"`); v != 1 {
			t.Errorf("round %d: %s{tenant=\"t1\",url=<the receiver's>} = %v", round, name, v)
		}
		// The relay the queue writes through takes only the queue's requests.
		if resp, err := http.Post(w.relay.queueURL(0), "application/x-protobuf", nil); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("round %d: a request to the relay without its token: %v %v", round, resp, err)
		} else {
			resp.Body.Close()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if v := sample(t, reg, name, `tenant="t1"`); v != -1 {
			t.Errorf("round %d: %s still registered after Close", round, name)
		}
	}
}
