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
	}
	for _, c := range cases {
		if got := c.q.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestBucketStats(t *testing.T) {
	q := Query{Filter: Any{}, Pipes: []Pipe{BucketStats{BucketNs: 60e9, OffsetNs: 1, By: []string{"detected_level", "a.b"}, Exclude: "vloki.empty_line"}}}
	want := `* | stats by (_time:60000000000ns offset 1ns, detected_level, a.b) count() as c, sum_len(_msg) if (!(vloki.empty_line:="1")) as b`
	if got := q.String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
