package push

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	lokipush "github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/snappy"
)

// BenchmarkDecodeProto decodes a push shaped as the scale bench's
// high-cardinality one: 1,000 streams of one 826-byte line each.
func BenchmarkDecodeProto(b *testing.B) {
	var pr lokipush.PushRequest
	line := strings.Repeat("x", 826)
	for i := range 1000 {
		pr.Streams = append(pr.Streams, lokipush.Stream{
			Labels:  fmt.Sprintf(`{agent="benchmark", bucketed_hostname="h%04d", cloud_region="us-east-2", input_type="log", level="info"}`, i),
			Entries: []lokipush.Entry{{Timestamp: time.Unix(1_800_000_000, int64(i)), Line: line}},
		})
	}
	raw, err := pr.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	body := snappy.Encode(nil, raw)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeProto(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLabelValuesUnquotedAsStrconv: the fast path for double-quoted values
// without a backslash gives what strconv.Unquote gives, and every other
// quoting still goes through it.
func TestLabelValuesUnquotedAsStrconv(t *testing.T) {
	for _, q := range []string{`"plain"`, `""`, `"héllo"`, `"a\"b"`, `"back\\slash"`, `"tab\tnl\n"`, `"\u00e9"`,
		"`raw\\n`", "`cr\r`", `'x'`} {
		ls, err := parseLabels(`{a=` + q + `}`)
		want, werr := strconv.Unquote(q)
		if err != nil || werr != nil || len(ls) != 1 || ls[0].Value != want {
			t.Errorf("%s: got %v, %v; want %q (%v)", q, ls, err, want, werr)
		}
	}
}
