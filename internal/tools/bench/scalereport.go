package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Markdown renders the dataset, the ingestion table, the queries asked and
// one row per query, load and target.
func (r *ScaleReport) Markdown() string {
	var b strings.Builder
	r.writeDataset(&b)
	r.writeIngestion(&b)
	r.writeQueries(&b)
	r.writeSummary(&b)
	if r.Queries != nil && len(r.Queries.Verdicts) > 0 {
		b.WriteString("Answers compared (the parity comparator: streams, labels, timestamps, lines, values, status, error text):\n\n")
		writeVerdicts(&b, r.Queries.Verdicts)
		b.WriteString("\n")
	}
	r.writeSteps(&b)
	return b.String()
}

func (r *ScaleReport) writeDataset(b *strings.Builder) {
	d := r.Dataset
	fmt.Fprintf(b, "Dataset: %s lines over %g days ending %s, %s streams", thousands(d.Lines), d.Days, d.Now.UTC().Format(time.RFC3339), thousands(r.Streams))
	if len(r.Ingestion) > 0 && r.Ingestion[0].Lines > 0 {
		fmt.Fprintf(b, ", %d bytes a line on average", r.Ingestion[0].LineBytes/int64(r.Ingestion[0].Lines))
	}
	b.WriteString(".\n\n")
}

func (r *ScaleReport) writeIngestion(b *strings.Builder) {
	if len(r.Ingestion) == 0 {
		return
	}
	b.WriteString("Ingestion, each target alone. CPU s and peak RSS: the target's processes (vloki-ext: vloki + its VictoriaLogs).\n\n")
	b.WriteString("| target | via | lines | lines/s | MB/s of lines | CPU s | CPU s per M lines | peak RSS | counted back |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, in := range r.Ingestion {
		perM := in.Usage.CPUSeconds / max(float64(in.Lines)/1e6, 1e-9)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %.1f | %s | %.1f | %s | %s |\n", in.Target, in.Via, thousands(in.Lines),
			thousands(int(in.LinesPerSecond)), float64(in.LineBytes)/1e6/max(in.Seconds, 1e-9),
			cpuCell(in.Usage), perM, rssCell(in.Usage), countedCell(in))
	}
	b.WriteString("\n")
	r.writeIngestQueries(b)
	for _, in := range r.Ingestion {
		if in.NotCounted != "" {
			fmt.Fprintf(b, "%s took every push but did not count them back (%s).\n\n", in.Target, in.NotCounted)
		}
	}
}

func countedCell(in Ingestion) string {
	if in.CountedBack < 0 {
		return "no answer"
	}
	return thousands(in.CountedBack)
}

