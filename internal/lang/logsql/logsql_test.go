package logsql

import "testing"

func TestQueryString(t *testing.T) {
	cases := []struct {
		q    Query
		want string
	}{
		{Query{}, `*`},
		{Query{Filter: And{
			StreamFilter{Matchers: []StreamMatcher{{"app", StreamEq, `a"b`}, {"env", StreamRegex, "prod|dev"}}},
			Regexp{Field: "_msg", Re: `err\.`},
			Not{Regexp{Field: "_msg", Re: "debug"}},
		}, Pipes: []Pipe{SortByTime{Desc: true, Limit: 10}}},
			`({app="a\"b",env=~"prod|dev"} AND _msg:~"err\\." AND !(_msg:~"debug")) | sort by (_time desc) limit 10`},
		{Query{Filter: Or{Exact{Field: "vloki.empty_line", Value: "1"}, Exact{Field: "or", Value: ""}}},
			`(vloki.empty_line:="1" OR "or":="")`},
		{Query{Filter: TimeRange{Start: 1, End: 1_700_000_000_123_456_789}, Pipes: []Pipe{Delete{"_stream_id"}}},
			`_time:[1970-01-01T00:00:00.000000001Z, 2023-11-14T22:13:20.123456789Z] | delete _stream_id`},
		{Query{Filter: And{Any{}, Not{StreamIDs{"0a", "0b"}}}, Pipes: []Pipe{Fields{"_stream_id"}, Limit(1)}},
			`(* AND !(_stream_id:in("0a", "0b"))) | fields _stream_id | limit 1`},
	}
	for _, c := range cases {
		if got := c.q.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestBucketStats(t *testing.T) {
	q := Query{Filter: Any{}, Pipes: []Pipe{BucketStats{BucketNs: 60e9, OffsetNs: 1, By: []string{"detected_level", "a.b"},
		Lines: LineBytes{Lengths: "vloki.line_bytes", Exclude: "vloki.empty_line"}}}}
	want := `* | stats by (_time:60000000000ns offset 1ns, detected_level, a.b) count() as c, sum("vloki.line_bytes") as b, sum_len(_msg) if ((!(vloki.line_bytes:>=0) AND !(vloki.empty_line:="1"))) as b0`
	if got := q.String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestParseLineBytes(t *testing.T) {
	cases := []struct {
		sum, sumLen string
		want        int64
		err         bool
	}{
		{"NaN", "17", 17, false},
		{"1234", "0", 1234, false},
		{"9007199254740992", "1", 9007199254740993, false},
		{"12.5", "0", 0, true},
		{"1e300", "0", 0, true},
		{"-1", "0", 0, true},
		{"3", "x", 0, true},
	}
	for _, c := range cases {
		got, err := ParseLineBytes([]byte(c.sum), []byte(c.sumLen))
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseLineBytes(%q, %q) = %d, %v; want %d, error %v", c.sum, c.sumLen, got, err, c.want, c.err)
		}
	}
}
