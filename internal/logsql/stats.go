package logsql

import "strconv"

// BucketStats is `stats by (_time:<bucket> offset <offset>, by...)
// (without the _time bucket when BucketNs is 0)
// count() as c, sum_len(_msg) if (!(<exclude>:="1")) as b`: per time bucket
// [offset + k*bucket, offset + (k+1)*bucket) and label group, the number of
// rows and the bytes of their _msg (rows marked by Exclude count 0 bytes).
type BucketStats struct {
	BucketNs, OffsetNs int64
	By                 []string
	Exclude            string
	// NoBytes leaves out the sum_len, which reads every _msg.
	NoBytes bool
}

func (p BucketStats) appendTo(b []byte) []byte {
	b = append(b, "stats by ("...)
	sep := ""
	if p.BucketNs > 0 {
		b = append(b, "_time:"...)
		b = appendNs(b, p.BucketNs)
		b = append(b, " offset "...)
		b = appendNs(b, p.OffsetNs)
		sep = ", "
	}
	for _, f := range p.By {
		b = append(b, sep...)
		b = appendFieldName(b, f)
		sep = ", "
	}
	b = append(b, ") count() as c"...)
	if p.NoBytes {
		return b
	}
	b = append(b, ", sum_len(_msg)"...)
	if p.Exclude != "" {
		b = append(b, " if ("...)
		b = Not{F: Exact{Field: p.Exclude, Value: "1"}}.appendTo(b)
		b = append(b, ')')
	}
	return append(b, " as b"...)
}

func appendNs(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns, 10)
	return append(b, "ns"...)
}

// IndexStats is `stats count() as c, count_uniq(_stream) as s,
// sum_len(_msg) if (!(<exclude>:="1")) as b`: the entries, streams and
// line bytes of the selected rows.
type IndexStats struct{ Exclude string }

func (p IndexStats) appendTo(b []byte) []byte {
	b = append(b, "stats count() as c, count_uniq(_stream) as s, sum_len(_msg) if ("...)
	b = Not{F: Exact{Field: p.Exclude, Value: "1"}}.appendTo(b)
	return append(b, ") as b"...)
}
