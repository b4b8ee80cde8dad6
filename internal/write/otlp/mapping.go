package otlp

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/write/push"
)

// IndexedResourceAttributes are the resource attributes Loki's default
// OTLP configuration makes stream labels
// (-distributor.otlp.default_resource_attributes_as_index_labels).
var IndexedResourceAttributes = map[string]bool{
	"service.name": true, "service.namespace": true, "service.instance.id": true,
	"deployment.environment": true, "deployment.environment.name": true,
	"cloud.region": true, "cloud.availability_zone": true, "k8s.cluster.name": true,
	"k8s.namespace.name": true, "k8s.pod.name": true, "k8s.container.name": true,
	"container.name": true, "k8s.replicaset.name": true, "k8s.deployment.name": true,
	"k8s.statefulset.name": true, "k8s.daemonset.name": true, "k8s.cronjob.name": true,
	"k8s.job.name": true,
}

// serviceUnknown is Loki's service_name for a resource without one.
const serviceUnknown = "unknown_service"

// ToPush maps the logs as Loki's otlpToLokiPushRequest does with the
// configuration cfg (nil: Loki's default); discover are the labels
// service_name is taken from when the resource has no service.name. A
// resource or record whose labels are invalid (a value that is not UTF-8)
// is skipped, as Loki skips it.
func ToPush(ld plog.Logs, discover []string, cfg *Config) (*push.Request, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	m := &mapper{cfg: cfg, discover: discover, streams: map[string]*push.Stream{}, names: map[string]string{},
		logAction:   func(k string) Action { return action(k, cfg.LogAttributes) },
		scopeAction: func(k string) Action { return action(k, cfg.ScopeAttributes) }}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		if err := m.addResource(rls.At(i)); err != nil {
			return nil, err
		}
	}
	req := &push.Request{}
	for _, k := range m.order {
		req.Streams = append(req.Streams, *m.streams[k])
	}
	return req, nil
}

// mapper is one export's mapping: its streams in order of first
// appearance, and the label names its attribute keys translate to (each
// key translated once an export, not once a record).
type mapper struct {
	cfg                    *Config
	discover               []string
	streams                map[string]*push.Stream
	order                  []string
	names                  map[string]string
	logAction, scopeAction func(string) Action
}

// add appends e to key's stream; room is a guess of the entries the
// stream is about to take (a scope's records mostly join its resource's
// stream).
func (m *mapper) add(key string, ls lokidata.Labels, e lokidata.Entry, room int) {
	s, ok := m.streams[key]
	if !ok {
		s = &push.Stream{Labels: ls, Entries: make([]lokidata.Entry, 0, room)}
		m.streams[key] = s
		m.order = append(m.order, key)
	} else if len(s.Entries) == cap(s.Entries) {
		s.Entries = slices.Grow(s.Entries, room)
	}
	s.Entries = append(s.Entries, e)
}

func (m *mapper) addResource(rl plog.ResourceLogs) error {
	attrs := rl.Resource().Attributes()
	index, resourceMetadata, err := m.splitAttributes(attrs, m.cfg.resourceAction, nil, nil)
	if err != nil {
		return err
	}
	stream := map[string]string{}
	for _, l := range index {
		stream[l.Name] = l.Value
	}
	m.addServiceName(stream, attrs)
	base, ok := streamLabels(stream)
	if !ok {
		return nil
	}
	baseKey := base.String()
	sls := rl.ScopeLogs()
	for j := 0; j < sls.Len(); j++ {
		scopeMetadata, err := m.scopeLabels(sls.At(j).Scope())
		if err != nil {
			return err
		}
		logs := sls.At(j).LogRecords()
		shared := len(resourceMetadata) + len(scopeMetadata)
		for k := 0; k < logs.Len(); k++ {
			own, e, err := m.entry(logs.At(k), shared)
			if err != nil {
				return err
			}
			e.StructuredMetadata = append(append(e.StructuredMetadata, resourceMetadata...), scopeMetadata...)
			if len(own) == 0 {
				m.add(baseKey, base, e, logs.Len()-k)
				continue
			}
			if labels, ok := withLabels(stream, own); ok {
				m.add(labels.String(), labels, e, 1)
			}
		}
	}
	return nil
}

// withLabels is the stream's labels with a record's own index labels.
func withLabels(stream map[string]string, own lokidata.Labels) (lokidata.Labels, bool) {
	m := make(map[string]string, len(stream)+len(own))
	for k, v := range stream {
		m[k] = v
	}
	for _, l := range own {
		m[l.Name] = l.Value
	}
	return streamLabels(m)
}

// splitAttributes names the attributes of m and sorts them by action:
// index labels, structured metadata, or dropped.
// index and metadata are appended to.
func (m *mapper) splitAttributes(attrs pcommon.Map, act func(string) Action, index, metadata lokidata.Labels) (lokidata.Labels, lokidata.Labels, error) {
	var err error
	attrs.Range(func(k string, v pcommon.Value) bool {
		switch act(k) {
		case Drop:
		case IndexLabel:
			index, err = m.attributeLabels(index, k, v, "")
		default:
			metadata, err = m.attributeLabels(metadata, k, v, "")
		}
		return err == nil
	})
	return index, metadata, err
}

