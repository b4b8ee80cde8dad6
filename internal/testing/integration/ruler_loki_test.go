package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/value"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/testing/rulertest"
)

// TestRulerMatchesLoki drives vloki's ruler through the scenario make
// ruler-record drove Loki v3.7.8's through (testdata/ruler_loki.json): the
// same pushes and rule files, at the same times relative to an anchor A
// (a multiple of 30s, so that every group's slots fall at the same
// offsets from it: vloki's rule_path is set to Loki's, so each group's
// identity and slot offset is Loki's). Compared: /prometheus/api/v1/rules
// and /alerts at the same relative instant (wall-clock fields masked,
// activeAt relative to A), every notification (labels, annotations,
// startsAt, endsAt, generatorURL, X-Scope-OrgID) and every remote-written
// sample from A to A+60s (timestamps relative to A, stale markers
// included).
func TestRulerMatchesLoki(t *testing.T) {
	const golden = "testdata/ruler_loki.json"
	rules, err := os.ReadFile("testdata/ruler_parity_rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("RULER_RECORD") != "" {
		rec := recordLokiRuler(t, rules)
		b, _ := json.MarshalIndent(rec, "", "  ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (make ruler-record writes it)", err)
	}
	var want rulerRecording
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	outs := newRulerOutputs(t)
	vm := rulertest.StartVictoriaMetrics(t)
	var dirs []string
	var ams []*rulertest.Alertmanager
	targets := targetsWith(t, func(cfg *config.Config) {
		dir := filepath.Join(t.TempDir(), "rules")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		cfg.Ruler.Storage.Local.Directory = dir
		cfg.Ruler.EnableEvaluation = true
		cfg.Ruler.RulePath = want.RulePath
		cfg.Ruler.EvaluationInterval, cfg.Ruler.PollInterval = 10*time.Second, time.Second
		cfg.Ruler.ExternalURL, cfg.Ruler.DatasourceUID = "http://grafana.test", "loki-uid"
		// Each target its own Alertmanager: the same alerts from several
		// rulers would be merged in one.
		key := strconv.Itoa(len(dirs))
		ams = append(ams, rulertest.StartAlertmanager(t))
		outs.forward[key] = vm.WriteURL(key)
		cfg.Ruler.AlertmanagerURL = outs.amURL(key) + "," + ams[len(ams)-1].URL
		cfg.Ruler.RemoteWrite.Enabled, cfg.Ruler.RemoteWrite.URL, cfg.Ruler.WAL.Dir = true, outs.rwURL(key), t.TempDir()
	})
	t.Run("targets", func(t *testing.T) {
		for i, tg := range targets {
			t.Run(tg.name, func(t *testing.T) {
				t.Parallel()
				got := runRulerScenario(t, rulerSide{
					push:     func(body []byte) { tg.pushJSON(t, "fake", json.RawMessage(body)) },
					load:     func(b []byte) { writeRuleFile(t, dirs[i], b) },
					get:      func(path string) []byte { return tg.rulerDo(t, "GET", path, "fake", "").body },
					outs:     outs,
					key:      strconv.Itoa(i + 1),
					rulePath: want.RulePath,
				}, rules)
				compareRulerRecordings(t, want, got)
				checkReceivers(t, vm, ams[i], strconv.Itoa(i+1), outs)
			})
		}
	})
}

// checkReceivers checks that the real receivers took what the ruler sent:
// VictoriaMetrics holds every remote-written sample (a stale marker as
// null; values as VictoriaMetrics stores them, to 12 significant digits),
// and Alertmanager notified every alert sent, resolved ones as resolved.
func checkReceivers(t *testing.T, vm *rulertest.VictoriaMetrics, am *rulertest.Alertmanager, key string, o *rulerOutputs) {
	t.Helper()
	o.mu.Lock()
	sent, notes := slices.Clone(o.samp[key]), slices.Clone(o.notes[key])
	o.mu.Unlock()
	stored := map[string]*float64{}
	for _, s := range vm.Export(t, `{src="`+key+`"}`) {
		delete(s.Metric, "src")
		for i, ts := range s.Timestamps {
			stored[labelsKey(s.Metric)+"@"+strconv.FormatInt(ts, 10)] = s.Values[i]
		}
	}
	for _, s := range sent {
		k := labelsKey(s.metric) + "@" + strconv.FormatInt(s.ts, 10)
		v, ok := stored[k]
		switch {
		case !ok:
			t.Errorf("VictoriaMetrics lacks %s", k)
		case value.IsStaleNaN(s.v) != (v == nil):
			t.Errorf("VictoriaMetrics has %s = %v, sent %v", k, v, s.v)
		case v != nil && math.Abs(*v-s.v) > 1e-9*math.Max(1, math.Abs(s.v)):
			t.Errorf("VictoriaMetrics has %s = %v, sent %v", k, *v, s.v)
		}
	}
	rulertest.WaitFor(t, "Alertmanager's notifications", 10*time.Second, func() bool {
		got := map[string]bool{}
		for _, a := range am.Webhook.Alerts() {
			got[a.Status+" "+labelsKey(a.Labels)+" "+a.StartsAt.UTC().Format(time.RFC3339Nano)] = true
		}
		for _, n := range notes {
			labels := map[string]string{}
			for k, v := range n.alert["labels"].(map[string]any) {
				labels[k] = v.(string)
			}
			starts, _ := time.Parse(time.RFC3339Nano, n.alert["startsAt"].(string))
			ends, _ := time.Parse(time.RFC3339Nano, n.alert["endsAt"].(string))
			status := "firing"
			if ends.Before(time.Now()) {
				status = "resolved"
			}
			if !got[status+" "+labelsKey(labels)+" "+starts.UTC().Format(time.RFC3339Nano)] {
				return false
			}
		}
		return len(notes) > 0
	})
}

