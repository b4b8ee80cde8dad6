package logsql

import (
	"fmt"
	"math"
	"strconv"
)

// BucketStats is `stats by (_time:<bucket> offset <offset>, by...)
// (without the _time bucket when BucketNs is 0) count() as c, <line bytes>`:
// per time bucket [offset + k*bucket, offset + (k+1)*bucket) and label
// group, the number of rows and the bytes of their lines (see LineBytes).
type BucketStats struct {
	BucketNs, OffsetNs int64
	// ExactTime groups by each row's exact timestamp instead of buckets.
	ExactTime bool
	By        []string
	Lines     LineBytes
	// NoBytes leaves out the line bytes.
	NoBytes bool
}

// LineBytes sums the bytes of the rows' lines as two columns: b, the sum
// of the Lengths field where rows carry it (a small numeric column), and
// b0, the length of _msg of the rows without it, leaving out rows marked
// by Exclude (empty lines stored with a placeholder _msg). VictoriaLogs
// reads _msg only for the rows of b0. Rows with Lengths are told by
// `:>=0`: VictoriaLogs v1.121.0 misreads `:*` on a numeric column inside
// a stats `if`, taking every row for one without the field.
type LineBytes struct{ Lengths, Exclude string }

func (l LineBytes) appendTo(b []byte) []byte {
	b = append(b, "sum("...)
	b = append(b, Quote(l.Lengths)...)
	b = append(b, ") as b, sum_len(_msg) if ("...)
	b = And{Not{F: AtLeast{Field: l.Lengths}}, Not{F: Exact{Field: l.Exclude, Value: "1"}}}.appendTo(b)
	return append(b, ") as b0"...)
}

// ParseLineBytes adds up the b and b0 columns of LineBytes (b is NaN when
// no row of the group carries the Lengths field).
func ParseLineBytes(sum, sumLen []byte) (int64, error) {
	n, err := strconv.ParseInt(string(sumLen), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs sum_len %q: %w", sumLen, err)
	}
	if string(sum) == "NaN" {
		return n, nil
	}
	f, err := strconv.ParseFloat(string(sum), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, fmt.Errorf("VictoriaLogs sum of line lengths %q is not an exact count", sum)
	}
	return n + int64(f), nil
}

func (p BucketStats) appendTo(b []byte) []byte {
	b = append(b, "stats by ("...)
	sep := ""
	if p.ExactTime {
		b = append(b, "_time"...)
		sep = ", "
	} else if p.BucketNs > 0 {
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
	b = append(b, ", "...)
	return p.Lines.appendTo(b)
}

func appendNs(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns, 10)
	return append(b, "ns"...)
}

// IndexStats is `stats count() as c, count_uniq(_stream) as s, <line
// bytes>`: the entries, streams and line bytes of the selected rows.
type IndexStats struct{ Lines LineBytes }

func (p IndexStats) appendTo(b []byte) []byte {
	b = append(b, "stats count() as c, count_uniq(_stream) as s, "...)
	return p.Lines.appendTo(b)
}