// addServiceName sets service_name from the first discovery label among
// the index labels when the resource has no service.name, else to
// unknown_service (Loki looks at labels in attribute order; the first
// attribute whose label is in the list wins).
func (m *mapper) addServiceName(stream map[string]string, attrs pcommon.Map) {
	if v, ok := attrs.Get("service.name"); ok && v.AsString() != "" || len(m.discover) == 0 {
		return
	}
	found := false
	attrs.Range(func(k string, v pcommon.Value) bool {
		if m.cfg.resourceAction(k) != IndexLabel {
			return true
		}
		ls, err := m.attributeLabels(nil, k, v, "")
		if err != nil {
			return true
		}
		for _, l := range ls {
			for _, d := range m.discover {
				if l.Name == d {
					stream["service_name"], found = l.Value, true
					return false
				}
			}
		}
		return true
	})
	if !found {
		stream["service_name"] = serviceUnknown
	}
}

func streamLabels(m map[string]string) (lokidata.Labels, bool) {
	ls := make(lokidata.Labels, 0, len(m))
	for k, v := range m {
		if !utf8.ValidString(v) {
			return nil, false
		}
		ls = append(ls, lokidata.Label{Name: k, Value: v})
	}
	ls.Sort()
	return ls, true
}

func (m *mapper) scopeLabels(scope pcommon.InstrumentationScope) (lokidata.Labels, error) {
	_, out, err := m.splitAttributes(scope.Attributes(), m.scopeAction, nil, nil)
	if err != nil {
		return nil, err
	}
	if n := scope.Name(); n != "" {
		out = append(out, lokidata.Label{Name: "scope_name", Value: n})
	}
	if v := scope.Version(); v != "" {
		out = append(out, lokidata.Label{Name: "scope_version", Value: v})
	}
	if n := scope.DroppedAttributesCount(); n != 0 {
		out = append(out, lokidata.Label{Name: "scope_dropped_attributes_count", Value: strconv.FormatUint(uint64(n), 10)})
	}
	return out, nil
}

// entry is one log record: its own index labels (log attributes the
// configuration indexes, severity_text when asked), and the entry with
// the other attributes, then the record's own fields, as structured
// metadata.
// shared is the resource's and scope's metadata appended after it (room is
// made for them).
func (m *mapper) entry(lr plog.LogRecord, shared int) (lokidata.Labels, lokidata.Entry, error) {
	cfg := m.cfg
	attrs := lr.Attributes()
	// The record's fields below add at most 7 labels.
	own, md, err := m.splitAttributes(attrs, m.logAction, nil, make(lokidata.Labels, 0, attrs.Len()+7+shared))
	if err != nil {
		return nil, lokidata.Entry{}, err
	}
	if lr.Timestamp() != 0 && lr.ObservedTimestamp() != 0 {
		md = append(md, lokidata.Label{Name: "observed_timestamp", Value: strconv.FormatInt(lr.ObservedTimestamp().AsTime().UnixNano(), 10)})
	}
	if n := lr.SeverityNumber(); n != plog.SeverityNumberUnspecified {
		md = append(md, lokidata.Label{Name: "severity_number", Value: strconv.Itoa(int(n))})
	}
	if t := lr.SeverityText(); t != "" {
		if cfg.SeverityTextAsLabel {
			own = append(own, lokidata.Label{Name: "severity_text", Value: t})
		}
		md = append(md, lokidata.Label{Name: "severity_text", Value: t})
	}
	if n := lr.DroppedAttributesCount(); n != 0 {
		md = append(md, lokidata.Label{Name: "dropped_attributes_count", Value: strconv.FormatUint(uint64(n), 10)})
	}
	if f := lr.Flags(); f != 0 {
		md = append(md, lokidata.Label{Name: "flags", Value: fmt.Sprintf("%d", f)})
	}
	if id := lr.TraceID(); !id.IsEmpty() {
		md = append(md, lokidata.Label{Name: "trace_id", Value: hex.EncodeToString(id[:])})
	}
	if id := lr.SpanID(); !id.IsEmpty() {
		md = append(md, lokidata.Label{Name: "span_id", Value: hex.EncodeToString(id[:])})
	}
	return own, lokidata.Entry{TimestampNs: timestamp(lr), Line: lr.Body().AsString(), StructuredMetadata: md}, nil
}

// timestamp is the record's time, else its observed time, else now.
func timestamp(lr plog.LogRecord) int64 {
	if t := lr.Timestamp(); t != 0 {
		return int64(t)
	}
	if t := lr.ObservedTimestamp(); t != 0 {
		return int64(t)
	}
	return time.Now().UnixNano()
}

// attributeLabels appends an attribute's labels to dst, named as
// Prometheus' OTLP translator names them, maps flattened with "_" into
// their keys, other values as strings.
func (m *mapper) attributeLabels(dst lokidata.Labels, k string, v pcommon.Value, prefix string) (lokidata.Labels, error) {
	if prefix != "" {
		k = prefix + "_" + k
	}
	name, err := m.labelName(k)
	if err != nil {
		return dst, err
	}
	if v.Type() != pcommon.ValueTypeMap {
		return append(dst, lokidata.Label{Name: name, Value: v.AsString()}), nil
	}
	v.Map().Range(func(k string, v pcommon.Value) bool {
		if dst, err = m.attributeLabels(dst, k, v, name); err != nil {
			err = fmt.Errorf("symbolizer lookup: %w", err)
		}
		return err == nil
	})
	return dst, err
}

// labelName is the label an attribute key becomes.
func (m *mapper) labelName(k string) (string, error) {
	if name, ok := m.names[k]; ok {
		return name, nil
	}
	name, err := (&otlptranslator.LabelNamer{}).Build(k)
	if err != nil {
		return "", fmt.Errorf("symbolizer lookup: %w", err)
	}
	m.names[k] = name
	return name, nil
}
