package logsql

import "testing"

func TestNarrowed(t *testing.T) {
	re := Regexp{Field: "_msg", Re: `\bqueen\b`}
	word := Narrowable{Wide: re, Narrow: Phrase{Field: "_msg", Value: "queen"}, Unless: 2}
	esc := Narrowable{Wide: Regexp{Field: "_msg", Re: `\\`}, Unless: 1}
	cond := Or{Exact{Field: "id", Value: "7"}, Phrase{Field: "_msg", Value: "7"}, esc}
	for _, c := range []struct {
		f       Filter
		present uint8
		want    string
	}{
		{word, 0, `_msg:"queen"`},
		{word, 1, `_msg:"queen"`},
		{word, 2, `_msg:~"\\bqueen\\b"`},
		{Not{F: word}, 0, `!(_msg:"queen")`},
		{cond, 0, `(id:="7" OR _msg:"7")`},
		{cond, 1, `(id:="7" OR _msg:"7" OR _msg:~"\\\\")`},
		{And{Any{}, esc}, 0, `!(*)`},
		{Not{F: esc}, 2, `*`},
		{Or{esc}, 0, `!(*)`},
	} {
		if got := string(Narrowed(c.f, c.present).appendTo(nil)); got != c.want {
			t.Errorf("Narrowed(%s, %b) = %s, want %s", c.f.appendTo(nil), c.present, got, c.want)
		}
	}
	if got := string(word.appendTo(nil)); got != `_msg:~"\\bqueen\\b"` {
		t.Errorf("a Narrowable not narrowed is written %s", got)
	}
}
