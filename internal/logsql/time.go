package logsql

import "time"

func appendTime(b []byte, ns int64) []byte {
	return time.Unix(0, ns).UTC().AppendFormat(b, time.RFC3339Nano)
}
