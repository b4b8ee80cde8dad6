// Package deploy tests the Helm chart with Helm's own Go library, apart
// from vloki's module so that vloki does not depend on Helm.
package deploy

import (
	"errors"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

const chartDir = "helm/vloki"

// TestChartLints: helm lint finds nothing to report, in both modes and
// with rule files.
func TestChartLints(t *testing.T) {
	ruler := map[string]any{"ruler": map[string]any{"rules": map[string]any{"fake": map[string]any{"a.yaml": "groups: []\n"}},
		"alertmanagerURL": "http://am:9093", "remoteWrite": map[string]any{"url": "http://vm/api/v1/write"}}}
	for name, vals := range map[string]map[string]any{"single": nil, "cluster": clusterValues(), "ruler": ruler} {
		linter := lint.AllWithKubeVersion(chartDir, vals, "logs", nil)
		for _, m := range linter.Messages {
			if m.Severity > support.InfoSev {
				t.Errorf("%s: %s", name, m)
			}
		}
	}
}

// TestSingleMode: one StatefulSet with a volume for the embedded engine,
// probes on /ready, a non-root pod, vloki flags that exist.
func TestSingleMode(t *testing.T) {
	objs := render(t, nil)
	kinds := kindsOf(objs)
	if want := []string{"Service", "Service", "StatefulSet"}; strings.Join(kinds, ",") != strings.Join(want, ",") {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	sts := only[*appsv1.StatefulSet](t, objs)
	if *sts.Spec.Replicas != 1 || len(sts.Spec.VolumeClaimTemplates) != 1 {
		t.Errorf("want one replica with a volume claim, have %d, %d", *sts.Spec.Replicas, len(sts.Spec.VolumeClaimTemplates))
	}
	checkPod(t, sts.Spec.Template.Spec)
	c := sts.Spec.Template.Spec.Containers[0]
	if !contains(c.Args, "-storage.path=/data") || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/data" {
		t.Errorf("the embedded engine's data is not on the volume: args %v, mounts %v", c.Args, c.VolumeMounts)
	}
}

// TestClusterMode: a Deployment of replicas on vlinsert/vlselect with a
// shared memcached, a PodDisruptionBudget and a ServiceMonitor.
func TestClusterMode(t *testing.T) {
	objs := render(t, clusterValues())
	dep := only[*appsv1.Deployment](t, objs)
	if *dep.Spec.Replicas != 3 {
		t.Errorf("replicas %d, want 3", *dep.Spec.Replicas)
	}
	checkPod(t, dep.Spec.Template.Spec)
	args := dep.Spec.Template.Spec.Containers[0].Args
	for _, want := range []string{"-backend.insert-url=http://vlinsert:9481", "-backend.select-url=http://vlselect:9471",
		"-frontend.results-cache-backend=memcached", "-frontend.memcached-addresses=memcached-0:11211,memcached-1:11211"} {
		if !contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	pdb := only[*policyv1.PodDisruptionBudget](t, objs)
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget maxUnavailable %v", pdb.Spec.MaxUnavailable)
	}
	sm := only[*unstructured.Unstructured](t, objs)
	if sm.GetKind() != "ServiceMonitor" || sm.GetAPIVersion() != "monitoring.coreos.com/v1" {
		t.Fatalf("unexpected %s %s", sm.GetAPIVersion(), sm.GetKind())
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != "http" || endpoints[0].(map[string]any)["path"] != "/metrics" {
		t.Errorf("ServiceMonitor endpoints %v", endpoints)
	}
	svc := only[*corev1.Service](t, objs)
	if svc.Spec.Ports[0].Name != "http" || svc.Spec.Ports[0].Port != 3100 {
		t.Errorf("Service ports %v", svc.Spec.Ports)
	}
}

// TestClusterModeNeedsURLs: a cluster without vlinsert/vlselect URLs, or an
// unknown mode, does not render.
func TestClusterModeNeedsURLs(t *testing.T) {
	for _, vals := range []map[string]any{{"mode": "cluster"}, {"mode": "both"}} {
		if _, err := renderErr(vals); err == nil {
			t.Errorf("%v rendered", vals)
		}
	}
}

func clusterValues() map[string]any {
	return map[string]any{
		"mode": "cluster", "replicas": 3,
		"backend":        map[string]any{"insertURL": "http://vlinsert:9481", "selectURL": "http://vlselect:9471"},
		"resultsCache":   map[string]any{"backend": "memcached", "memcachedAddresses": []any{"memcached-0:11211", "memcached-1:11211"}},
		"serviceMonitor": map[string]any{"enabled": true},
	}
}

// checkPod: probes on /ready, a non-root pod, and flags vloki documents.
func checkPod(t *testing.T, spec corev1.PodSpec) {
	t.Helper()
	if spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil || !*spec.SecurityContext.RunAsNonRoot {
		t.Error("the pod may run as root")
	}
	c := spec.Containers[0]
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/ready" {
			t.Errorf("%s probe %v does not ask /ready", name, p)
		}
	}
	flags := documentedFlags(t)
	for _, a := range c.Args {
		name, _, _ := strings.Cut(a, "=")
		if !flags[name] {
			t.Errorf("arg %s: no such vloki flag in docs/configuration.md", a)
		}
	}
}