func labelsKey(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k, v := range m {
		ks = append(ks, k+"="+strconv.Quote(v))
	}
	sort.Strings(ks)
	return "{" + strings.Join(ks, ",") + "}"
}

// rulerRecording is what one ruler produced in the scenario, with times
// relative to the anchor.
type rulerRecording struct {
	// RulePath is Loki's rule_path: vloki uses it for the same slots.
	RulePath      string   `json:"rulePath"`
	SnapshotAt    string   `json:"snapshotAt"`
	Rules         string   `json:"rules"`
	Alerts        string   `json:"alerts"`
	Notifications []string `json:"notifications"`
	Samples       []string `json:"samples"`
}

func compareRulerRecordings(t *testing.T, want, got rulerRecording) {
	t.Helper()
	if got.Rules != want.Rules {
		t.Errorf("/prometheus/api/v1/rules\n got %s\nwant %s", got.Rules, want.Rules)
	}
	if got.Alerts != want.Alerts {
		t.Errorf("/prometheus/api/v1/alerts\n got %s\nwant %s", got.Alerts, want.Alerts)
	}
	diffLists(t, "notifications", got.Notifications, want.Notifications)
	diffLists(t, "samples", got.Samples, want.Samples)
}

func diffLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	var extra, missing []string
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	if len(extra)+len(missing) > 0 || len(got) != len(want) {
		t.Errorf("%s: %d, want %d\nnot in Loki's:\n  %s\nmissing:\n  %s", what, len(got), len(want),
			strings.Join(extra, "\n  "), strings.Join(missing, "\n  "))
	}
}

// rulerSide is one ruler under the scenario: how to push, load the rule
// file, and ask its API; its outputs go to outs under key.
type rulerSide struct {
	push     func(body []byte)
	load     func(rules []byte)
	get      func(path string) []byte
	outs     *rulerOutputs
	key      string
	rulePath string
}

// rulerWindow is how long after the anchor samples are compared.
const rulerWindow = 60 * time.Second

// runRulerScenario pushes the data, loads the rules, waits until A+60s
// and a quiet instant after it, and returns what the ruler produced.
func runRulerScenario(t *testing.T, s rulerSide, rules []byte) rulerRecording {
	a := rulerAnchor(time.Now())
	for _, body := range rulerData(a) {
		s.push(body)
	}
	s.load(rules)
	snap := quietInstant(a.Add(rulerWindow+time.Second), s.rulePath)
	time.Sleep(time.Until(snap))
	rec := rulerRecording{RulePath: s.rulePath, SnapshotAt: snap.Sub(a).String(),
		Rules:  relativeTimes(s.get("/prometheus/api/v1/rules"), a),
		Alerts: relativeTimes(s.get("/prometheus/api/v1/alerts"), a)}
	// Remote write sends within its batch deadline (5s, Prometheus').
	time.Sleep(time.Until(a.Add(rulerWindow + 8*time.Second)))
	rec.Notifications = s.outs.notifications(s.key, a)
	rec.Samples = s.outs.samples(s.key, a)
	return rec
}

// rulerAnchor is the first multiple of 30s at least 25s away: the rules
// are evaluated a few times before the data begins (A-5s), as both rulers
// need (Prometheus writes ALERTS from a group's third evaluation).
func rulerAnchor(now time.Time) time.Time {
	return now.Add(25 * time.Second).Truncate(30 * time.Second).Add(30 * time.Second)
}

// rulerGroups are the groups of the rule file: name and interval.
var rulerGroups = []struct {
	name     string
	interval time.Duration
}{{"records", 10 * time.Second}, {"alerts", 5 * time.Second}, {"broken", 10 * time.Second}, {"limited", 10 * time.Second}}

