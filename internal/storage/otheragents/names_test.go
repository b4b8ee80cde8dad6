package otheragents

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

func TestLokiNames(t *testing.T) {
	cases := map[string]string{
		"service.name":            "service_name",
		"k8s.pod.name":            "k8s_pod_name",
		"http.response.status":    "http_response_status",
		"already_fine":            "already_fine",
		"_private":                "_private",
		"1st":                     "key_1st",
		"a..b":                    "a_b",
		"log.file/path":           "log_file_path",
		"héllo":                   "h_llo",
		"__":                      "__",
		"":                        "",
		"user-agent.original.raw": "user_agent_original_raw",
	}
	for in, want := range cases {
		if got := Loki(in); got != want {
			t.Errorf("Loki(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMapListsTheIdenticalFieldFirst(t *testing.T) {
	m := New([]string{"service_name", "service.name", "service-name", "app", "k8s.pod.name"})
	cases := map[string][]string{
		"service_name": {"service_name", "service-name", "service.name"},
		"k8s_pod_name": {"k8s.pod.name"},
		"app":          {"app"},
		"missing":      {"missing"},
	}
	for name, want := range cases {
		if got := m.VL(name); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("VL(%q) = %q, want %q", name, got, want)
		}
	}
	if m.Renamed("app") || !m.Renamed("k8s_pod_name") || !m.Renamed("service_name") {
		t.Error("Renamed disagrees with VL")
	}
	var none *Map
	if got := none.VL("x"); fmt.Sprint(got) != "[x]" || none.Renamed("x") {
		t.Errorf("nil map: %q", got)
	}
}

func TestRenameKeepsTheIdenticalNameOnCollision(t *testing.T) {
	stored := lokidata.Labels{{Name: "a.b", Value: "dotted"}, {Name: "a_b", Value: "plain"}, {Name: "c.d", Value: "1"}, {Name: "app", Value: "x"}}
	stored.Sort()
	got := Rename(stored, lokidata.Labels{{Name: "app", Value: "stream"}})
	if want := `{a_b="plain", c_d="1"}`; got.String() != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestServiceNameDerivation(t *testing.T) {
	c := &Config{DiscoverServiceName: []string{"service", "app"}, Names: New([]string{"service.name", "app"})}
	cases := []struct{ stored, want string }{
		{`service.name=checkout,app=x`, `{app="x", service_name="checkout"}`},
		{`app=web`, `{app="web", service_name="web"}`},
		{`host=h1`, `{host="h1", service_name="unknown_service"}`},
	}
	for _, tc := range cases {
		var ls lokidata.Labels
		for _, pair := range strings.Split(tc.stored, ",") {
			name, value, _ := strings.Cut(pair, "=")
			ls = append(ls, lokidata.Label{Name: name, Value: value})
		}
		ls.Sort()
		if got := c.StreamLabels(ls).String(); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.stored, got, tc.want)
		}
	}
	if got := fmt.Sprint(c.ServiceChain()); got != "[service.name service app]" {
		t.Errorf("chain %s", got)
	}
}

func TestLineKeepsStoredNamesAndMarkup(t *testing.T) {
	got := Line(lokidata.Labels{{Name: "a.b", Value: "<x> & \"y\""}, {Name: "n", Value: "1"}})
	if want := `{"a.b":"<x> & \"y\"","n":"1"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
