package bench

import (
	"math/bits"
	"net/http"
	"strconv"
	"time"
)

// Latencies are counted in log-linear buckets: 64 per power of two of
// nanoseconds, so a percentile is off by at most 1/64 (1.6%) and a
// tally's memory is fixed (32 KiB) however long a step runs.
const (
	subBucketBits = 6
	subBuckets    = 1 << subBucketBits
	latencyBins   = 64 * subBuckets
)

// tally counts one client's (or one step's) answers.
type tally struct {
	requests, ok, bytes uint64
	codes               map[string]int
	errors              []string
	bins                [latencyBins]uint64
	max                 time.Duration
	first, last         time.Time
	// perQuery: answers and their summed latency by workload query (the
	// closed loop only; vegeta's results do not name the query).
	perQuery map[string]QueryTime
}

// QueryTime is how many answers one workload query got and their summed
// latency.
type QueryTime struct {
	Answers uint64        `json:"answers"`
	Total   time.Duration `json:"total"`
}

// Mean is the query's mean latency.
func (q QueryTime) Mean() time.Duration {
	if q.Answers == 0 {
		return 0
	}
	return q.Total / time.Duration(q.Answers)
}

func (t *tally) addQuery(name string, took time.Duration) {
	if name == "" {
		return
	}
	if t.perQuery == nil {
		t.perQuery = map[string]QueryTime{}
	}
	q := t.perQuery[name]
	q.Answers++
	q.Total += took
	t.perQuery[name] = q
}

// maxErrors is how many distinct error texts a tally keeps.
const maxErrors = 3

func newTally() *tally { return &tally{codes: map[string]int{}} }

// add counts one answer sent at sent that took took; code 0 is a
// transport error. As vegeta counts, 2xx and 3xx are successes.
func (t *tally) add(sent time.Time, took time.Duration, code int, bytes uint64, err error) {
	t.requests++
	t.bytes += bytes
	t.codes[strconv.Itoa(code)]++
	if code >= 200 && code < 400 {
		t.ok++
	} else if err == nil {
		err = httpError(code)
	}
	if err != nil {
		t.note(err.Error())
	}
	t.bins[latencyBin(took)]++
	t.max = max(t.max, took)
	if t.first.IsZero() || sent.Before(t.first) {
		t.first = sent
	}
	if end := sent.Add(took); end.After(t.last) {
		t.last = end
	}
}

type httpError int

func (e httpError) Error() string { return strconv.Itoa(int(e)) + " " + http.StatusText(int(e)) }

func (t *tally) note(msg string) {
	if len(t.errors) >= maxErrors {
		return
	}
	for _, e := range t.errors {
		if e == msg {
			return
		}
	}
	t.errors = append(t.errors, msg)
}

// merge adds o into t.
func (t *tally) merge(o *tally) {
	if o.requests == 0 {
		return
	}
	t.requests += o.requests
	t.ok += o.ok
	t.bytes += o.bytes
	for c, n := range o.codes {
		t.codes[c] += n
	}
	for _, e := range o.errors {
		t.note(e)
	}
	for i, n := range o.bins {
		t.bins[i] += n
	}
	for name, q := range o.perQuery {
		if t.perQuery == nil {
			t.perQuery = map[string]QueryTime{}
		}
		sum := t.perQuery[name]
		sum.Answers += q.Answers
		sum.Total += q.Total
		t.perQuery[name] = sum
	}
	t.max = max(t.max, o.max)
	if t.first.IsZero() || o.first.Before(t.first) {
		t.first = o.first
	}
	if o.last.After(t.last) {
		t.last = o.last
	}
}

// throughput is successful answers a second, from the first request sent
// to the last answer received.
func (t *tally) throughput() float64 {
	d := t.last.Sub(t.first).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(t.ok) / d
}

// quantile is the latency below which a fraction q of the answers came
// (the upper edge of its bucket, never above the maximum seen).
func (t *tally) quantile(q float64) time.Duration {
	if t.requests == 0 {
		return 0
	}
	rank := uint64(q*float64(t.requests) + 0.5)
	rank = max(rank, 1)
	var seen uint64
	for i, n := range t.bins {
		seen += n
		if seen >= rank {
			return min(binUpper(i), t.max)
		}
	}
	return t.max
}

func (t *tally) meanBytes() float64 {
	if t.requests == 0 {
		return 0
	}
	return float64(t.bytes) / float64(t.requests)
}

// latencyBin is d's bucket: below 64 ns one per nanosecond, above it the
// power of two and the next 6 bits.
func latencyBin(d time.Duration) int {
	ns := uint64(max(d, 0))
	if ns < subBuckets {
		return int(ns)
	}
	exp := bits.Len64(ns) - subBucketBits // ≥ 1
	return exp*subBuckets + int(ns>>(exp-1)) - subBuckets
}

// binUpper is the largest duration in bucket i.
func binUpper(i int) time.Duration {
	if i < subBuckets {
		return time.Duration(i)
	}
	exp := i / subBuckets
	mant := uint64(i%subBuckets + subBuckets)
	return time.Duration((mant+1)<<(exp-1) - 1)
}

// errorRate is the share of requests that were not answered with success.
func (t *tally) errorRate() float64 {
	if t.requests == 0 {
		return 0
	}
	return 1 - float64(t.ok)/float64(t.requests)
}
