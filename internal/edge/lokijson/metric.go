package lokijson

import (
	"math"
	"strconv"

	"github.com/vloki/vloki/internal/lokidata"
)

// Metric answers follow Loki's LokiPromResponse: sample timestamps are
// seconds as JSON numbers (Prometheus lokidata.Time form, up to ms), values
// strings formatted with strconv 'f' -1 ("NaN", "+Inf", "-Inf").

// AppendMatrix writes a matrix answer.
func AppendMatrix(b []byte, series []lokidata.Series, st Stats) []byte {
	b = append(b, `{"status":"success","data":{"resultType":"matrix","result":[`...)
	for i, s := range series {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"metric":`...)
		b = appendLabelsObject(b, s.Metric)
		b = append(b, `,"values":[`...)
		b = appendPoints(b, s.Points)
		b = append(b, "]}"...)
	}
	return appendMetricTail(b, st)
}

// AppendVector writes a vector answer; each series holds one point.
func AppendVector(b []byte, series []lokidata.Series, st Stats) []byte {
	b = append(b, `{"status":"success","data":{"resultType":"vector","result":[`...)
	for i, s := range series {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"metric":`...)
		b = appendLabelsObject(b, s.Metric)
		b = append(b, `,"value":`...)
		b = appendPoint(b, s.Points[0])
		b = append(b, '}')
	}
	return appendMetricTail(b, st)
}

// AppendScalar writes a scalar answer.
func AppendScalar(b []byte, p lokidata.Point, st Stats) []byte {
	b = append(b, `{"status":"success","data":{"resultType":"scalar","result":`...)
	b = appendPoint(b, p)
	b = append(b, `,"stats":`...)
	b = st.appendTo(b)
	return append(b, "}}"...)
}

func appendMetricTail(b []byte, st Stats) []byte {
	b = append(b, `],"stats":`...)
	b = st.appendTo(b)
	return append(b, "}}"...)
}

// appendPoints writes a series' points, comma-separated. A value equal,
// bit for bit, to the one before is copied from the text written for it:
// counts and sparse series repeat values from step to step.
func appendPoints(b []byte, points []lokidata.Point) []byte {
	var prevBits uint64
	prevAt, prevEnd := -1, -1
	for j, p := range points {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendModelTime(b, p.TimestampMs)
		b = append(b, ",\""...)
		if bits := math.Float64bits(p.Value); prevAt >= 0 && bits == prevBits {
			b = append(b, b[prevAt:prevEnd]...)
		} else {
			prevAt, prevBits = len(b), bits
			b = appendValue(b, p.Value)
			prevEnd = len(b)
		}
		b = append(b, "\"]"...)
	}
	return b
}

// appendValue writes a value as strconv 'f' -1 does; integers below 2^53
// (what that writes as their digits) without float formatting.
func appendValue(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 && !(v == 0 && math.Signbit(v)) {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendPoint writes [seconds,"value"] with seconds as lokidata.Time prints
// them: integer seconds, or with the milliseconds after a dot.
func appendPoint(b []byte, p lokidata.Point) []byte {
	b = append(b, '[')
	b = appendModelTime(b, p.TimestampMs)
	b = append(b, ",\""...)
	b = appendValue(b, p.Value)
	return append(b, "\"]"...)
}

// appendModelTime writes milliseconds as Prometheus' lokidata.Time does:
// seconds, the shortest decimal of float64(ms)/1000. Below 1e15 ms (2^43
// seconds, where doubles are closer than 0.001) that is the exact decimal,
// written without float formatting.
func appendModelTime(b []byte, ms int64) []byte {
	if ms < 0 || ms >= 1e15 {
		return strconv.AppendFloat(b, float64(ms)/1000, 'f', -1, 64)
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	frac := ms % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}
