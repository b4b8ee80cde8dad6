package logql

import "testing"

// Typical Grafana queries: Explore's selector, a json pipeline with a
// filter, the log volume query, a ratio of rates.
var benchQueries = map[string]string{
	"selector":     `{app="api", env=~"prod|staging"}`,
	"json_filter":  `{app="api"} |= "error" | json | status >= 500 and path!~"/health.*"`,
	"log_volume":   `sum by (level) (count_over_time({app="api"} | drop __error__ [1m]))`,
	"rate_ratio":   `sum(rate({app="api"} |= "error" [5m])) / sum(rate({app="api"}[5m]))`,
	"unwrap_quant": `quantile_over_time(0.99, {app="api"} | logfmt | unwrap duration(latency) | __error__="" [5m]) by (route)`,
}

func BenchmarkParse(b *testing.B) {
	for name, q := range benchQueries {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseExpr(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