// quietInstant is the first instant from t at least 1.5s after the last
// slot of every group: both rulers have finished the same evaluations.
func quietInstant(t time.Time, rulePath string) time.Time {
	for ; ; t = t.Add(100 * time.Millisecond) {
		quiet := true
		for _, g := range rulerGroups {
			off := eval.SlotOffset(rulePath, "fake", "parity", g.name, g.interval)
			since := time.Duration(t.UnixNano()-int64(off)) % g.interval
			if since < 1500*time.Millisecond {
				quiet = false
			}
		}
		if quiet {
			return t
		}
	}
}

// rulerData are the pushes (Loki's JSON push bodies), relative to a.
func rulerData(a time.Time) [][]byte {
	var api, web [][]string
	for i := range 30 {
		level := "info"
		if i%3 == 0 {
			level = "error"
		}
		api = append(api, []string{ns(a.Add(time.Duration(i-5) * time.Second)),
			fmt.Sprintf("level=%s latency_ms=%d msg=\"api request %d\"", level, 10+(i*37)%90, i)})
	}
	for i := range 11 {
		web = append(web, []string{ns(a.Add(time.Duration(2*i) * time.Second)), fmt.Sprintf("level=info latency_ms=%d msg=\"page %d\"", 5+i*3, i)})
	}
	var many []map[string]any
	for i := range 501 {
		many = append(many, map[string]any{"stream": map[string]string{"job": "rp-many", "n": strconv.Itoa(i)},
			"values": [][]string{{ns(a.Add(-2 * time.Second)), "x"}}})
	}
	one := func(streams ...map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"streams": streams})
		return b
	}
	return [][]byte{
		one(map[string]any{"stream": map[string]string{"job": "rp", "app": "api"}, "values": api},
			map[string]any{"stream": map[string]string{"job": "rp", "app": "web"}, "values": web}),
		one(many...),
	}
}

var (
	wallClockField = regexp.MustCompile(`"(lastEvaluation|evaluationTime)":("[^"]*"|[0-9.e+-]+)`)
	activeAtField  = regexp.MustCompile(`"activeAt":"([^"]*)"`)
)

// relativeTimes masks an API answer's wall-clock fields and writes
// activeAt relative to a.
func relativeTimes(body []byte, a time.Time) string {
	s := wallClockField.ReplaceAllString(string(body), `"$1":"*"`)
	return activeAtField.ReplaceAllStringFunc(s, func(m string) string {
		at, err := time.Parse(time.RFC3339Nano, activeAtField.FindStringSubmatch(m)[1])
		if err != nil {
			return m
		}
		return `"activeAt":"A` + signed(at.Sub(a)) + `"`
	})
}

func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// rulerOutputs capture notifications and remote-written samples, per key
// (one per ruler).
type rulerOutputs struct {
	srv   *httptest.Server
	mu    sync.Mutex
	notes map[string][]capturedNote
	samp  map[string][]capturedSample
	// forward, by key, is the real receiver each write is passed on to;
	// a write counts once the receiver took it.
	forward map[string]string
}

type capturedNote struct {
	tenant string
	alert  map[string]any
}

type capturedSample struct {
	tenant, labels string
	metric         map[string]string
	ts             int64
	v              float64
}

