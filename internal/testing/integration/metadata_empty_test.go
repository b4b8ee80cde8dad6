package integration

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"
)

// TestEmptyStructuredMetadataAsLoki: Loki v3.7.8 accepts an entry whose
// structured metadata has a name without a value (204) and shows only the
// others: asked for {app="x"} after pushing [ts, "line one", {"k": "",
// "j": "v"}], it answered the stream
// {app="x", detected_level="unknown", j="v", service_name="x"}.
// VictoriaLogs' Loki endpoint refuses such a protobuf, so vloki drops the
// empty value before writing, on every backend.
func TestEmptyStructuredMetadataAsLoki(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			ts := time.Now().Add(-time.Minute)
			body := fmt.Sprintf(`{"streams":[{"stream":{"app":"md-empty"},"values":[["%d","line one",{"k":"","j":"v"}]]}]}`, ts.UnixNano())
			tg.pushJSON(t, "md-empty", json.RawMessage(body))
			var got struct {
				Data struct {
					Result []struct {
						Stream map[string]string `json:"stream"`
						Values [][2]string       `json:"values"`
					} `json:"result"`
				} `json:"data"`
			}
			decode(t, tg.get(t, "/loki/api/v1/query_range", "md-empty", url.Values{"query": {`{app="md-empty"}`},
				"start": {ns(ts.Add(-time.Second))}, "end": {ns(ts.Add(time.Second))}}, nil), &got)
			want := map[string]string{"app": "md-empty", "detected_level": "unknown", "j": "v", "service_name": "md-empty"}
			if len(got.Data.Result) != 1 || fmt.Sprint(got.Data.Result[0].Stream) != fmt.Sprint(want) || got.Data.Result[0].Values[0][1] != "line one" {
				t.Fatalf("got %+v", got.Data.Result)
			}
		})
	}
}
