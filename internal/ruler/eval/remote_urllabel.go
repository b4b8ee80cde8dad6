package eval

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// urlLabelRegisterer registers Prometheus' remote storage metrics with
// their url label showing the receiver rather than the relay the queue
// writes to. The collectors keep their descriptions (which name the
// relay), so that unregistering them finds them; only the collected
// values change, which the registry does not compare with the
// descriptions (it is not pedantic). Unregister is the embedded one: it
// finds a collector by its descriptions, which the wrapper shares.
type urlLabelRegisterer struct {
	prometheus.Registerer
	urls map[string]string // relay URL → receiver URL
}

func (r urlLabelRegisterer) Register(c prometheus.Collector) error {
	return r.Registerer.Register(urlLabelCollector{c, r.urls})
}

func (r urlLabelRegisterer) MustRegister(cs ...prometheus.Collector) {
	wrapped := make([]prometheus.Collector, len(cs))
	for i, c := range cs {
		wrapped[i] = urlLabelCollector{c, r.urls}
	}
	r.Registerer.MustRegister(wrapped...)
}

type urlLabelCollector struct {
	prometheus.Collector
	urls map[string]string
}

func (c urlLabelCollector) Collect(ch chan<- prometheus.Metric) {
	in := make(chan prometheus.Metric)
	go func() {
		c.Collector.Collect(in)
		close(in)
	}()
	for m := range in {
		ch <- urlLabelMetric{m, c.urls}
	}
}

type urlLabelMetric struct {
	prometheus.Metric
	urls map[string]string
}

func (m urlLabelMetric) Write(out *dto.Metric) error {
	if err := m.Metric.Write(out); err != nil {
		return err
	}
	// New pairs in a new slice: the old ones may be the description's.
	pairs := make([]*dto.LabelPair, len(out.Label))
	for i, lp := range out.Label {
		pairs[i] = lp
		if to, ok := m.urls[lp.GetValue()]; ok && lp.GetName() == "url" {
			pairs[i] = &dto.LabelPair{Name: lp.Name, Value: &to}
		}
	}
	out.Label = pairs
	return nil
}
