package lokijson

import (
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
		for j, p := range s.Points {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendPoint(b, p)
		}
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

// appendPoint writes [seconds,"value"] with seconds as lokidata.Time prints
// them: integer seconds, or with the milliseconds after a dot.
func appendPoint(b []byte, p lokidata.Point) []byte {
	b = append(b, '[')
	b = appendModelTime(b, p.TimestampMs)
	b = append(b, ",\""...)
	b = strconv.AppendFloat(b, p.Value, 'f', -1, 64)
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
