package bench

import (
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// IngestQueries is what the clients querying a target during its
// ingestion saw.
type IngestQueries struct {
	Clients    int           `json:"clients"`
	Requests   uint64        `json:"requests"`
	Throughput float64       `json:"throughput_rps"`
	P50        time.Duration `json:"p50"`
	P99        time.Duration `json:"p99"`
	ErrorRate  float64       `json:"error_rate"`
	Errors     []string      `json:"errors,omitempty"`
}

// querying is a closed loop running beside an ingestion.
type querying struct {
	clients int
	quit    atomic.Bool
	done    chan *tally
}

// startQuerying starts cfg.IngestLoad's clients on tg, or nothing when
// the run asks for none (a nil *querying stops as a no-op).
func startQuerying(d *scaledata.Dataset, tg Target, cfg ScaleConfig) *querying {
	if cfg.IngestLoad.Clients <= 0 || len(cfg.IngestWorkloads) == 0 {
		return nil
	}
	src, n := requests(tg, joined(cfg.IngestWorkloads), Window{}, d.End())
	if n == 0 {
		return nil
	}
	q := &querying{clients: cfg.IngestLoad.Clients, done: make(chan *tally, 1)}
	go func() {
		var sent atomic.Uint64
		q.done <- closedLoopWhile(src, cfg.IngestLoad, &sent, func() bool { return !q.quit.Load() })
	}()
	return q
}

// stop ends the clients once their requests in flight are answered.
func (q *querying) stop() *IngestQueries {
	if q == nil {
		return nil
	}
	q.quit.Store(true)
	m := <-q.done
	return &IngestQueries{Clients: q.clients, Requests: m.requests, Throughput: m.throughput(),
		P50: m.quantile(0.50), P99: m.quantile(0.99), ErrorRate: m.errorRate(), Errors: m.errors}
}

// joined is one workload asking each of ws' queries in turn.
func joined(ws []Workload) Workload {
	return Workload{Name: "while ingesting", Queries: func(now time.Time) []Query {
		var qs []Query
		for _, w := range ws {
			qs = append(qs, w.Queries(now)...)
		}
		return qs
	}}
}

// IngestWorkloads are the queries asked while a dataset is ingested, as
// a dashboard refreshing beside the agents: a logs panel and a volume
// panel of one region (of one host over 25,600 streams).
func IngestWorkloads(d *scaledata.Dataset) []string {
	if d.Config().Hosts {
		return []string{"hc hostname", "hc hostname_logs_volume"}
	}
	return []string{"qw datacenter", "qw datacenter_logs_volume"}
}
