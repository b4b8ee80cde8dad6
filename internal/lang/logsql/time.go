package logsql

import "time"

// timeLayout always writes nine fraction digits: VictoriaLogs widens the
// end of `_time:[start, end]` to the precision it is written in
// (`…:05Z]` covers the whole second, `…:05.123Z]` the whole millisecond).
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func appendTime(b []byte, ns int64) []byte {
	return time.Unix(0, ns).UTC().AppendFormat(b, timeLayout)
}
