package logsql

import "strconv"

// Phrase is `field:"phrase"`, VictoriaLogs' phrase filter, answered from
// its token blooms: the phrase occurs with no token character (letter,
// digit, underscore) beside it on a side where it starts or ends with one.
type Phrase struct {
	Field string
	Value string
}

func (f Phrase) appendTo(b []byte) []byte {
	b = appendFieldName(b, f.Field)
	b = append(b, ':')
	return strconv.AppendQuote(b, f.Value)
}

// Narrowable selects the rows Wide selects. Among rows known to hold no
// line of the kinds in Unless (a set the caller defines), Narrow selects
// the same rows at lower cost; nil selects none of them. It is written as
// Wide unless Narrowed.
type Narrowable struct {
	Wide, Narrow Filter
	Unless       uint8
}

func (f Narrowable) appendTo(b []byte) []byte { return f.Wide.appendTo(b) }

// Narrowed is f over rows whose lines are of no kinds but those in
// present: each Narrowable none of whose kinds is present is replaced by
// its Narrow filter.
func Narrowed(f Filter, present uint8) Filter {
	if n := narrowed(f, present); n != nil {
		return n
	}
	return Not{F: Any{}}
}

// narrowed is Narrowed with nil for a filter that selects nothing.
func narrowed(f Filter, present uint8) Filter {
	switch f := f.(type) {
	case Narrowable:
		if f.Unless&present != 0 {
			return narrowed(f.Wide, present)
		}
		if f.Narrow == nil {
			return nil
		}
		return narrowed(f.Narrow, present)
	case And:
		out := make(And, 0, len(f))
		for _, g := range f {
			n := narrowed(g, present)
			if n == nil {
				return nil
			}
			out = append(out, n)
		}
		return out
	case Or:
		out := make(Or, 0, len(f))
		for _, g := range f {
			if n := narrowed(g, present); n != nil {
				out = append(out, n)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case Not:
		n := narrowed(f.F, present)
		if n == nil {
			return Any{}
		}
		return Not{F: n}
	}
	return f
}

// Narrows reports whether f holds a Narrowable.
func Narrows(f Filter) bool {
	switch f := f.(type) {
	case Narrowable:
		return true
	case And:
		for _, g := range f {
			if Narrows(g) {
				return true
			}
		}
	case Or:
		for _, g := range f {
			if Narrows(g) {
				return true
			}
		}
	case Not:
		return Narrows(f.F)
	}
	return false
}
