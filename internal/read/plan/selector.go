package plan

import (
	"strings"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// StreamFilter translates Loki matchers to a VictoriaLogs stream filter.
// Both compare a missing label as "" and anchor regexes; Loki's regexes
// also let `.` match a newline, which (?s:) preserves. For data other
// agents wrote (f set), a matcher on a renamed or derived label becomes
// a choice between the stored fields it may come from.
func StreamFilter(ms []*logql.Matcher, f *otheragents.Config) logsql.Filter {
	plain := logsql.StreamFilter{Matchers: make([]logsql.StreamMatcher, 0, len(ms))}
	var chains logsql.And
	for _, m := range ms {
		if chain, fallback := labelSources(m.Name, f); len(chain) != 1 || chain[0] != m.Name || fallback != "" {
			chains = append(chains, chainFilter(m, chain, fallback))
			continue
		}
		plain.Matchers = append(plain.Matchers, streamMatcher(m.Name, m))
	}
	if len(chains) == 0 {
		return plain
	}
	if len(plain.Matchers) == 0 {
		return chains
	}
	return append(logsql.And{plain}, chains...)
}

// labelSources lists the stored stream fields whose first non-empty value
// is a stream's label name, and the value when none is set ("" for none).
func labelSources(name string, f *otheragents.Config) ([]string, string) {
	if f == nil {
		return []string{name}, ""
	}
	if name == otheragents.ServiceNameLabel {
		if chain := f.ServiceChain(); chain != nil {
			return chain, otheragents.UnknownService
		}
	}
	return f.Names.VL(name), ""
}

// chainFilter selects streams whose label, the first non-empty of the
// chain's fields (else fallback), satisfies m: one stream filter per
// position in the chain.
func chainFilter(m *logql.Matcher, chain []string, fallback string) logsql.Filter {
	alts := logsql.Or{}
	for i, field := range chain {
		sf := logsql.StreamFilter{}
		for _, before := range chain[:i] {
			sf.Matchers = append(sf.Matchers, logsql.StreamMatcher{Label: before, Op: logsql.StreamEq})
		}
		sf.Matchers = append(sf.Matchers, logsql.StreamMatcher{Label: field, Op: logsql.StreamNotEq},
			streamMatcher(field, m))
		alts = append(alts, sf)
	}
	if m.Matches(fallback) {
		sf := logsql.StreamFilter{}
		for _, field := range chain {
			sf.Matchers = append(sf.Matchers, logsql.StreamMatcher{Label: field, Op: logsql.StreamEq})
		}
		alts = append(alts, sf)
	}
	return alts
}

func streamMatcher(field string, m *logql.Matcher) logsql.StreamMatcher {
	return logsql.StreamMatcher{Label: field, Op: streamOp(m.Type), Value: streamValue(m)}
}

func streamOp(t logql.MatchType) logsql.StreamOp {
	switch t {
	case logql.MatchNotEqual:
		return logsql.StreamNotEq
	case logql.MatchRegexp:
		return logsql.StreamRegex
	case logql.MatchNotRegexp:
		return logsql.StreamNotRegex
	}
	return logsql.StreamEq
}

func streamValue(m *logql.Matcher) string {
	if (m.Type == logql.MatchRegexp || m.Type == logql.MatchNotRegexp) && strings.Contains(m.Value, ".") {
		return "(?s:" + m.Value + ")"
	}
	return m.Value
}

// SelectorQuery is the LogsQL text selecting a stream selector's rows.
func SelectorQuery(ms []*logql.Matcher, f *otheragents.Config) string {
	return logsql.Query{Filter: StreamFilter(ms, f)}.String()
}
