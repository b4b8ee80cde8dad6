package lokijson

import (
	"strconv"

	"github.com/vloki/vloki/internal/acked/patterns"
)

// AppendPatterns writes a patterns answer as Loki's
// WriteQueryPatternsResponseJSON: the pattern HTML-escaped, the level
// always present, samples as [seconds, count].
func AppendPatterns(b []byte, series []patterns.Series) []byte {
	b = append(b, `{"status":"success","data":[`...)
	for i, s := range series {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"pattern":`...)
		b = appendHTMLString(b, s.Pattern)
		b = append(b, `,"level":`...)
		b = appendString(b, s.Level)
		b = append(b, `,"samples":[`...)
		for j, smp := range s.Samples {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, smp.Ts/1000, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, smp.Count, 10)
			b = append(b, ']')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}\n"...)
}
