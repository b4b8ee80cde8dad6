package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRulesBackfillAsksTheServer: the CLI posts the range and filters
// with the tenant, prints the answer, and fails on an error status.
func TestRulesBackfillAsksTheServer(t *testing.T) {
	var got *http.Request
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"status":"success","data":{"samples":3}}`+"\n")
	}))
	defer srv.Close()
	var out bytes.Buffer
	args := []string{"backfill", "-url", srv.URL + "/", "-start", "2026-01-01T00:00:00Z", "-end", "1767229200", "-tenant", "team-a", "-namespace", "ns/1", "-group", "g"}
	if err := runRules(args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got.Method != http.MethodPost || got.URL.Path != "/ruler/backfill" || got.Header.Get("X-Scope-OrgID") != "team-a" ||
		got.URL.Query().Get("start") != "2026-01-01T00:00:00Z" || got.URL.Query().Get("end") != "1767229200" ||
		got.URL.Query().Get("namespace") != "ns/1" || got.URL.Query().Get("group") != "g" {
		t.Errorf("request: %s %s %v", got.Method, got.URL, got.Header)
	}
	if out.String() != `{"status":"success","data":{"samples":3}}`+"\n" {
		t.Errorf("printed %q", out.String())
	}
	status = http.StatusConflict
	if err := runRules(args, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "409") {
		t.Errorf("conflict: %v", err)
	}
	if err := runRules([]string{"backfill", "-url", srv.URL}, io.Discard, io.Discard); err == nil {
		t.Error("no range accepted")
	}
	if err := runRules([]string{"other"}, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}
