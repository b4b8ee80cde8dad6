package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/parity"
	"github.com/vloki/vloki/internal/testing/vltest"
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
		for _, a := range askAll(t, lokiURL, "", queries) {
			rec.Answers = append(rec.Answers, parity.WithoutStats(a))
		}
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

// pushesMatchLoki sends JSON pushes and asks queries, comparing push
// statuses and answers with Loki's kept in testdata/golden; with the
// environment variable recordEnv naming a Loki (a make target started
// one), it records them instead. change configures vloki (nil: none).
func pushesMatchLoki(t *testing.T, golden, recordEnv string, pushes []string, queries []parity.Case, change func(*config.Config)) {
	t.Helper()
	lokiPushes, lokiAnswers, compare := lokiGolden(t, golden, os.Getenv(recordEnv),
		func(base string) []int {
			statuses := sendPushes(t, base, "", pushes)
			time.Sleep(2 * time.Second) // Loki's ingesters answer at once; a margin anyway
			return statuses
		}, queries)
	if !compare {
		return
	}
	if change == nil {
		change = func(*config.Config) {}
	}
	for _, tg := range targetsWith(t, change) {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("golden%d", time.Now().UnixNano()) // the embedded engine outlives one run
			if got := sendPushes(t, tg.url, tenant, pushes); fmt.Sprint(got) != fmt.Sprint(lokiPushes) {
				t.Errorf("push statuses %v, Loki %v", got, lokiPushes)
			}
			vltest.Flush(t, tg.vl)
			compareAnswers(t, tg.url, tenant, queries, lokiAnswers)
		})
	}
}

// anchoredAt gives the Unix ns, as text, of s seconds after the parity
// anchor plus from: the times of recorded pushes.
func anchoredAt(from time.Duration) func(s int) string {
	return func(s int) string {
		return fmt.Sprint(parity.Anchor.Add(from + time.Duration(s)*time.Second).UnixNano())
	}
}
