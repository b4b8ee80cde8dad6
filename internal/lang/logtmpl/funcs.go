// Package logtmpl runs line_format and label_format templates: Go
// text/template with the function set Loki v3.7.8 registers (its own
// functions and a subset of sprig), `__line__` and `__timestamp__`.
package logtmpl

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	"github.com/dustin/go-humanize"
	"github.com/grafana/regexp"
)

// sprigNames are the sprig functions Loki registers.
var sprigNames = []string{
	"b64enc", "b64dec", "lower", "upper", "title", "trunc", "substr", "contains", "hasPrefix", "hasSuffix",
	"indent", "nindent", "replace", "repeat", "trim", "trimAll", "trimSuffix", "trimPrefix", "int", "float64",
	"add", "sub", "mul", "div", "mod", "addf", "subf", "mulf", "divf", "max", "min", "maxf", "minf",
	"ceil", "floor", "round", "fromJson", "date", "toDate", "now", "unixEpoch", "default",
}

// baseFuncs is the shared function map, without the per-entry functions.
var baseFuncs = func() template.FuncMap {
	m := template.FuncMap{
		"ToLower": strings.ToLower, "ToUpper": strings.ToUpper, "Replace": strings.Replace,
		"Trim": strings.Trim, "TrimLeft": strings.TrimLeft, "TrimRight": strings.TrimRight,
		"TrimPrefix": strings.TrimPrefix, "TrimSuffix": strings.TrimSuffix, "TrimSpace": strings.TrimSpace,
		"regexReplaceAll":        regexReplaceAll,
		"regexReplaceAllLiteral": regexReplaceAllLiteral,
		"count":                  countMatches,
		"urldecode":              url.QueryUnescape,
		"urlencode":              url.QueryEscape,
		"bytes":                  bytesValue,
		"duration":               durationSeconds,
		"duration_seconds":       durationSeconds,
		"unixEpochMillis":        func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) },
		"unixEpochNanos":         func(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) },
		"toDateInZone":           toDateInZone,
		"unixToTime":             unixToTime,
		"alignLeft":              alignLeft,
		"alignRight":             alignRight,
		lineFunc:                 func() string { return "" },
		timestampFunc:            func() time.Time { return time.Time{} },
	}
	sprigFuncs := sprig.GenericFuncMap()
	for _, n := range sprigNames {
		if f, ok := sprigFuncs[n]; ok {
			m[n] = f
		}
	}
	return m
}()

const (
	lineFunc      = "__line__"
	timestampFunc = "__timestamp__"
)

func regexReplaceAll(re, s, repl string) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	return r.ReplaceAllString(s, repl), nil
}

func regexReplaceAllLiteral(re, s, repl string) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	return r.ReplaceAllLiteralString(s, repl), nil
}

func countMatches(re, s string) (int, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return 0, err
	}
	return len(r.FindAllStringIndex(s, -1)), nil
}

func bytesValue(v string) (float64, error) {
	b, err := humanize.ParseBytes(v)
	return float64(b), err
}

func durationSeconds(v string) (float64, error) {
	d, err := time.ParseDuration(v)
	return d.Seconds(), err
}

func toDateInZone(layout, zone, value string) time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	t, _ := time.ParseInLocation(layout, value, loc)
	return t
}

// unixToTime reads days, seconds, milliseconds, microseconds or
// nanoseconds since the epoch, told apart by the number of digits.
func unixToTime(epoch string) (time.Time, error) {
	i, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("unable to parse time '%v': %w", epoch, err)
	}
	switch len(epoch) {
	case 5:
		return time.Unix(i*86400, 0), nil
	case 10:
		return time.Unix(i, 0), nil
	case 13:
		return time.Unix(0, i*1e6), nil
	case 16:
		return time.Unix(0, i*1e3), nil
	case 19:
		return time.Unix(0, i), nil
	}
	// Loki wraps a nil error here; its message reads as Go prints that.
	return time.Time{}, fmt.Errorf("unable to parse time '%v': %w", epoch, nil)
}

func alignLeft(count int, src string) string {
	runes := []rune(src)
	if count < 0 || count == len(runes) {
		return src
	}
	if pad := count - len(runes); pad > 0 {
		return src + strings.Repeat(" ", pad)
	}
	return string(runes[:count])
}

func alignRight(count int, src string) string {
	runes := []rune(src)
	if count < 0 || count == len(runes) {
		return src
	}
	if pad := count - len(runes); pad > 0 {
		return strings.Repeat(" ", pad) + src
	}
	return string(runes[len(runes)-count:])
}
