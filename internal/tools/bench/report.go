package bench

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Step is the outcome of one workload at one load against one target.
type Step struct {
	Workload string `json:"workload"`
	Target   string `json:"target"`
	Clients  int    `json:"clients,omitempty"`
	Rate     int    `json:"rate,omitempty"`
	// Queries is how many of the workload's queries the target was asked
	// (VictoriaLogs only those with a LogsQL twin).
	Queries    int            `json:"queries"`
	Requests   uint64         `json:"requests"`
	Throughput float64        `json:"throughput_rps"`
	P50        time.Duration  `json:"p50"`
	P90        time.Duration  `json:"p90"`
	P99        time.Duration  `json:"p99"`
	Max        time.Duration  `json:"max"`
	ErrorRate  float64        `json:"error_rate"`
	Codes      map[string]int `json:"status_codes"`
	MeanBytes  float64        `json:"mean_bytes"`
	Usage      ProcUsage      `json:"usage"`
	Errors     []string       `json:"errors,omitempty"`
	// PerQuery: each workload query's answers and summed latency.
	PerQuery map[string]QueryTime `json:"per_query,omitempty"`
}

func newStep(w Workload, tg Target, l Load, queries int, m *tally, u ProcUsage) Step {
	s := Step{Workload: w.Name, Target: tg.Name, Clients: l.Clients, Rate: l.Rate, Queries: queries,
		Requests: m.requests, Throughput: m.throughput(), P50: m.quantile(0.50), P90: m.quantile(0.90),
		P99: m.quantile(0.99), Max: m.max, Codes: m.codes, MeanBytes: m.meanBytes(), Usage: u, Errors: m.errors, PerQuery: m.perQuery, ErrorRate: m.errorRate()}
	if l.Rate > 0 {
		s.Clients = 0
	}
	return s
}

// Report is a whole run.
type Report struct {
	Date     time.Time     `json:"date"`
	Duration time.Duration `json:"step_duration"`
	// Window is the window mode every request was placed by.
	Window   WindowMode `json:"window"`
	Steps    []Step     `json:"steps"`
	Verdicts []Verdict  `json:"verdicts"`
}

// JSON renders the report for machines.
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// Markdown renders one table per workload and load, a row per target,
// with vloki's throughput as a ratio of VictoriaLogs' and of Loki's.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vloki-bench, %s, %s per step, windows %s. req/s: successful answers a second; CPU s: the target's processes (vloki-ext: vloki and its VictoriaLogs); peak RSS: the target's own process.\n\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Duration, r.Window)
	b.WriteString("| workload | load | target | queries | req/s | p50 | p90 | p99 | max | errors | bytes/answer | CPU s | peak RSS | ÷ VictoriaLogs | ÷ Loki |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range r.groups() {
		vl, loki := g.find("victorialogs"), g.find("loki")
		for _, s := range g.steps {
			if s.Queries == 0 {
				fmt.Fprintf(&b, "| %s | %s | %s | no LogsQL twin |  |  |  |  |  |  |  |  |  |  |  |\n", s.Workload, s.load(), s.Target)
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %.1f | %s | %s | %s |\n",
				s.Workload, s.load(), s.Target, s.Queries, s.Throughput, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max),
				errorCell(s), bytesCell(s.MeanBytes), s.Usage.CPUSeconds, mib(s.Usage.PeakRSS), ratio(s, vl), ratio(s, loki))
		}
	}
	b.WriteString("\n")
	writeVerdicts(&b, r.Verdicts)
	writePerQuery(&b, r.groups())
	return b.String()
}

// writeVerdicts lists how each workload's answers compare with the
// reference's.
func writeVerdicts(b *strings.Builder, verdicts []Verdict) {
	for _, v := range verdicts {
		fmt.Fprintf(b, "- **%s**: %d of %d queries answer as %s", v.Workload, v.Identical, v.Total, v.Reference)
		if len(v.Differing) == 0 {
			b.WriteString(" (all identical)\n")
			continue
		}
		b.WriteString("; differing:\n")
		for _, d := range v.Differing {
			fmt.Fprintf(b, "  - %s\n", d)
		}
	}
}

type group struct{ steps []Step }

func (g group) find(name string) *Step {
	for i := range g.steps {
		if g.steps[i].Target == name {
			return &g.steps[i]
		}
	}
	return nil
}

// groups gathers steps of one workload and load, in run order.
func (r *Report) groups() []group {
	var keys []string
	by := map[string]*group{}
	for _, s := range r.Steps {
		k := s.Workload + "|" + s.load()
		if by[k] == nil {
			by[k] = &group{}
			keys = append(keys, k)
		}
		by[k].steps = append(by[k].steps, s)
	}
	out := make([]group, 0, len(keys))
	for _, k := range keys {
		out = append(out, *by[k])
	}
	return out
}

func (s Step) load() string {
	if s.Rate > 0 {
		return fmt.Sprintf("%d req/s open", s.Rate)
	}
	return fmt.Sprintf("%d clients", s.Clients)
}

// ratio is s's throughput over the reference's, for vloki's rows.
func ratio(s Step, ref *Step) string {
	if ref == nil || ref.Target == s.Target || !strings.HasPrefix(s.Target, "vloki") || ref.Throughput == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", s.Throughput/ref.Throughput)
}

func errorCell(s Step) string {
	if s.ErrorRate == 0 {
		return "0"
	}
	var codes []string
	for c, n := range s.Codes {
		if !strings.HasPrefix(c, "2") {
			codes = append(codes, fmt.Sprintf("%s×%d", c, n))
		}
	}
	sort.Strings(codes)
	return fmt.Sprintf("%.1f%% (%s)", 100*s.ErrorRate, strings.Join(codes, " "))
}

func ms(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d µs", d.Microseconds())
}

func bytesCell(b float64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	if b >= 1<<10 {
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func mib(b int64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// writePerQuery lists each query's mean latency per target, a table per
// workload and load, so a slow workload shows which of its queries make
// it slow.
func writePerQuery(b *strings.Builder, groups []group) {
	for _, g := range groups {
		var names []string
		seen := map[string]bool{}
		for _, s := range g.steps {
			for name := range s.PerQuery {
				if !seen[name] {
					seen[name] = true
					names = append(names, name)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		fmt.Fprintf(b, "\nMean latency per query, %s, %s:\n\n| query |", g.steps[0].Workload, g.steps[0].load())
		for _, s := range g.steps {
			fmt.Fprintf(b, " %s |", s.Target)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(g.steps)) + "\n")
		for _, name := range names {
			fmt.Fprintf(b, "| %s |", name)
			for _, s := range g.steps {
				if q, ok := s.PerQuery[name]; ok {
					fmt.Fprintf(b, " %s |", ms(q.Mean()))
				} else {
					b.WriteString("  |")
				}
			}
			b.WriteString("\n")
		}
	}
}
