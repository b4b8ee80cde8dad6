package eval

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/tsdb/agent"

	"github.com/vloki/vloki/internal/storage/atomicfile"
)

// sentFileName is the file beside a tenant's WAL that says, for each
// remote write client, which of the WAL's samples its receiver has
// acknowledged, so that a restart resends exactly the others.
const sentFileName = "remote-write-sent.json"

// maxResendAge is how old a sample may be and still be resent after a
// restart: the agent WAL's MaxWALTime (4h), past which its truncation
// drops samples whatever was sent.
var maxResendAge = time.Duration(agent.DefaultMaxWALTime) * time.Millisecond

// sentLog is what one client's receiver has acknowledged: each series'
// highest sample timestamp, and a floor at or below which every sample
// counts as handled. Exact because a series' samples reach the WAL in
// timestamp order (the WAL refuses one not newer than the series' last),
// and Prometheus' queue keeps each series' samples in WAL order; the
// replay and the live queue never send the same client's samples at
// once (the relay holds the queue until the replay is done).
type sentLog struct {
	name, url string
	mu        sync.Mutex
	floor     int64
	series    map[string]sentSeries
	dirty     bool
	// resend says an earlier run's samples may wait in the WAL (the log
	// was found for this client); replayed is closed once they are sent.
	resend   bool
	replayed chan struct{}
	once     sync.Once
}

type sentSeries struct {
	l labels.Labels
	t int64
}

func newSentLog(name, url string, floor int64) *sentLog {
	return &sentLog{name: name, url: url, floor: floor, series: map[string]sentSeries{}, replayed: make(chan struct{})}
}

func seriesKey(l labels.Labels) string { return string(l.Bytes(nil)) }

// pending says whether the series' sample at t has not been handled.
func (s *sentLog) pending(key string, t int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return t > s.floor && t > s.series[key].t
}

// ack notes that the receiver took (or refused for good) the series'
// samples up to t.
func (s *sentLog) ack(l labels.Labels, t int64) {
	key := seriesKey(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.series[key]; !ok || t > old.t {
		s.series[key] = sentSeries{l: l, t: t}
		s.dirty = true
	}
}

// replayDone opens the client's queue.
func (s *sentLog) replayDone() { s.once.Do(func() { close(s.replayed) }) }

// sentFile is the file's JSON.
type sentFile struct {
	Clients []sentClient `json:"clients"`
}

type sentClient struct {
	Name   string      `json:"name"`
	URL    string      `json:"url"` // redacted: a new receiver starts afresh
	Floor  int64       `json:"floor"`
	Series []sentEntry `json:"series"`
}

type sentEntry struct {
	Labels map[string]string `json:"labels"`
	T      int64             `json:"t"`
}

// loadSentLogs reads the tenant's file for the clients. A client not in
// it (the first start, a new client, another URL) has nothing to resend:
// its floor is now, so this run's earlier samples count as handled, as
// Prometheus' queue treats them.
func loadSentLogs(path string, cfgs []*config.RemoteWriteConfig, now time.Time) (map[string]*sentLog, error) {
	var file sentFile
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(b, &file); err != nil {
			return nil, err
		}
	}
	saved := map[string]sentClient{}
	for _, c := range file.Clients {
		saved[c.Name] = c
	}
	logs := map[string]*sentLog{}
	for _, cfg := range cfgs {
		url := cfg.URL.Redacted()
		c, ok := saved[cfg.Name]
		if !ok || c.URL != url {
			logs[cfg.Name] = newSentLog(cfg.Name, url, now.UnixMilli())
			continue
		}
		l := newSentLog(cfg.Name, url, c.Floor)
		l.resend = true
		for _, e := range c.Series {
			ls := labels.FromMap(e.Labels)
			l.series[seriesKey(ls)] = sentSeries{l: ls, t: e.T}
		}
		logs[cfg.Name] = l
	}
	return logs, nil
}

// newSentLogs start afresh: nothing to resend.
func newSentLogs(cfgs []*config.RemoteWriteConfig, now time.Time) map[string]*sentLog {
	logs := map[string]*sentLog{}
	for _, cfg := range cfgs {
		logs[cfg.Name] = newSentLog(cfg.Name, cfg.URL.Redacted(), now.UnixMilli())
	}
	return logs
}

// saveSentLogs writes the file when a log changed, first forgetting
// series acknowledged longer than maxResendAge ago (their floor rises
// there: older samples are not resent anyway).
func saveSentLogs(path string, logs map[string]*sentLog, now time.Time, force bool) error {
	var file sentFile
	changed := force
	horizon := now.Add(-maxResendAge).UnixMilli()
	for _, l := range logs {
		c, dirty := l.snapshot(horizon)
		changed = changed || dirty
		file.Clients = append(file.Clients, c)
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(file)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}

func (s *sentLog) snapshot(horizon int64) (sentClient, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if horizon > s.floor {
		s.floor = horizon
		for k, e := range s.series {
			if e.t <= horizon {
				delete(s.series, k)
				s.dirty = true
			}
		}
	}
	c := sentClient{Name: s.name, URL: s.url, Floor: s.floor, Series: make([]sentEntry, 0, len(s.series))}
	for _, e := range s.series {
		c.Series = append(c.Series, sentEntry{Labels: e.l.Map(), T: e.t})
	}
	dirty := s.dirty
	s.dirty = false
	return c, dirty
}

func sentPath(dir string) string { return filepath.Join(dir, sentFileName) }
