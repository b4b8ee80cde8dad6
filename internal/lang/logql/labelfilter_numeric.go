package logql

import (
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// ValueKind is how a comparison label filter reads the label.
type ValueKind int

// Value kinds, chosen by the literal: 5, 1.5s, 10KB.
const (
	NumberValue ValueKind = iota
	DurationValue
	BytesValue
)

// CompareLabelFilter is `name op literal` for numbers, durations and bytes.
// A missing label drops the entry; a value that does not convert keeps it
// and sets __error__="LabelFilterErr" (unless an error is set already).
type CompareLabelFilter struct {
	Name     string
	Op       string // = == != > >= < <=
	Kind     ValueKind
	Number   float64
	Duration time.Duration
	Bytes    uint64
	Text     string // the literal as written
}

const labelFilterErr = "LabelFilterErr"

// Match converts the label's value and compares it.
func (f *CompareLabelFilter) Match(l Entry) bool {
	v, ok := l.Label(f.Name)
	if !ok {
		return false
	}
	var cmp int
	var err error
	switch f.Kind {
	case DurationValue:
		var d time.Duration
		if d, err = time.ParseDuration(v); err == nil {
			cmp = compareOrdered(d, f.Duration)
		}
	case BytesValue:
		var b uint64
		if b, err = humanize.ParseBytes(v); err == nil {
			cmp = compareOrdered(b, f.Bytes)
		}
	default:
		var n float64
		if n, err = strconv.ParseFloat(v, 64); err == nil {
			return compareNumbers(f.Op, n, f.Number)
		}
	}
	if err != nil {
		l.SetErrorOnce(labelFilterErr, err.Error())
		return true
	}
	return holds(f.Op, cmp)
}

func compareOrdered[T int64 | uint64 | time.Duration](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareNumbers keeps float semantics (NaN compares false).
func compareNumbers(op string, a, b float64) bool {
	if op == "=" {
		op = "=="
	}
	cmp, _ := LookupBinaryOp(op)
	return cmp.Compare(a, b)
}

func holds(op string, cmp int) bool {
	switch op {
	case "=", "==":
		return cmp == 0
	case "!=":
		return cmp != 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	case "<":
		return cmp < 0
	}
	return cmp <= 0
}

// String prints the filter as Loki does: `=` as `==`, durations in Go's
// form, bytes in humanize's form without spaces.
func (f *CompareLabelFilter) String() string {
	op := f.Op
	if op == "=" {
		op = "=="
	}
	switch f.Kind {
	case DurationValue:
		return f.Name + op + f.Duration.String()
	case BytesValue:
		return f.Name + op + strings.ReplaceAll(humanize.Bytes(f.Bytes), " ", "")
	}
	return f.Name + op + strconv.FormatFloat(f.Number, 'f', -1, 64)
}
