package lokijson

import (
	"github.com/vloki/vloki/internal/lokidata"
)

// AppendLabels writes a labels or label-values answer. Loki's response
// type omits an empty data list, so no values give {"status":"success"}.
func AppendLabels(b []byte, values []string) []byte {
	b = append(b, `{"status":"success"`...)
	if len(values) > 0 {
		b = append(b, `,"data":`...)
		b = appendStringArray(b, values)
	}
	return append(b, "}\n"...)
}

// AppendSeries writes a series answer; data is always an array.
func AppendSeries(b []byte, sets []lokidata.Labels) []byte {
	b = append(b, `{"status":"success","data":[`...)
	for i, ls := range sets {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLabelsObject(b, ls)
	}
	return append(b, "]}\n"...)
}

// AppendFormatQuery writes format_query's success answer.
func AppendFormatQuery(b []byte, pretty string) []byte {
	b = append(b, `{"status":"success","data":`...)
	b = appendHTMLString(b, pretty)
	return append(b, "}\n"...)
}

// AppendFormatQueryError writes format_query's 400 answer.
func AppendFormatQueryError(b []byte, msg string) []byte {
	b = append(b, `{"status":"invalid-query","error":`...)
	b = appendHTMLString(b, msg)
	return append(b, "}\n"...)
}

// BuildInfo is the status/buildinfo answer (Prometheus' version struct).
type BuildInfo struct {
	Version, Revision, Branch, BuildUser, BuildDate, GoVersion string
}

// AppendBuildInfo writes the buildinfo answer.
func AppendBuildInfo(b []byte, bi BuildInfo) []byte {
	fields := [][2]string{{"version", bi.Version}, {"revision", bi.Revision}, {"branch", bi.Branch},
		{"buildUser", bi.BuildUser}, {"buildDate", bi.BuildDate}, {"goVersion", bi.GoVersion}}
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f[0])
		b = append(b, ':')
		b = appendString(b, f[1])
	}
	return append(b, "}\n"...)
}
