package deletion

import (
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
)

func TestParseTimeAsLoki(t *testing.T) {
	for in, want := range map[string]int64{
		"1795674630":               1795674630000,
		"17956746.5":               17956746500,
		"0000000001":               1000,
		"2026-11-26T06:30:37Z":     1795674637000,
		"2026-11-26T06:30:37.123Z": 1795674637123,
	} {
		if got, ok := parseTime(in); !ok || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"1795674630000", "1795674630.5", "2026-11-26T06:30:37", "yesterday", ""} {
		if _, ok := parseTime(in); ok {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestListedAsLoki(t *testing.T) {
	r := Request{ID: "29d1559b", Query: `{foo="bar"} |= "<x>"`, StartMs: 1795674630000, EndMs: 1795678230000, CreatedMs: 1795681830384, Status: StatusReceived}
	got := string(Listed(nil, []Request{r}))
	want := `[{"request_id":"29d1559b","start_time":1795674630,"end_time":1795678230,"query":"{foo=\"bar\"} |= \"\u003cx\u003e\"","status":"received","created_at":1795681830.384,"user_id":""}]` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(Listed(nil, nil)); got != "[]\n" {
		t.Errorf("empty: %q", got)
	}
}

// TestStoreKeepsRequests: requests survive a reopen with their filter;
// cancelling follows Loki's rules.
func TestStoreKeepsRequests(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tn := tenant.ID{AccountID: 7, ProjectID: 1}
	now := time.Unix(1795681830, 0)
	nr, err := CreateParams{Query: `{app="a"} |= "x"`, Start: "1795674630", End: "1795678230"}.Decode(now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Add(tn, "tenant-a", nr, now)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hidden(tn) == nil || s.Hidden(tenant.ID{}) != nil {
		t.Fatal("hidden filters")
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.List(tn, 0, 0, false); len(got) != 1 || got[0].ID != r.ID || s2.Hidden(tn) == nil {
		t.Fatalf("reopened: %+v", got)
	}
	later := now.Add(25 * time.Hour)
	err = s2.Cancel(tn, r.ID, false, 24*time.Hour, later)
	if err == nil || !strings.HasPrefix(err.Error(), "Cancellation of partially completed delete request or delete request past the deadline of 24h0m0s") {
		t.Fatalf("past the cancel period: %v", err)
	}
	if err := s2.Cancel(tn, "nope", true, 24*time.Hour, later); err != ErrNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	if err := s2.Cancel(tn, r.ID, true, 24*time.Hour, later); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if s2.Hidden(tn) != nil || len(s2.List(tn, 0, 0, false)) != 0 || s2.Generation(tn) == "" {
		t.Fatal("after cancelling")
	}
}

// TestInexactQueriesRefused: a pipeline VictoriaLogs cannot match
// exactly (a parser) is refused rather than deleting other lines.
func TestInexactQueriesRefused(t *testing.T) {
	s, _ := Open(t.TempDir())
	now := time.Unix(1795681830, 0)
	nr, err := CreateParams{Query: `{app="a"} | json | level="x"`, Start: "1795674630"}.Decode(now, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(tenant.ID{}, "fake", nr, now); err == nil {
		t.Fatal("accepted")
	}
}
