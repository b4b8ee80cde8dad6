package streamindex

import "github.com/vloki/vloki/internal/lang/logql"

// postings are a tenant's streams by label name and value, so a selector
// with an equality matcher visits the streams holding that pair, not all
// the tenant's: at 25,600 streams a scan matching each took milliseconds,
// more than the storage's own answer for one host. Streams are never
// removed one by one (Forget drops them all), so the lists only grow; they
// cost a pointer per stream and label, within MaxStreams.
type postings map[string]map[string][]*stream

func (p postings) add(st *stream) {
	for _, l := range st.labels {
		values := p[l.Name]
		if values == nil {
			values = map[string][]*stream{}
			p[l.Name] = values
		}
		values[l.Value] = append(values[l.Value], st)
	}
}

// addStream keeps a new stream under its key, in all and in postings.
func (tn *tenantIndex) addStream(key string, st *stream) {
	tn.streams[key] = st
	tn.all = append(tn.all, st)
	tn.postings.add(st)
}

// candidates are the streams that may match ms: the shortest list among
// its equality matchers', or every stream when it has none (a matcher
// for an empty value also matches streams without the label).
func (tn *tenantIndex) candidates(ms []*logql.Matcher) []*stream {
	best, found := tn.all, false
	for _, m := range ms {
		if m.Type != logql.MatchEqual || m.Value == "" {
			continue
		}
		list := tn.postings[m.Name][m.Value]
		if !found || len(list) < len(best) {
			best, found = list, true
		}
	}
	return best
}
