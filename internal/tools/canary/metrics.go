package canary

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector exposes the figures so far as Prometheus metrics, named as
// Counters names them (loki-canary's names, so its dashboards read them).
func (k *Canary) Collector() prometheus.Collector { return collector{k} }

type collector struct{ k *Canary }

// Describe sends nothing: the collector is unchecked.
func (collector) Describe(chan<- *prometheus.Desc) {}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	r := c.k.Snapshot()
	for name, v := range r.Counters() {
		typ := prometheus.UntypedValue
		switch {
		case strings.HasSuffix(name, "_total"):
			typ = prometheus.CounterValue
		case strings.HasSuffix(name, "_expected"), strings.HasSuffix(name, "_actual"):
			typ = prometheus.GaugeValue
		}
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, "vloki's canary: "+strings.ReplaceAll(name, "_", " "), nil, nil), typ, v)
	}
}
