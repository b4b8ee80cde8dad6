package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/vloki/vloki/internal/parity"
)

// lokiGolden returns what Loki answered, kept in testdata/name. When
// lokiURL is set (a make target started Loki), it records instead: send
// pushes to that Loki, asks the queries, writes the file, and returns
// false, so the test stops there.
func lokiGolden[P any](t *testing.T, name, lokiURL string, send func(base string) P, queries []parity.Case) (pushes P, answers []parity.Answer, compare bool) {
	t.Helper()
	type record struct {
		Pushes  P               `json:"pushes"`
		Answers []parity.Answer `json:"answers"`
	}
	path := filepath.Join("testdata", name)
	if lokiURL != "" {
		rec := record{Pushes: send(lokiURL)}
		rec.Answers = askAll(t, lokiURL, "", queries)
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return pushes, nil, false
	}
	var rec record
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Pushes, rec.Answers, true
}

// askAll asks every query of a tenant.
func askAll(t *testing.T, base, tenant string, queries []parity.Case) []parity.Answer {
	t.Helper()
	var out []parity.Answer
	for _, c := range queries {
		a, err := parity.Ask(context.Background(), base, tenant, c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// compareAnswers reports every answer of vloki's that differs from Loki's.
func compareAnswers(t *testing.T, base, tenant string, queries []parity.Case, loki []parity.Answer) {
	t.Helper()
	for i, a := range askAll(t, base, tenant, queries) {
		if d := parity.Compare(queries[i], loki[i], a); d != nil {
			t.Errorf("%s: %v", queries[i].ID, d)
		}
	}
}
