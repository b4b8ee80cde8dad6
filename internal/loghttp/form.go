package loghttp

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// Form is a request's parameters, read from it once at the edge
// (ReadForm). The decoders note every parameter they read with a value:
// those are what the answer depends on, and Key lists them.
type Form struct {
	values url.Values
	read   []param
}

type param struct{ name, value string }

// formsRead counts ReadForm calls: a test holds every request to one.
var formsRead atomic.Uint64

// FormsRead is how many requests' parameters were read so far (each
// request's once, at the edge; the decode-once test counts them).
func FormsRead() uint64 { return formsRead.Load() }

// ReadForm reads the request's parameters (query string and form body).
func ReadForm(r *http.Request) (*Form, error) {
	formsRead.Add(1)
	if err := r.ParseForm(); err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	return &Form{values: r.Form}, nil
}

// FormOf is a Form over given values, for callers that are not HTTP
// requests (the ruler's backfill, tests).
func FormOf(values url.Values) *Form { return &Form{values: values} }

// get is the parameter's first value, noted for the key when set.
func (f *Form) get(name string) string {
	v := f.values.Get(name)
	if v != "" {
		f.note(name, v)
	}
	return v
}

// all is every value of the parameter, each noted for the key.
func (f *Form) all(name string) []string {
	vs := f.values[name]
	for _, v := range vs {
		f.note(name, v)
	}
	return vs
}

func (f *Form) note(name, value string) {
	for _, p := range f.read {
		if p.name == name && p.value == value {
			return
		}
	}
	f.read = append(f.read, param{name, value})
}

// Key lists the parameters the decoders read, by name (each name's values
// in the order given), leaving out those named in except.
func (f *Form) Key(except ...string) string {
	ps := slices.Clone(f.read)
	slices.SortStableFunc(ps, func(a, b param) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, p := range ps {
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
