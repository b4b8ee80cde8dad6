// Package canary is vloki's own end-to-end checker, written from the
// documented behaviour of Loki's loki-canary (its flags, metric names and
// the checks its documentation describes; none of its code): it pushes an
// entry every interval, a share of them stamped in the past; follows them
// through a WebSocket tail; queries for the entries the tail missed;
// spot-checks past entries with queries; runs a count_over_time metric
// test of its own stream; and counts reconnects, duplicates,
// websocket-missing, unexpected and missing entries under loki-canary's
// metric names, so its figures compare with the ones loki-canary reported
// against Loki.
//
// Where it knows more than loki-canary it checks more: an entry counts as
// sent before its push starts and expires by its send time, not its
// timestamp (a back-stamped entry is never "late" before it was pushed);
// a run has an end, after which every entry it sent is accounted for
// (received, found by query or missing); an entry counts out of order
// when the tail delivers it after one sent later (an entry never
// delivered reorders nothing); and the metric test also compares the
// count with the exact number of entries acknowledged in the query's
// window (vloki reads its own writes).
package canary

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Config are the checker's settings. The fields named after loki-canary
// flags mean what those flags mean; Bind registers them under the same
// names.
type Config struct {
	// Addr is the server: host:port (loki-canary's form) or a URL.
	Addr     string
	TenantID string

	LabelName, LabelValue   string
	StreamName, StreamValue string

	Interval             time.Duration // between entries
	Size                 int           // bytes of each line
	OutOfOrderPercentage int           // share of entries stamped in the past
	OutOfOrderMin        time.Duration // how far back, at least
	OutOfOrderMax        time.Duration // how far back, at most

	Wait          time.Duration // on the tail, before an entry is asked for by query
	MaxWait       time.Duration // asked for by query, before it counts as missing
	PruneInterval time.Duration // how often the tail's misses are collected and queried

	SpotCheckInterval    time.Duration // one entry kept for spot checks this often
	SpotCheckMax         time.Duration // how long an entry stays spot-checked
	SpotCheckQueryRate   time.Duration // how often every kept entry is queried
	SpotCheckInitialWait time.Duration // before the first spot check

	MetricTestInterval time.Duration // how often count_over_time is asked
	MetricTestRange    time.Duration // its range, truncated to the running time

	QueryTimeout    time.Duration
	WriteTimeout    time.Duration
	WriteMaxRetries int
	WriteMinBackoff time.Duration
	WriteMaxBackoff time.Duration

	// Duration is how long entries are pushed; 0 pushes until the
	// context ends. Then Drain bounds the time the tail (first half) and
	// queries (the rest) get to account for every entry sent.
	Duration time.Duration
	Drain    time.Duration

	// Seed fixes the random choices (which entries go back, how far);
	// 0 takes the clock.
	Seed uint64
	// Client makes the HTTP requests; nil uses a client of its own.
	Client *http.Client
	// Logf, when set, receives every finding as it happens.
	Logf func(format string, args ...any)
}

// Defaults are loki-canary's documented defaults, pushing directly.
func Defaults() Config {
	return Config{
		LabelName: "name", LabelValue: "loki-canary",
		StreamName: "stream", StreamValue: "stdout",
		Interval: time.Second, Size: 100,
		OutOfOrderMin: 30 * time.Second, OutOfOrderMax: time.Minute,
		Wait: time.Minute, MaxWait: 5 * time.Minute, PruneInterval: time.Minute,
		SpotCheckInterval: 15 * time.Minute, SpotCheckMax: 4 * time.Hour,
		SpotCheckQueryRate: time.Minute, SpotCheckInitialWait: 10 * time.Second,
		MetricTestInterval: time.Hour, MetricTestRange: 24 * time.Hour,
		QueryTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		WriteMaxRetries: 10, WriteMinBackoff: 500 * time.Millisecond, WriteMaxBackoff: 5 * time.Minute,
		Drain: 10 * time.Second,
	}
}

