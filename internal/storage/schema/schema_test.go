package schema

import "testing"

func TestParseStream(t *testing.T) {
	cases := map[string]string{
		`{}`:                             `{}`,
		`{b="2",a="1"}`:                  `{a="1", b="2"}`,
		`{a="x\"y,z=\"w",c="\u65e5\\n"}`: `{a="x\"y,z=\"w", c="日\\n"}`,
	}
	for in, want := range cases {
		ls, err := ParseStream(in)
		if err != nil || ls.String() != want {
			t.Errorf("%s: got %s %v want %s", in, ls.String(), err, want)
		}
	}
	for _, bad := range []string{``, `{a}`, `{a="x}`, `a="b"`} {
		if _, err := ParseStream(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}
