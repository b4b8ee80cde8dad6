package otlp

import (
	"encoding/hex"
	"fmt"
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
	streams := map[string]*push.Stream{}
	var order []string
	add := func(ls lokidata.Labels, e lokidata.Entry) {
		key := ls.String()
		s, ok := streams[key]
		if !ok {
			s = &push.Stream{Labels: ls}
			streams[key] = s
			order = append(order, key)
		}
		s.Entries = append(s.Entries, e)
	}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		if err := addResource(rls.At(i), discover, cfg, add); err != nil {
			return nil, err
		}
	}
	req := &push.Request{}
	for _, k := range order {
		req.Streams = append(req.Streams, *streams[k])
	}
	return req, nil
}

func addResource(rl plog.ResourceLogs, discover []string, cfg *Config, add func(lokidata.Labels, lokidata.Entry)) error {
	attrs := rl.Resource().Attributes()
	index, resourceMetadata, err := splitAttributes(attrs, cfg.resourceAction)
	if err != nil {
		return err
	}
	stream := map[string]string{}
	for _, l := range index {
		stream[l.Name] = l.Value
	}
	addServiceName(stream, attrs, discover, cfg)
	if _, ok := streamLabels(stream); !ok {
		return nil
	}
	sls := rl.ScopeLogs()
	for j := 0; j < sls.Len(); j++ {
		scopeMetadata, err := scopeLabels(sls.At(j).Scope(), cfg)
		if err != nil {
			return err
		}
		logs := sls.At(j).LogRecords()
		for k := 0; k < logs.Len(); k++ {
			own, e, err := entry(logs.At(k), cfg)
			if err != nil {
				return err
			}
			labels, ok := withLabels(stream, own)
			if !ok {
				continue
			}
			e.StructuredMetadata = append(append(e.StructuredMetadata, resourceMetadata...), scopeMetadata...)
			add(labels, e)
		}
	}
	return nil
}

// withLabels is the stream's labels with a record's own index labels.
func withLabels(stream map[string]string, own lokidata.Labels) (lokidata.Labels, bool) {
	if len(own) == 0 {
		return streamLabels(stream)
	}
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
func splitAttributes(m pcommon.Map, act func(string) Action) (index, metadata lokidata.Labels, err error) {
	m.Range(func(k string, v pcommon.Value) bool {
		a := act(k)
		if a == Drop {
			return true
		}
		var ls lokidata.Labels
		if ls, err = attributeLabels(k, v, ""); err != nil {
			return false
		}
		if a == IndexLabel {
			index = append(index, ls...)
		} else {
			metadata = append(metadata, ls...)
		}
		return true
	})
	return index, metadata, err
}

// addServiceName sets service_name from the first discovery label among
// the index labels when the resource has no service.name, else to
// unknown_service (Loki looks at labels in attribute order; the first
// attribute whose label is in the list wins).
func addServiceName(stream map[string]string, attrs pcommon.Map, discover []string, cfg *Config) {
	if v, ok := attrs.Get("service.name"); ok && v.AsString() != "" || len(discover) == 0 {
		return
	}
	found := false
	attrs.Range(func(k string, v pcommon.Value) bool {
		if cfg.resourceAction(k) != IndexLabel {
			return true
		}
		ls, err := attributeLabels(k, v, "")
		if err != nil {
			return true
		}
		for _, l := range ls {
			for _, d := range discover {
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

func scopeLabels(scope pcommon.InstrumentationScope, cfg *Config) (lokidata.Labels, error) {
	_, out, err := splitAttributes(scope.Attributes(), func(k string) Action { return action(k, cfg.ScopeAttributes) })
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
func entry(lr plog.LogRecord, cfg *Config) (lokidata.Labels, lokidata.Entry, error) {
	own, md, err := splitAttributes(lr.Attributes(), func(k string) Action { return action(k, cfg.LogAttributes) })
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

// attributeLabels names an attribute as Prometheus' OTLP translator does,
// maps flattened with "_" into their keys, other values as strings.
func attributeLabels(k string, v pcommon.Value, prefix string) (lokidata.Labels, error) {
	if prefix != "" {
		k = prefix + "_" + k
	}
	name, err := (&otlptranslator.LabelNamer{}).Build(k)
	if err != nil {
		return nil, fmt.Errorf("symbolizer lookup: %w", err)
	}
	if v.Type() != pcommon.ValueTypeMap {
		return lokidata.Labels{{Name: name, Value: v.AsString()}}, nil
	}
	var out lokidata.Labels
	v.Map().Range(func(k string, v pcommon.Value) bool {
		var ls lokidata.Labels
		if ls, err = attributeLabels(k, v, name); err != nil {
			err = fmt.Errorf("symbolizer lookup: %w", err)
		}
		out = append(out, ls...)
		return err == nil
	})
	return out, err
}
