package push

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/lokidata"
)

// ServiceNameLabel and ServiceUnknown are Loki's service discovery names.
const (
	ServiceNameLabel = "service_name"
	ServiceUnknown   = "unknown_service"
)

// Validate enriches every stream as Loki's ingestion does (service_name,
// detected_level) and applies Loki's validation. Any invalid stream or
// entry fails the whole request.
func Validate(req *Request, l limits.Limits, now time.Time) error {
	if len(req.Streams) == 0 {
		// A stream without entries is fine; no stream at all is not.
		return &Error{Status: http.StatusUnprocessableEntity, Msg: "error at least one valid stream is required for ingestion"}
	}
	for i := range req.Streams {
		s := &req.Streams[i]
		s.Labels = dropEmptyValues(s.Labels)
		if len(s.Labels) == 0 {
			return badRequest("error at least one label pair is required per stream")
		}
		if err := validateLabelNames(s.Labels); err != nil {
			return err
		}
		s.Labels = addServiceName(s.Labels, l.DiscoverServiceName)
		if err := validateLabels(s.Labels, l); err != nil {
			return err
		}
		for j := range s.Entries {
			if err := validateEntry(s.Labels, &s.Entries[j], l, now); err != nil {
				return err
			}
			if l.DiscoverLogLevels {
				addDetectedLevel(s.Labels, &s.Entries[j], l)
			}
			// Loki accepts structured metadata without a value and
			// shows none; VictoriaLogs' Loki endpoint refuses the push.
			s.Entries[j].StructuredMetadata = dropEmptyValues(s.Entries[j].StructuredMetadata)
		}
	}
	return nil
}

func dropEmptyValues(ls lokidata.Labels) lokidata.Labels {
	out := ls[:0]
	for _, l := range ls {
		if l.Value != "" {
			out = append(out, l)
		}
	}
	return out
}

func validateLabelNames(ls lokidata.Labels) error {
	for _, l := range ls {
		if !validLabelName(l.Name) {
			return badRequest("couldn't parse labels: invalid label name %q in %s", l.Name, ls.String())
		}
	}
	return nil
}

// addServiceName sets service_name from the first discovery label present,
// or unknown_service, unless the stream has one or discovery is off.
func addServiceName(ls lokidata.Labels, discover []string) lokidata.Labels {
	if _, ok := ls.Get(ServiceNameLabel); ok || len(discover) == 0 {
		return ls
	}
	name := ServiceUnknown
	for _, d := range discover {
		if v, ok := ls.Get(d); ok && v != "" {
			name = v
			break
		}
	}
	out := append(ls, lokidata.Label{Name: ServiceNameLabel, Value: name})
	out.Sort()
	return out
}

func validateLabels(ls lokidata.Labels, l limits.Limits) error {
	n := len(ls)
	if _, ok := ls.Get(ServiceNameLabel); ok {
		n--
	}
	if n > l.MaxLabelNamesPerSeries {
		return badRequest("entry for stream '%s' has %d label names; limit %d", ls.String(), n, l.MaxLabelNamesPerSeries)
	}
	last := ""
	for _, lb := range ls {
		switch {
		case len(lb.Name) > l.MaxLabelNameLength:
			return badRequest("stream '%s' has label name too long: '%s'", ls.String(), lb.Name)
		case len(lb.Value) > l.MaxLabelValueLength:
			return badRequest("stream '%s' has label value too long: '%s'", ls.String(), lb.Value)
		case lb.Name == last:
			return badRequest("stream '%s' has duplicate label name: '%s'", ls.String(), lb.Name)
		}
		last = lb.Name
	}
	return nil
}

func validateEntry(ls lokidata.Labels, e *lokidata.Entry, l limits.Limits, now time.Time) error {
	ts := time.Unix(0, e.TimestampNs).UTC()
	oldest := now.Add(-time.Duration(l.RejectOldSamplesMaxAge))
	if l.RejectOldSamples && ts.Before(oldest) {
		return badRequest("entry for stream '%s' has timestamp too old: %v, oldest acceptable timestamp is: %v",
			ls.String(), ts.Format(time.RFC3339), oldest.UTC().Format(time.RFC3339))
	}
	if ts.After(now.Add(time.Duration(l.CreationGracePeriod))) {
		return badRequest("entry for stream '%s' has timestamp too new: %v", ls.String(), ts.Format(time.RFC3339))
	}
	if l.MaxLineSize != 0 && len(e.Line) > int(l.MaxLineSize) {
		return badRequest("max entry size '%d' bytes exceeded for stream '%s' while adding an entry with length '%d' bytes",
			int(l.MaxLineSize), ls.String(), len(e.Line))
	}
	return validateMetadata(ls, e.StructuredMetadata, l)
}

func validateMetadata(ls lokidata.Labels, md lokidata.Labels, l limits.Limits) error {
	if len(md) == 0 {
		return nil
	}
	size := 0
	for _, m := range md {
		size += len(m.Name) + len(m.Value)
	}
	if l.MaxStructuredMetadataSize != 0 && size > int(l.MaxStructuredMetadataSize) {
		return badRequest("stream '%s' has structured metadata too large: '%d' bytes, limit: '%d' bytes. Please see `limits_config.max_structured_metadata_size` or contact your Loki administrator to increase it",
			ls.String(), size, int(l.MaxStructuredMetadataSize))
	}
	if l.MaxStructuredMetadataEntriesCount != 0 && len(md) > l.MaxStructuredMetadataEntriesCount {
		return badRequest("stream '%s' has too many structured metadata labels: '%d', limit: '%d'. Please see `limits_config.max_structured_metadata_entries_count` or contact your Loki administrator to increase it",
			ls.String(), len(md), l.MaxStructuredMetadataEntriesCount)
	}
	return nil
}
