package stages

import "testing"

func TestConvertUnwrapped(t *testing.T) {
	cases := []struct {
		conv, raw string
		want      float64
		err       string
	}{
		{"", "1.5", 1.5, ""},
		{"", "GET", 0, `strconv.ParseFloat: parsing "GET": invalid syntax`},
		{"duration", "1m30s", 90, ""},
		{"duration_seconds", "250ms", 0.25, ""},
		{"duration", "5", 0, `time: missing unit in duration "5"`},
		{"bytes", "1.5KiB", 1536, ""},
		{"bytes", "10 MB", 10e6, ""},
	}
	for _, c := range cases {
		got, err := convertUnwrapped(c.conv, c.raw)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("%s(%q) = %v, %q; want %v, %q", c.conv, c.raw, got, msg, c.want, c.err)
		}
	}
}
