package eval

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
)

func rwConfig(name, raw string) *config.RemoteWriteConfig {
	u, _ := url.Parse(raw)
	c := config.DefaultRemoteWriteConfig
	c.Name, c.URL = name, &commoncfg.URL{URL: u}
	return &c
}

// TestSentLogFile: what a receiver took survives in the file beside the
// WAL; a client met for the first time (or at another URL) has nothing to
// resend, and its floor is its start; series acknowledged longer than the
// WAL's max age ago are forgotten and the floor rises there.
func TestSentLogFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), sentFileName)
	start := time.UnixMilli(1_000_000_000_000)
	cfgs := []*config.RemoteWriteConfig{rwConfig("t-rw-a", "http://user:secret@a/w"), rwConfig("t-rw-b", "http://b/w")}
	logs, err := loadSentLogs(path, cfgs, start)
	if err != nil {
		t.Fatal(err)
	}
	a := logs["t-rw-a"]
	if a.resend || a.floor != start.UnixMilli() || a.pending("x", start.UnixMilli()) || !a.pending("x", start.UnixMilli()+1) {
		t.Fatalf("first start: resend %v floor %d", a.resend, a.floor)
	}
	m, old := labels.FromStrings("__name__", "m"), labels.FromStrings("__name__", "old")
	a.ack(m, start.UnixMilli()+5000)
	a.ack(m, start.UnixMilli()+3000) // an older acknowledgement changes nothing
	a.ack(old, start.UnixMilli()+1)
	if err := saveSentLogs(path, logs, start, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); len(b) == 0 || bytes.Contains(b, []byte("secret")) {
		t.Fatalf("file %s", b)
	}

	again, err := loadSentLogs(path, cfgs, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	a = again["t-rw-a"]
	k := seriesKey(m)
	if !a.resend || a.pending(k, start.UnixMilli()+5000) || !a.pending(k, start.UnixMilli()+5001) || !a.pending(seriesKey(labels.FromStrings("__name__", "new")), start.UnixMilli()+1) {
		t.Fatalf("after a restart: %+v", a.series)
	}

	moved := []*config.RemoteWriteConfig{rwConfig("t-rw-a", "http://elsewhere/w")}
	if l, _ := loadSentLogs(path, moved, start.Add(time.Minute)); l["t-rw-a"].resend {
		t.Error("a client at another URL resends")
	}

	// Four hours later the old series is forgotten, the floor rises.
	later := start.Add(maxResendAge).Add(2 * time.Millisecond)
	if err := saveSentLogs(path, again, later, false); err != nil {
		t.Fatal(err)
	}
	last, _ := loadSentLogs(path, cfgs, later)
	a = last["t-rw-a"]
	if a.floor != later.Add(-maxResendAge).UnixMilli() || len(a.series) != 1 || a.pending(k, start.UnixMilli()+5000) {
		t.Errorf("after the horizon: floor %d, series %v", a.floor, a.series)
	}
}

// TestRelayTaken: the queue is done with a request the receiver took
// (2xx) or refused for good (4xx; a 429 only without retry_on_http_429);
// it retries the others, which are not noted as taken.
func TestRelayTaken(t *testing.T) {
	for _, c := range []struct {
		status    int
		retry429  bool
		wantTaken bool
	}{
		{200, false, true}, {204, false, true}, {400, false, true}, {404, true, true},
		{429, false, true}, {429, true, false}, {500, false, false}, {503, true, false},
	} {
		cfg := rwConfig("q", "http://r/w")
		cfg.QueueConfig.RetryOnRateLimit = c.retry429
		if got := (&relayRoute{cfg: cfg}).taken(c.status); got != c.wantTaken {
			t.Errorf("status %d, retry_on_http_429 %v: taken %v", c.status, c.retry429, got)
		}
	}
}