func newRulerOutputs(t *testing.T) *rulerOutputs {
	o := &rulerOutputs{notes: map[string][]capturedNote{}, samp: map[string][]capturedSample{}, forward: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /am/{key}/api/v2/alerts", o.alerts)
	mux.HandleFunc("POST /rw/{key}", o.write)
	o.srv = httptest.NewServer(mux)
	t.Cleanup(o.srv.Close)
	return o
}

func (o *rulerOutputs) amURL(key string) string { return o.srv.URL + "/am/" + key }
func (o *rulerOutputs) rwURL(key string) string { return o.srv.URL + "/rw/" + key }

func (o *rulerOutputs) alerts(w http.ResponseWriter, r *http.Request) {
	var alerts []map[string]any
	if err := json.NewDecoder(r.Body).Decode(&alerts); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, a := range alerts {
		o.notes[r.PathValue("key")] = append(o.notes[r.PathValue("key")], capturedNote{r.Header.Get("X-Scope-OrgID"), a})
	}
}

func (o *rulerOutputs) write(w http.ResponseWriter, r *http.Request) {
	req, b, ok := readRemoteWrite(w, r)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if to := o.forward[r.PathValue("key")]; to != "" && !passOn(w, r, to, b) {
		return
	}
	for _, ts := range req.Timeseries {
		var ls []string
		m := map[string]string{}
		for _, l := range ts.Labels {
			ls = append(ls, l.Name+"="+strconv.Quote(l.Value))
			m[l.Name] = l.Value
		}
		for _, s := range ts.Samples {
			o.samp[r.PathValue("key")] = append(o.samp[r.PathValue("key")],
				capturedSample{r.Header.Get("X-Scope-OrgID"), "{" + strings.Join(ls, ",") + "}", m, s.Timestamp, s.Value})
		}
	}
}

// passOn sends a remote write on to url and answers as its receiver did;
// it reports whether the receiver took it.
func passOn(w http.ResponseWriter, r *http.Request, url string, body []byte) bool {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return false
	}
	for _, h := range []string{"Content-Encoding", "Content-Type", "X-Prometheus-Remote-Write-Version", "X-Scope-OrgID"} {
		req.Header.Set(h, r.Header.Get(h))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return false
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
	return resp.StatusCode/100 == 2
}

// notifications are the distinct alerts sent, with times relative to a.
func (o *rulerOutputs) notifications(key string, a time.Time) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	seen := map[string]bool{}
	for _, n := range o.notes[key] {
		al := map[string]any{}
		for k, v := range n.alert {
			al[k] = v
		}
		for _, f := range []string{"startsAt", "endsAt"} {
			if s, ok := al[f].(string); ok {
				if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
					al[f] = "A" + signed(at.Sub(a))
				}
			}
		}
		b, _ := json.Marshal(al)
		seen["tenant="+n.tenant+" "+string(b)] = true
	}
	return sortedKeys(seen)
}

// samples are the remote-written samples from a to a+60s, with
// timestamps relative to a; ALERTS_FOR_STATE's value (activeAt, in
// seconds) too. A sample written twice is listed twice.
func (o *rulerOutputs) samples(key string, a time.Time) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, s := range o.samp[key] {
		at := time.UnixMilli(s.ts)
		if at.Before(a) || at.After(a.Add(rulerWindow)) {
			continue
		}
		v := strconv.FormatFloat(s.v, 'g', -1, 64)
		switch {
		case value.IsStaleNaN(s.v):
			v = "stale"
		case math.IsNaN(s.v):
			v = "NaN"
		case strings.HasPrefix(s.labels, `{__name__="ALERTS_FOR_STATE"`):
			v = "A" + signed(time.Duration((s.v-float64(a.Unix()))*float64(time.Second)))
		}
		out = append(out, fmt.Sprintf("tenant=%s %s @A%s %s", s.tenant, s.labels, signed(at.Sub(a)), v))
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeRuleFile puts the namespace file "parity" of tenant "fake" into a
// local rule store at once (a directory renamed into place), as an
// operator deploying rule files would.
func writeRuleFile(t *testing.T, dir string, rules []byte) {
	tmp, err := os.MkdirTemp(dir, ".new-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "parity"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "fake")); err != nil {
		t.Fatal(err)
	}
}

// recordLokiRuler runs the scenario against a fresh Loki v3.7.8 with its
// ruler on (scripts/loki-run.sh with parity/loki-ruler-config.yaml); only
// with VLOKI_BUILD_LOKI=1 (make ruler-record), as Loki is AGPL.
func recordLokiRuler(t *testing.T, rules []byte) rulerRecording {
	if os.Getenv("VLOKI_BUILD_LOKI") != "1" {
		t.Fatal("recording runs Loki: VLOKI_BUILD_LOKI=1 (make ruler-record)")
	}
	outs := newRulerOutputs(t)
	cmd := exec.Command("../../../scripts/loki-run.sh")
	cmd.Env = append(os.Environ(), "LOKI_CONFIG="+mustAbs(t, "../../../parity/loki-ruler-config.yaml"),
		"RULER_AM_URLS="+outs.amURL("loki"), "RULER_RW_URL="+outs.rwURL("loki"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("loki-run: %v", err)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			vars[k] = v
		}
	}
	pid, _ := strconv.Atoi(vars["LOKI_PID"])
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
			_, _ = p.Wait()
		}
		_ = os.RemoveAll(vars["LOKI_DATA"])
	})
	url, data := vars["LOKI_URL"], vars["LOKI_DATA"]
	if err := os.MkdirAll(filepath.Join(data, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	get := func(path string) []byte {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	return runRulerScenario(t, rulerSide{
		push: func(body []byte) {
			resp, err := http.Post(url+"/loki/api/v1/push", "application/json", bytes.NewReader(body))
			if err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("push to Loki: %v %v", err, resp)
			}
			resp.Body.Close()
		},
		load:     func(b []byte) { writeRuleFile(t, filepath.Join(data, "rules"), b) },
		get:      get,
		outs:     outs,
		key:      "loki",
		rulePath: filepath.Join(data, "rules-temp"),
	}, rules)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
