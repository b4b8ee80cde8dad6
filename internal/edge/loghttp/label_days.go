package loghttp

import "time"

// LabelIndexSpan is the span whose streams Loki answers label names and
// values from, for a request over [start, end]. Its TSDB index files list
// every name and value of the streams they index, whatever the range
// inside a file, and a file is chosen when its bounds overlap the range;
// compacted, a file holds one table of the 24h schema period (UTC days).
// So Loki answers for the whole days the range touches (an end at
// midnight does not reach into the next day: index query ends are
// exclusive).
func LabelIndexSpan(start, end time.Time) (from, through time.Time) {
	const day = 24 * time.Hour
	from = start.UTC().Truncate(day)
	last := end.UTC()
	if end.After(start) {
		last = last.Add(-time.Nanosecond)
	}
	through = last.Truncate(day).Add(day - time.Nanosecond)
	if through.Before(from) {
		through = from
	}
	return from, through
}
