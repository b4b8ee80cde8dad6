package integration

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestTenantIsolationEverywhere: with auth on, tenant B asking every read
// endpoint — twice, the second time from the results cache — never sees
// anything of tenant A, whose label names, values and lines carry a marker.
func TestTenantIsolationEverywhere(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			const marker = "secretmarkerxq"
			at := base.Add(3 * time.Hour)
			tg.pushJSON(t, "iso-a", jsonPush(map[string]string{"app": marker, marker: "v"}, entry{ns(at), `{"` + marker + `":"` + marker + `"} level=error ` + marker}))
			tg.pushJSON(t, "iso-b", jsonPush(map[string]string{"app": "mine"}, entry{ns(at), `{"k":"v"} level=info`}))
			window := url.Values{"start": {ns(at.Add(-time.Hour))}, "end": {ns(at.Add(time.Hour))}}
			with := func(kv ...string) url.Values {
				v := url.Values{}
				for k, vs := range window {
					v[k] = vs
				}
				for i := 0; i < len(kv); i += 2 {
					v.Set(kv[i], kv[i+1])
				}
				return v
			}
			asks := []struct {
				path   string
				params url.Values
			}{
				{"/loki/api/v1/query_range", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/query_range", with("query", `sum by (app) (count_over_time({app=~".+"} | json [1h]))`, "step", "600")},
				{"/loki/api/v1/query", url.Values{"query": {`count_over_time({app=~".+"}[2h])`}, "time": {ns(at)}}},
				{"/loki/api/v1/labels", window},
				{"/loki/api/v1/label/app/values", window},
				{"/loki/api/v1/label/" + marker + "/values", window},
				{"/loki/api/v1/series", with("match[]", `{app=~".+"}`)},
				{"/loki/api/v1/index/stats", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/index/volume", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/index/volume_range", with("query", `{app=~".+"}`, "step", "600")},
				{"/loki/api/v1/detected_labels", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/detected_fields", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/detected_field/" + marker + "/values", with("query", `{app=~".+"}`)},
				{"/loki/api/v1/patterns", with("query", `{app=~".+"}`)},
			}
			for _, a := range asks {
				for range 2 {
					r := tg.get(t, a.path, "iso-b", a.params, nil)
					if strings.Contains(string(r.body), marker) {
						t.Fatalf("tenant B saw tenant A's data at %s: %s", a.path, r.body)
					}
				}
			}
			// The marker is there for A: the asks above can find it.
			if r := tg.get(t, "/loki/api/v1/query_range", "iso-a", with("query", `{app=~".+"}`), nil); !strings.Contains(string(r.body), marker) {
				t.Fatalf("tenant A's own data missing: %s", r.body)
			}
		})
	}
}
