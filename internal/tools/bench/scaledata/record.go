package scaledata

import (
	"strconv"
	"time"
)

// appendRecord appends line i's JSON record: the benchmark's fields in
// its order (log_example.json), its own timestamp in every time field.
// The label fields stay in the line, so lines keep the published record's
// size (~870 bytes) and `| json` finds every field.
func (g *Gen) appendRecord(b []byte, i int, ts int64, region, level string, h *host) []byte {
	r := g.r
	t := time.Unix(0, ts).UTC()
	stream := g.pickName()
	b = append(b, `{"agent":{"ephemeral_id":"`...)
	b = append(b, h.agentID...)
	b = append(b, `","id":"`...)
	b = append(b, h.agentID...)
	b = append(b, `","name":"`...)
	b = append(b, h.name...)
	b = append(b, `","type":"filebeat","version":"8.8.0"},"aws.cloudwatch":{"ingestion_time":"`...)
	b = t.AppendFormat(b, isoMillis)
	b = append(b, `","log_stream":"`...)
	b = stream.append(b)
	b = append(b, `"},"cloud":{"region":"`...)
	b = append(b, region...)
	b = append(b, `"},"event":{"dataset":"generic","id":"`...)
	b = g.pickName().append(b)
	b = append(b, `","ingested":"`...)
	b = t.Add(-ingestLag-time.Duration(r.IntN(1_000_000))*time.Microsecond).AppendFormat(b, isoMicros)
	b = append(b, `"},"host":{"name":"`...)
	b = append(b, h.name...)
	b = append(b, `"},"input":{"type":"`+inputType+`"},"level":"`...)
	b = append(b, level...)
	b = append(b, `","log.file.path":"/var/log/messages/`...)
	b = stream.append(b)
	b = append(b, `","message":"`...)
	b = g.appendMessage(b, t)
	b = append(b, `","metrics":{"size":`...)
	b = strconv.AppendInt(b, int64(r.IntN(500_000)), 10)
	b = append(b, `,"tmin":`...)
	b = strconv.AppendInt(b, int64(r.IntN(500_000)), 10)
	b = append(b, `},"process":{"name":"`...)
	b = append(b, g.process...)
	b = append(b, `"},"tags":["preserve_original_event"],"timestamp":"`...)
	b = t.AppendFormat(b, isoMillis)
	b = append(b, `","trace_id":"`...)
	b = strconv.AppendUint(b, g.d.TraceID(i), 10) // TraceIDString's form
	return append(b, `"}`...)
}

const (
	isoMillis = "2006-01-02T15:04:05.000Z"
	isoMicros = "2006-01-02T15:04:05.000000Z"
	syslog    = "Jan _2 15:04:05"
	// ingestLag is about how long before its time the example record was
	// "ingested" (its event.ingested against its ingestion_time).
	ingestLag = 43 * time.Minute
)

// MaxWords is the most nouns a message holds; it holds 0 to MaxWords.
const MaxWords = 24

// appendMessage appends the syslog-like message: "<time> <syslog time>
// ip-a-b-c-d <process>: <0–24 nouns>".
func (g *Gen) appendMessage(b []byte, t time.Time) []byte {
	r := g.r
	g.process = processes[r.IntN(len(processes))]
	b = t.AppendFormat(b, isoMillis)
	b = append(b, ' ')
	b = t.AppendFormat(b, syslog)
	b = append(b, " ip"...)
	for range 4 {
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(r.IntN(256)), 10)
	}
	b = append(b, ' ')
	b = append(b, g.process...)
	b = append(b, ':')
	for range r.IntN(MaxWords + 1) {
		b = append(b, ' ')
		b = append(b, nouns[r.IntN(len(nouns))]...)
	}
	return b
}

// name is a generated name such as "novachopper": a prefix and a suffix.
type name struct{ prefix, suffix string }

func (g *Gen) pickName() name {
	return name{namePrefixes[g.r.IntN(len(namePrefixes))], nameSuffixes[g.r.IntN(len(nameSuffixes))]}
}

func (n name) append(b []byte) []byte { return append(append(b, n.prefix...), n.suffix...) }