// writeQueries lists each workload's query and its LogsQL twin.
func (r *ScaleReport) writeQueries(b *strings.Builder) {
	if len(r.Workloads) == 0 {
		return
	}
	b.WriteString("Queries (LogQL; LogsQL twin asked of VictoriaLogs directly):\n\n")
	for _, w := range r.Workloads {
		q := w.Queries(r.Dataset.Now)[0]
		fmt.Fprintf(b, "- **%s**: %s%s", w.Name, code(describe(q.Path, q.Params)), rangeNote(q.Params))
		if q.Twin != nil {
			fmt.Fprintf(b, "; twin %s", code(describe(q.Twin.Path, q.Twin.Params)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// code is s as a Markdown code span; one holding a backquote (the
// benchmark's `\bqueen\b`) is fenced by two.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// describe names a request by its query, or its path when it has none.
func describe(path string, params map[string]string) string {
	s := params["query"]
	if m := params["match[]"]; m != "" {
		s = "match[]=" + m
	}
	if s == "" || !strings.HasSuffix(path, "query_range") && !strings.HasSuffix(path, "query") {
		s = strings.TrimSpace(path + " " + s)
	}
	return s
}

func rangeNote(p map[string]string) string {
	var parts []string
	if l := p["limit"]; l != "" {
		parts = append(parts, "limit "+l)
	}
	if st := p["step"]; st != "" {
		parts = append(parts, "step "+st+"s")
	} else if p["query"] != "" && p["limit"] == "" && p["start"] != "" {
		parts = append(parts, "no step")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// writeSummary is one row per query and load: each target's p50 / p99
// and each vloki's p50 as a ratio of VictoriaLogs' answering the twin.
func (r *ScaleReport) writeSummary(b *strings.Builder) {
	if r.Queries == nil || len(r.Queries.Steps) == 0 {
		return
	}
	targets := r.targetNames()
	b.WriteString("p50 / p99 per query (closed loop):\n\n| query | clients |")
	for _, t := range targets {
		b.WriteString(" " + t + " |")
	}
	others := slices.DeleteFunc(slices.Clone(targets), func(t string) bool { return t == "victorialogs" })
	for _, t := range others {
		b.WriteString(" " + t + " ÷ VictoriaLogs (p50) |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(targets)+len(others)) + "\n")
	for _, g := range r.Queries.groups() {
		fmt.Fprintf(b, "| %s | %d |", g.steps[0].Workload, g.steps[0].Clients)
		for _, t := range targets {
			b.WriteString(" " + latencyCell(g.find(t)) + " |")
		}
		for _, t := range others {
			s := g.find(t)
			cell := ""
			if s != nil {
				cell = latencyRatio(*s, g.find("victorialogs"))
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// targetNames are the targets in the order they were run.
func (r *ScaleReport) targetNames() []string {
	var out []string
	for _, s := range r.Queries.Steps {
		if !slices.Contains(out, s.Target) {
			out = append(out, s.Target)
		}
	}
	return out
}

func latencyCell(s *Step) string {
	switch {
	case s == nil || s.Queries == 0:
		return "—"
	case s.ErrorRate == 1:
		return "errors"
	}
	return ms(s.P50) + " / " + ms(s.P99)
}

func (r *ScaleReport) writeSteps(b *strings.Builder) {
	if r.Queries == nil {
		return
	}
	fmt.Fprintf(b, "Queries, closed loop, %s a step, windows %s. CPU s and peak RSS: the target's processes during the step.\n\n",
		r.Queries.Duration, r.Queries.Window)
	b.WriteString("| query | clients | target | req/s | p50 | p99 | errors | CPU s | peak RSS | p50 ÷ VictoriaLogs |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range r.Queries.groups() {
		vl := g.find("victorialogs")
		for _, s := range g.steps {
			if s.Queries == 0 {
				fmt.Fprintf(b, "| %s | %d | %s | no twin |  |  |  |  |  |  |\n", s.Workload, s.Clients, s.Target)
				continue
			}
			fmt.Fprintf(b, "| %s | %d | %s | %.1f | %s | %s | %s | %s | %s | %s |\n", s.Workload, s.Clients, s.Target,
				s.Throughput, ms(s.P50), ms(s.P99), errorCell(s), cpuCell(s.Usage), rssCell(s.Usage), latencyRatio(s, vl))
		}
	}
}

// latencyRatio is s's p50 over VictoriaLogs' answering the twin.
func latencyRatio(s Step, vl *Step) string {
	if vl == nil || vl.Target == s.Target || vl.Queries == 0 || vl.P50 == 0 || vl.ErrorRate == 1 {
		return ""
	}
	return fmt.Sprintf("%.2f", float64(s.P50)/float64(vl.P50))
}

// cpuCell is the CPU total, split by process when there are several.
func cpuCell(u ProcUsage) string {
	out := fmt.Sprintf("%.1f", u.CPUSeconds)
	if len(u.Processes) > 1 {
		var parts []string
		for _, p := range u.Processes {
			parts = append(parts, fmt.Sprintf("%.1f", p.CPUSeconds))
		}
		out += " (" + strings.Join(parts, " + ") + ")"
	}
	return out
}

// rssCell is each process's peak RSS, and of it the peak of anonymous
// memory (what is not the store's mapped file pages); then the first
// process's Go heap at its largest.
func rssCell(u ProcUsage) string {
	var parts []string
	if len(u.Processes) == 0 {
		parts = append(parts, rssAnon(u.PeakRSS, u.PeakAnon))
	}
	for _, p := range u.Processes {
		parts = append(parts, rssAnon(p.PeakRSS, p.PeakAnon))
	}
	out := strings.Join(parts, " + ")
	if h := u.GoHeap; h != nil {
		out += "; Go heap " + mib(h.Held) + " (in use " + mib(h.InUse) + ", goal " + mib(h.Goal) + ")"
	}
	return out
}

func rssAnon(rss, anon int64) string {
	if anon == 0 {
		return mib(rss)
	}
	return mib(rss) + " (anon " + mib(anon) + ")"
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// writeIngestQueries shows what the clients querying during each
// ingestion saw, when the run had them.
func (r *ScaleReport) writeIngestQueries(b *strings.Builder) {
	if len(r.Ingestion) == 0 || r.Ingestion[0].WhileQueried == nil {
		return
	}
	fmt.Fprintf(b, "Queried while ingesting, by %d closed-loop clients (CPU and RSS above include their queries):\n\n",
		r.Ingestion[0].WhileQueried.Clients)
	b.WriteString("| target | requests | req/s | p50 | p99 | errors |\n|---|---|---|---|---|---|\n")
	for _, in := range r.Ingestion {
		if q := in.WhileQueried; q != nil {
			fmt.Fprintf(b, "| %s | %s | %.1f | %s | %s | %.1f%% |\n", in.Target, thousands(int(q.Requests)), q.Throughput,
				ms(q.P50), ms(q.P99), 100*q.ErrorRate)
		}
	}
	b.WriteString("\n")
}