// documentedFlags are the flags of docs/configuration.md, which vloki's
// own tests keep equal to its flag definitions.
func documentedFlags(t *testing.T) map[string]bool {
	raw, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(-[a-z.-]+)`").FindAllStringSubmatch(string(raw), -1) {
		out[m[1]] = true
	}
	if len(out) < 10 {
		t.Fatalf("only %d flags in docs/configuration.md", len(out))
	}
	return out
}

func render(t *testing.T, vals map[string]any) []runtime.Object {
	t.Helper()
	objs, err := renderErr(vals)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// renderErr renders the chart and decodes every object strictly: typed
// for Kubernetes' own kinds, unstructured (with apiVersion, kind and
// name) for the others.
func renderErr(vals map[string]any) ([]runtime.Object, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	values, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "vloki", Namespace: "logs", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, values)
	if err != nil {
		return nil, err
	}
	return decodeAll(ch, files)
}

func decodeAll(ch *chart.Chart, files map[string]string) ([]runtime.Object, error) {
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []runtime.Object
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(files[n], "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
				continue
			}
			obj, err := decode(strict, []byte(doc))
			if err != nil {
				return nil, &decodeError{file: n, err: err}
			}
			out = append(out, obj)
		}
	}
	return out, nil
}

func decode(strict runtime.Decoder, doc []byte) (runtime.Object, error) {
	obj, _, err := strict.Decode(doc, nil, nil)
	if err == nil {
		return obj, nil
	}
	if !runtime.IsNotRegisteredError(err) {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	if err := u.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	if u.GetName() == "" {
		return nil, &decodeError{file: u.GetKind(), err: errNoName}
	}
	return u, nil
}

type decodeError struct {
	file string
	err  error
}

func (e *decodeError) Error() string { return e.file + ": " + e.err.Error() }

var errNoName = errors.New("an object without metadata.name")

func kindsOf(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetObjectKind().GroupVersionKind().Kind)
	}
	sort.Strings(out)
	return out
}

func only[T runtime.Object](t *testing.T, objs []runtime.Object) T {
	t.Helper()
	var found []T
	for _, o := range objs {
		if x, ok := o.(T); ok {
			found = append(found, x)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("want one %T, have %d", zero, len(found))
	}
	return found[0]
}

func contains(args []string, want string) bool {
	for _, a := range args {
		if a == want {
			return true
		}
	}
	return false
}

// TestRulerRules: rule files given as values are one ConfigMap per
// tenant, mounted read-only at <rule dir>/<tenant> (Loki's local layout,
// Kubernetes' ..data entries inside the tenant's directory, which the
// rule store skips), with the outputs' flags.
func TestRulerRules(t *testing.T) {
	rules := map[string]any{
		"fake":   map[string]any{"app.yaml": "groups:\n  - name: app\n    rules:\n      - record: a\n        expr: vector(1)\n"},
		"team-b": map[string]any{"one.yaml": "groups: []\n", "two.yaml": "groups: []\n"},
	}
	objs := render(t, map[string]any{"ruler": map[string]any{"rules": rules, "alertmanagerURL": "http://am:9093",
		"externalURL": "https://grafana.example", "datasourceUID": "loki", "evaluationInterval": "30s",
		"remoteWrite": map[string]any{"url": "http://vm:8428/api/v1/write"}}})
	sts := only[*appsv1.StatefulSet](t, objs)
	spec := sts.Spec.Template.Spec
	checkPod(t, spec)
	c := spec.Containers[0]
	for _, want := range []string{"-ruler.storage.local.directory=/etc/vloki/rules", "-ruler.storage.local.read-only=true",
		"-ruler.alertmanager-url=http://am:9093", "-ruler.external-url=https://grafana.example", "-ruler.datasource-uid=loki",
		"-ruler.evaluation-interval=30s", "-ruler.remote-write.enabled=true", "-ruler.remote-write.url=http://vm:8428/api/v1/write"} {
		if !contains(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	maps := map[string]*corev1.ConfigMap{}
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			maps[cm.Name] = cm
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
		if m.Name != "data" && !m.ReadOnly {
			t.Errorf("rule mount %s is writable", m.Name)
		}
	}
	for _, v := range spec.Volumes {
		if v.ConfigMap == nil || maps[v.ConfigMap.Name] == nil {
			t.Errorf("volume %s: no ConfigMap of the chart", v.Name)
			continue
		}
		tenant := strings.TrimPrefix(mounts[v.Name], "/etc/vloki/rules/")
		want, _ := rules[tenant].(map[string]any)
		got := maps[v.ConfigMap.Name].Data
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("tenant %q (%s): files %v, want %v", tenant, mounts[v.Name], got, want)
		}
		for f, body := range want {
			if got[f] != body {
				t.Errorf("tenant %s, file %s: %q, want %q", tenant, f, got[f], body)
			}
		}
	}
	if len(spec.Volumes) != 2 || len(maps) != 2 || mounts["data"] != "/data" {
		t.Errorf("volumes %v, ConfigMaps %d, mounts %v", spec.Volumes, len(maps), mounts)
	}
}

// TestRulerStorage: without rule files, rules are written through the API
// on the data volume (single) or on a shared claim; cluster replicas
// without one serve none, and keep their WAL on an emptyDir.
func TestRulerStorage(t *testing.T) {
	single := only[*appsv1.StatefulSet](t, render(t, nil)).Spec.Template.Spec
	for _, a := range single.Containers[0].Args {
		if strings.HasPrefix(a, "-ruler.") {
			t.Errorf("single mode's defaults need no ruler flag, have %s", a)
		}
	}
	claim := clusterValues()
	claim["ruler"] = map[string]any{"existingClaim": "shared-rules", "remoteWrite": map[string]any{"url": "http://vm/api/v1/write"}}
	spec := only[*appsv1.Deployment](t, render(t, claim)).Spec.Template.Spec
	checkPod(t, spec)
	args := spec.Containers[0].Args
	for _, want := range []string{"-ruler.storage.local.directory=/var/lib/vloki-rules", "-ruler.wal.dir=/var/lib/vloki-ruler/wal"} {
		if !contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	if contains(args, "-ruler.storage.local.read-only=true") {
		t.Error("rules on a shared claim are read-only")
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	if v := volumes["rules"]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "shared-rules" || volumes["ruler"].EmptyDir == nil {
		t.Errorf("volumes %v", spec.Volumes)
	}
	none := only[*appsv1.Deployment](t, render(t, clusterValues())).Spec.Template.Spec
	if args := none.Containers[0].Args; !contains(args, "-ruler.storage.local.read-only=true") || !contains(args, "-ruler.storage.local.directory=/var/lib/vloki-ruler/rules") {
		t.Errorf("cluster mode without a claim: args %v", args)
	}
	off := only[*appsv1.StatefulSet](t, render(t, map[string]any{"ruler": map[string]any{"enabled": false, "rules": map[string]any{"fake": map[string]any{"a.yaml": "groups: []\n"}}}}))
	if c := off.Spec.Template.Spec.Containers[0]; !contains(c.Args, "-ruler.enable-api=false") || len(c.VolumeMounts) != 1 || len(off.Spec.Template.Spec.Volumes) != 0 {
		t.Errorf("ruler off: args %v, mounts %v", c.Args, c.VolumeMounts)
	}
}
