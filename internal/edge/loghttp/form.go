package loghttp

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// Form is a request's parameters, read from it once at the edge
// (ReadForm), sorted by name (each name's values in the order given): the
// decoders read them, and Key lists them to identify the answer.
type Form struct {
	params []param
}

type param struct{ name, value string }

// formsRead counts ReadForm calls: a test holds every request to one.
var formsRead atomic.Uint64

// FormsRead is how many requests' parameters were read so far (each
// request's once, at the edge; the decode-once test counts them).
func FormsRead() uint64 { return formsRead.Load() }

// ReadForm reads the request's parameters: a GET's straight from its
// query string (sparing the url.Values map), anything else's, and a query
// string Go's parser would refuse, with ParseForm, whose errors are the
// answer's.
func ReadForm(r *http.Request) (*Form, error) {
	formsRead.Add(1)
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if ps, ok := queryParams(r.URL.RawQuery); ok {
			return &Form{params: sorted(ps)}, nil
		}
	}
	if err := r.ParseForm(); err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	return FormOf(r.Form), nil
}

// queryParams reads a raw query string; false when Go's parser would
// refuse it (semicolons, bad escapes).
func queryParams(raw string) ([]param, bool) {
	ps := make([]param, 0, strings.Count(raw, "&")+1)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return nil, false
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return nil, false
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return nil, false
		}
		ps = append(ps, param{name, value})
	}
	return ps, true
}

// FormOf is a Form over given values, for callers that are not HTTP
// requests (tests) and for parsed forms.
func FormOf(values url.Values) *Form {
	var ps []param
	for k, vs := range values {
		for _, v := range vs {
			ps = append(ps, param{k, v})
		}
	}
	return &Form{params: sorted(ps)}
}

// sorted orders parameters by name, each name's values as given.
func sorted(ps []param) []param {
	slices.SortStableFunc(ps, func(a, b param) int { return strings.Compare(a.name, b.name) })
	return ps
}

// get is the parameter's first value.
func (f *Form) get(name string) string {
	for _, p := range f.params {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// all is every value of the parameter.
func (f *Form) all(name string) []string {
	var out []string
	for _, p := range f.params {
		if p.name == name {
			out = append(out, p.value)
		}
	}
	return out
}

// has reports whether the parameter was given a value.
func (f *Form) has(name string) bool { return f.get(name) != "" }

// Key lists the parameters by name (each name's values in the order
// given), leaving out those named in except.
func (f *Form) Key(except ...string) string {
	var b strings.Builder
	for _, p := range f.params {
		if slices.Contains(except, p.name) {
			continue
		}
		b.WriteByte('\x00')
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(p.value)
	}
	return b.String()
}

// Query is the query parameter, for endpoints that parse it before their
// other parameters (tail).
func (f *Form) Query() string { return f.get("query") }
