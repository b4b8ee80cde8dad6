package eval

import (
	"net/url"
	"testing"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/prometheus/config"
)

// TestRemoteWriteClients: Loki's clients become the tenant's queues,
// named <tenant>-rw-<id>, without metadata or exemplars, with the
// tenant's X-Scope-OrgID in place of any a client sets.
func TestRemoteWriteClients(t *testing.T) {
	client := func(raw string, headers map[string]string) config.RemoteWriteConfig {
		c := config.DefaultRemoteWriteConfig
		u, _ := url.Parse(raw)
		c.URL, c.Headers, c.SendExemplars = &commoncfg.URL{URL: u}, headers, true
		return c
	}
	rw := RemoteWrite{Dir: t.TempDir(), Clients: map[string]config.RemoteWriteConfig{
		"b": client("http://b/w", map[string]string{" x-scope-orgid ": "other", "X-Custom": "1"}),
		"a": client("http://a/w", nil),
	}}
	if err := rw.checkClients(); err != nil {
		t.Fatal(err)
	}
	cfgs, err := rw.configs("t1")
	if err != nil || len(cfgs) != 2 {
		t.Fatal(cfgs, err)
	}
	a, b := cfgs[0], cfgs[1]
	if a.Name != "t1-rw-a" || b.Name != "t1-rw-b" || a.URL.String() != "http://a/w" || a.SendExemplars || a.MetadataConfig.Send {
		t.Errorf("queues %+v %+v", a, b)
	}
	if len(b.Headers) != 2 || b.Headers["X-Scope-OrgID"] != "t1" || b.Headers["X-Custom"] != "1" || a.Headers["X-Scope-OrgID"] != "t1" {
		t.Errorf("headers %v %v", a.Headers, b.Headers)
	}
	// The configured clients are left as they were.
	if rw.Clients["b"].Headers[" x-scope-orgid "] != "other" || rw.Clients["b"].Name != "" {
		t.Errorf("client changed: %+v", rw.Clients["b"])
	}
	rw.NoOrgIDHeader = true
	if cfgs, _ := rw.configs("t1"); len(cfgs[1].Headers) != 1 || cfgs[0].Headers["X-Scope-OrgID"] != "" {
		t.Errorf("add_org_id_header off: %v %v", cfgs[0].Headers, cfgs[1].Headers)
	}
	if err := (RemoteWrite{Clients: rw.Clients}).checkClients(); err == nil {
		t.Error("clients without a WAL directory accepted")
	}
}
