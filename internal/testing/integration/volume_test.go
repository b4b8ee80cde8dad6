package integration

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestVolumeRangeMatchesBuckets: volume_range, computed in one
// VictoriaLogs query, gives every bucket of Loki's grid (step-aligned,
// ending 1 ms before the next; the first starting at start, the last
// ending at end) the volume that bucket alone is given, stamped with the
// bucket's end.
func TestVolumeRangeMatchesBuckets(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			start, end, step := base.Add(3*time.Second), base.Add(47*time.Second), 10*time.Second
			for i, off := range []time.Duration{3 * time.Second, 5 * time.Second, 12 * time.Second, 20 * time.Second, 29 * time.Second, 46 * time.Second} {
				app := []string{"a", "b"}[i%2]
				line := fmt.Sprintf("%0*d", 3+i, 0)
				tg.pushJSON(t, "volr", jsonPush(map[string]string{"app": app}, entry{ns(base.Add(off)), line}))
			}
			p := url.Values{"query": {`{app=~".+"}`}, "start": {ns(start)}, "end": {ns(end)}, "step": {"10"}}
			_, res := metricResult(t, tg.get(t, "/loki/api/v1/index/volume_range", "volr", p, nil))
			got := volumePoints(t, res)
			want := map[string]map[int64]string{}
			for b := start.Truncate(step); b.Before(end); b = b.Add(step) {
				lo, hi := maxTime(b, start), b.Add(step-time.Millisecond)
				if !b.Add(step).Before(end) {
					hi = end
				}
				q := url.Values{"query": {`{app=~".+"}`}, "start": {ns(lo)}, "end": {ns(hi)}}
				_, one := metricResult(t, tg.get(t, "/loki/api/v1/index/volume", "volr", q, nil))
				for app, pts := range volumePoints(t, one) {
					if want[app] == nil {
						want[app] = map[int64]string{}
					}
					for _, v := range pts {
						want[app][hi.UnixMilli()] = v
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("volume_range %v\nbucket by bucket %v\n%s", got, want, res)
			}
		})
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// volumePoints reads a vector or matrix answer as app → time (ms) → value.
func volumePoints(t *testing.T, res string) map[string]map[int64]string {
	t.Helper()
	var series []struct {
		Metric map[string]string `json:"metric"`
		Value  []any             `json:"value"`
		Values [][]any           `json:"values"`
	}
	if err := json.Unmarshal([]byte(res), &series); err != nil {
		t.Fatalf("%s: %v", res, err)
	}
	out := map[string]map[int64]string{}
	for _, s := range series {
		vals := s.Values
		if s.Value != nil {
			vals = append(vals, s.Value)
		}
		m := map[int64]string{}
		for _, v := range vals {
			m[int64(v[0].(float64)*1000)] = v[1].(string)
		}
		out[s.Metric["app"]] = m
	}
	return out
}

// TestVolumeRangeIsOneBackendRequest: however many buckets, volume_range
// costs one VictoriaLogs request (vloki_backend_requests_per_request).
func TestVolumeRangeIsOneBackendRequest(t *testing.T) {
	tg := targets(t)[0]
	tg.pushJSON(t, "volq", jsonPush(map[string]string{"app": "q"}, entry{ns(base), "x"}))
	p := url.Values{"query": {`{app="q"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Hour))}, "step": {"60"}}
	metricResult(t, tg.get(t, "/loki/api/v1/index/volume_range", "volq", p, nil))
	body := string(tg.get(t, "/metrics", "", nil, nil).body)
	for _, want := range []string{
		`vloki_backend_requests_per_request_sum{route="volume_range"} 1`,
		`vloki_backend_requests_per_request_count{route="volume_range"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
