// Package scaledata generates the scale bench's logs: the record shape and
// stream labels of the public Quickwit-vs-Loki benchmark (quickwit-oss/
// benchmarks, tracks/generated-logs-for-loki, labels as its Vector
// configuration sets them), any number of lines over any span.
//
// Every line is computed from its index and the seed alone, so pushers
// generate disjoint index ranges concurrently, the same configuration
// always gives the same lines, and the dataset is never held whole.
package scaledata

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Config shapes a dataset.
type Config struct {
	// Now is the end of the data; it spans Days before it.
	Now  time.Time
	Days float64
	// Lines is how many lines there are, spread evenly over the span.
	Lines int
	// Hosts adds the benchmark's high-cardinality label bucketed_hostname
	// (the first two hex digits of the SHA-256 of host.name: 256 values),
	// making 25 regions × 4 levels × 256 = 25,600 streams instead of 100.
	Hosts bool
	// Seed varies the data; the same seed gives the same lines.
	Seed uint64
}

// Label names, as the benchmark's Vector configuration sets them.
const (
	LabelAgent    = "agent"
	LabelRegion   = "cloud_region"
	LabelInput    = "input_type"
	LabelLevel    = "level"
	LabelHostname = "bucketed_hostname"
	// Agent is the value of the agent label on every line.
	Agent = "benchmark"
	// inputType is input.type on every line (the benchmark's "1 value").
	inputType = "aws-cloudwatch"
)

// hostCount is how many distinct host names lines come from (the
// benchmark's configuration: "~10k unique values").
const hostCount = 10_000

// Stream is one label set of the dataset.
type Stream struct {
	Labels lokidata.Labels // sorted by name
	Key    string          // Loki's form, {a="b", c="d"}
}

// host is one machine lines come from.
type host struct {
	name, agentID string
	bucket        byte // the first byte of the SHA-256 of name
}

// Dataset is a configured generator; it is safe for concurrent use, each
// goroutine reading rows through its own Gen.
type Dataset struct {
	cfg        Config
	start, gap int64 // Unix ns of the first slot, ns between slots
	salt       uint64
	streams    []Stream
	hosts      []host
}

// New prepares the dataset's streams and hosts.
func New(cfg Config) *Dataset {
	span := int64(cfg.Days * float64(24*time.Hour))
	lines := max(cfg.Lines, 1)
	d := &Dataset{cfg: cfg, start: cfg.Now.UnixNano() - span, gap: max(span/int64(lines), 1), salt: mix(cfg.Seed)}
	d.hosts = d.makeHosts()
	d.streams = d.makeStreams()
	return d
}

func (d *Dataset) makeHosts() []host {
	out := make([]host, hostCount)
	for h := range out {
		name := namePrefixes[h/len(nameSuffixes)%len(namePrefixes)] + nameSuffixes[h%len(nameSuffixes)]
		sum := sha256.Sum256([]byte(name))
		out[h] = host{name: name, agentID: d.uuid(uint64(h)), bucket: sum[0]}
	}
	return out
}

// makeStreams lists every label set, indexed as streamIndex numbers them.
func (d *Dataset) makeStreams() []Stream {
	buckets := []string{""}
	if d.cfg.Hosts {
		buckets = make([]string, 256)
		for b := range buckets {
			buckets[b] = hex.EncodeToString([]byte{byte(b)})
		}
	}
	var out []Stream
	for _, b := range buckets {
		for _, r := range regions {
			for _, lv := range levels {
				ls := lokidata.Labels{{Name: LabelAgent, Value: Agent}, {Name: LabelRegion, Value: r},
					{Name: LabelInput, Value: inputType}, {Name: LabelLevel, Value: lv}}
				if b != "" {
					ls = append(ls, lokidata.Label{Name: LabelHostname, Value: b})
				}
				ls.Sort()
				out = append(out, Stream{Labels: ls, Key: ls.String()})
			}
		}
	}
	return out
}

// Lines is the dataset's number of lines.
func (d *Dataset) Lines() int { return d.cfg.Lines }

// Config is the configuration the dataset was made with.
func (d *Dataset) Config() Config { return d.cfg }

// Streams are every label set a line may have.
func (d *Dataset) Streams() []Stream { return d.streams }

// LabelNames are the streams' label names, sorted.
func (d *Dataset) LabelNames() []string {
	names := make([]string, len(d.streams[0].Labels))
	for i, l := range d.streams[0].Labels {
		names[i] = l.Name
	}
	return names
}

// Start and End bound the lines' timestamps: [Start, End).
func (d *Dataset) Start() time.Time { return time.Unix(0, d.start) }
func (d *Dataset) End() time.Time   { return d.cfg.Now }

// TraceID is line i's trace_id: a bijection of i, so unique per line.
func (d *Dataset) TraceID(i int) uint64 { return mix(uint64(i) + d.salt) }

// TraceIDString is line i's trace_id as the line spells it.
func (d *Dataset) TraceIDString(i int) string { return strconv.FormatUint(d.TraceID(i), 10) }

// Row is what a line carries besides its text.
type Row struct {
	TimeNs int64
	Stream int // index into Streams
}

// Gen reads rows; one per goroutine.
type Gen struct {
	d       *Dataset
	src     *rand.PCG
	r       *rand.Rand
	process string // the current line's process name
}

// Gen returns a new reader of the dataset's rows.
func (d *Dataset) Gen() *Gen {
	src := rand.NewPCG(0, 0)
	return &Gen{d: d, src: src, r: rand.New(src)}
}

// Row computes line i: its row, and its text appended to buf.
func (g *Gen) Row(i int, buf []byte) (Row, []byte) {
	d, r := g.d, g.r
	g.src.Seed(d.salt, uint64(i))
	ts := d.start + int64(i)*d.gap + r.Int64N(d.gap)
	region, level, h := r.IntN(len(regions)), r.IntN(len(levels)), &d.hosts[r.IntN(len(d.hosts))]
	row := Row{TimeNs: ts, Stream: d.streamIndex(h.bucket, region, level)}
	return row, g.appendRecord(buf, i, ts, regions[region], levels[level], h)
}

// streamIndex numbers a label set as makeStreams lays them out.
func (d *Dataset) streamIndex(bucket byte, region, level int) int {
	n := region*len(levels) + level
	if d.cfg.Hosts {
		n += int(bucket) * len(regions) * len(levels)
	}
	return n
}

// uuid derives a version-4-looking UUID from n.
func (d *Dataset) uuid(n uint64) string {
	var raw [16]byte
	a, b := mix(2*n+d.salt), mix(2*n+1+d.salt)
	for k := range 8 {
		raw[k], raw[8+k] = byte(a>>(8*k)), byte(b>>(8*k))
	}
	raw[6] = raw[6]&0x0f | 0x40
	raw[8] = raw[8]&0x3f | 0x80
	h := hex.EncodeToString(raw[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// mix is SplitMix64's finalizer: a bijection on uint64 that scatters
// consecutive inputs, so distinct inputs give distinct outputs.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
