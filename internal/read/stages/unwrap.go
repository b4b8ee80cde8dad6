package stages

import (
	"strconv"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
)

// sampleExtractionErr is the __error__ an unconvertible unwrapped value sets.
const sampleExtractionErr = "SampleExtractionErr"

// UnwrapSample reads the entry's sample value from the unwrapped label, as
// Loki's label sample extractor does: an empty or missing label yields no
// sample; a value that does not convert yields 0 and an error; then the
// post filters decide.
func (s *Entry) UnwrapSample(u *plan.Unwrap) (float64, bool) {
	raw, _ := s.Label(u.Label)
	if raw == "" {
		return 0, false
	}
	v, err := convertUnwrapped(u.Conversion, raw)
	if err != nil {
		s.err, s.errDetails = sampleExtractionErr, err.Error()
	}
	for _, f := range u.PostFilters {
		if !f.Match(s) {
			return 0, false
		}
	}
	return v, true
}

func convertUnwrapped(conversion, raw string) (float64, error) {
	switch conversion {
	case "bytes":
		b, err := humanize.ParseBytes(raw)
		return float64(b), err
	case "duration", "duration_seconds":
		d, err := time.ParseDuration(raw)
		return d.Seconds(), err
	}
	return strconv.ParseFloat(raw, 64)
}

// FullLabelsIfUsed is the entry's whole label set (stream labels,
// structured metadata, parsed labels) when GroupedLabels needs it, and nil
// when it only looks up the grouping's labels: building it costs more than
// the rest of a sample's work.
func (s *Entry) FullLabelsIfUsed(groups []string, without, noLabels bool) lokidata.Labels {
	if s.err == "" && (noLabels || (len(groups) > 0 && !without)) {
		return nil
	}
	return logrow.MergeLabels(logrow.MergeLabels(s.Remaining(s.Row.Labels), s.Remaining(s.Row.Metadata)), s.OutputParsed())
}

// GroupedLabels reduces an entry's labels to the extraction's grouping,
// as Loki's GroupedLabels: an entry with an error keeps all its labels so
// the error is not lost. Without an error, a grouping builds the labels
// from the stream, metadata and parsed labels alone: error details left
// by a dropped __error__ go.
func (s *Entry) GroupedLabels(full lokidata.Labels, groups []string, without, noLabels bool) lokidata.Labels {
	switch {
	case s.err != "":
		return full
	case noLabels:
		return lokidata.Labels{}
	case len(groups) == 0:
		return full
	case without:
		return full.Without(append(groups, errorDetailsLabel)...)
	}
	out := make(lokidata.Labels, 0, len(groups))
	for _, g := range groups {
		if g == errorDetailsLabel {
			continue
		}
		if v, ok := s.Label(g); ok {
			out = append(out, lokidata.Label{Name: g, Value: v})
		}
	}
	out.Sort()
	return out
}