// Bind registers the settings on fs under loki-canary's flag names (and
// -duration and -drain, which loki-canary has not). -push is accepted
// and must stay true (the checker always pushes itself); -port is the
// metrics port, which the caller serves (0: none).
func (c *Config) Bind(fs *flag.FlagSet, port *int) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "the server: host:port or a URL")
	fs.StringVar(&c.TenantID, "tenant-id", c.TenantID, "X-Scope-OrgID of every request")
	fs.StringVar(&c.LabelName, "labelname", c.LabelName, "label name of the canary's stream")
	fs.StringVar(&c.LabelValue, "labelvalue", c.LabelValue, "label value of the canary's stream, unique to this canary")
	fs.StringVar(&c.StreamName, "streamname", c.StreamName, "second label name of the canary's stream")
	fs.StringVar(&c.StreamValue, "streamvalue", c.StreamValue, "second label value of the canary's stream")
	fs.DurationVar(&c.Interval, "interval", c.Interval, "duration between entries")
	fs.IntVar(&c.Size, "size", c.Size, "bytes of each line")
	fs.IntVar(&c.OutOfOrderPercentage, "out-of-order-percentage", c.OutOfOrderPercentage, "percentage (0-100) of entries stamped in the past")
	fs.DurationVar(&c.OutOfOrderMin, "out-of-order-min", c.OutOfOrderMin, "least time an out-of-order entry goes back")
	fs.DurationVar(&c.OutOfOrderMax, "out-of-order-max", c.OutOfOrderMax, "most time an out-of-order entry goes back")
	fs.DurationVar(&c.Wait, "wait", c.Wait, "time an entry is awaited on the tail before it is asked for by query")
	fs.DurationVar(&c.MaxWait, "max-wait", c.MaxWait, "time an entry the tail missed is asked for before it counts as missing")
	fs.DurationVar(&c.PruneInterval, "pruneinterval", c.PruneInterval, "how often the tail's misses are collected and queried")
	fs.DurationVar(&c.SpotCheckInterval, "spot-check-interval", c.SpotCheckInterval, "one entry kept for spot checks this often")
	fs.DurationVar(&c.SpotCheckMax, "spot-check-max", c.SpotCheckMax, "how long an entry stays spot-checked")
	fs.DurationVar(&c.SpotCheckQueryRate, "spot-check-query-rate", c.SpotCheckQueryRate, "how often every kept entry is queried")
	fs.DurationVar(&c.SpotCheckInitialWait, "spot-check-initial-wait", c.SpotCheckInitialWait, "time before the first spot check")
	fs.DurationVar(&c.MetricTestInterval, "metric-test-interval", c.MetricTestInterval, "how often the count_over_time test runs")
	fs.DurationVar(&c.MetricTestRange, "metric-test-range", c.MetricTestRange, "range of the count_over_time test, truncated to the running time")
	fs.DurationVar(&c.QueryTimeout, "query-timeout", c.QueryTimeout, "timeout of a query")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", c.WriteTimeout, "timeout of a push")
	fs.IntVar(&c.WriteMaxRetries, "write-max-retries", c.WriteMaxRetries, "retries of a failed push")
	fs.DurationVar(&c.WriteMinBackoff, "write-min-backoff", c.WriteMinBackoff, "first backoff of a failed push")
	fs.DurationVar(&c.WriteMaxBackoff, "write-max-backoff", c.WriteMaxBackoff, "longest backoff of a failed push")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "how long entries are pushed (0: until interrupted)")
	fs.DurationVar(&c.Drain, "drain", c.Drain, "after the last push, time to account for every entry sent")
	fs.Var(pushFlag{}, "push", "push the entries directly (always: -push=false is refused)")
	fs.IntVar(port, "port", *port, "port serving the counters on /metrics (0: none)")
}

// pushFlag is -push: accepted, and only as true.
type pushFlag struct{}

func (pushFlag) String() string   { return "true" }
func (pushFlag) IsBoolFlag() bool { return true }
func (pushFlag) Set(v string) error {
	if v != "true" {
		return errors.New("the checker always pushes its entries itself")
	}
	return nil
}

// baseURL is Addr as a URL without a trailing slash.
func (c *Config) baseURL() string {
	a := strings.TrimRight(c.Addr, "/")
	if !strings.Contains(a, "://") {
		a = "http://" + a
	}
	return a
}

func (c *Config) validate() error {
	switch {
	case c.Addr == "":
		return errors.New("canary: no address")
	case c.LabelName == "" || c.LabelValue == "" || c.StreamName == "" || c.StreamValue == "":
		return errors.New("canary: the stream's labels must not be empty")
	case c.Interval <= 0:
		return errors.New("canary: interval must be positive")
	case c.OutOfOrderPercentage < 0 || c.OutOfOrderPercentage > 100:
		return fmt.Errorf("canary: out-of-order-percentage %d is not in 0-100", c.OutOfOrderPercentage)
	case c.OutOfOrderPercentage > 0 && (c.OutOfOrderMin <= 0 || c.OutOfOrderMax < c.OutOfOrderMin):
		return errors.New("canary: out-of-order-min must be positive and at most out-of-order-max")
	case c.Wait <= 0 || c.MaxWait <= 0 || c.PruneInterval <= 0:
		return errors.New("canary: wait, max-wait and pruneinterval must be positive")
	case c.SpotCheckInterval <= 0 || c.SpotCheckQueryRate <= 0 || c.MetricTestInterval <= 0 || c.MetricTestRange <= 0:
		return errors.New("canary: spot-check and metric-test intervals must be positive")
	case c.QueryTimeout <= 0 || c.WriteTimeout <= 0:
		return errors.New("canary: timeouts must be positive")
	}
	return nil
}

// selector is the stream's LogQL selector.
func (c *Config) selector() string {
	return fmt.Sprintf("{%s=%q, %s=%q}", c.LabelName, c.LabelValue, c.StreamName, c.StreamValue)
}
