package rulertest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/prompb"
)

// remoteWrite posts samples of one series as Prometheus remote write v1.
func remoteWrite(t *testing.T, url string, name string, samples ...prompb.Sample) {
	t.Helper()
	req := prompb.WriteRequest{Timeseries: []prompb.TimeSeries{{Labels: []prompb.Label{{Name: "__name__", Value: name}}, Samples: samples}}}
	raw, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(snappy.Encode(nil, raw)))
	r.Header.Set("Content-Encoding", "snappy")
	r.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("remote write: %s", resp.Status)
	}
}

func TestVictoriaMetrics(t *testing.T) {
	t.Parallel()
	vm := StartVictoriaMetrics(t)
	t0 := time.Now().Add(-time.Minute).UnixMilli()
	remoteWrite(t, vm.WriteURL("a"), "m", prompb.Sample{Timestamp: t0, Value: 1}, prompb.Sample{Timestamp: t0 + 1000, Value: 2},
		prompb.Sample{Timestamp: t0 + 2000, Value: math.Float64frombits(value.StaleNaN)})
	check := func(when string) {
		got := vm.Export(t, `{__name__="m"}`)
		if len(got) != 1 || got[0].Metric["src"] != "a" || len(got[0].Values) != 3 || got[0].Values[2] != nil ||
			*got[0].Values[0] != 1 || *got[0].Values[1] != 2 || got[0].Timestamps[0] != t0 || got[0].Timestamps[2] != t0+2000 {
			b, _ := json.Marshal(got)
			t.Fatalf("%s: exported %s", when, b)
		}
	}
	check("written")
	// A restart on the same port and data directory keeps the samples.
	vm.Stop()
	if _, err := http.Get(vm.URL + "/health"); err == nil {
		t.Fatal("still serving after Stop")
	}
	vm.Start(t)
	check("after a restart")
}

func TestAlertmanager(t *testing.T) {
	t.Parallel()
	am := StartAlertmanager(t)
	body := `[{"labels":{"alertname":"A","replica":"1"},"annotations":{"summary":"s"},"generatorURL":"http://x/g"}]`
	resp, err := http.Post(am.URL+"/api/v2/alerts", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("post: %s", resp.Status)
	}
	got := am.Alerts(t, `replica="1"`)
	if len(got) != 1 || got[0].Labels["alertname"] != "A" || got[0].Annotations["summary"] != "s" || got[0].Status.State != "active" ||
		got[0].GeneratorURL != "http://x/g" {
		t.Fatalf("listed: %+v", got)
	}
	if other := am.Alerts(t, `replica="2"`); len(other) != 0 {
		t.Fatalf("filter ignored: %+v", other)
	}
	WaitFor(t, "webhook notified", 10*time.Second, func() bool { return len(am.Webhook.Alerts()) > 0 })
	if w := am.Webhook.Alerts()[0]; w.Status != "firing" || w.Labels["replica"] != "1" || w.Annotations["summary"] != "s" {
		t.Fatalf("notified: %+v", w)
	}
	// No gossip: the cluster is off.
	resp, err = http.Get(am.URL + "/api/v2/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status struct {
		Cluster struct {
			Status string `json:"status"`
		} `json:"cluster"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil || status.Cluster.Status != "disabled" {
		t.Fatalf("cluster: %+v %v", status, err)
	}
}
