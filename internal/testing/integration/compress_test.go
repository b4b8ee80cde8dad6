package integration

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// Loki v3.7.8 with frontend compress_responses: true (observed on the
// oracle: answers of 6,970 and 4,429 bytes came gzipped, a 51-byte labels
// answer and a 78-byte 400 did not, all four with "Vary: Accept-Encoding";
// format_query, not a frontend route, had no Vary). Without the setting
// (its effective default) nothing is gzipped and no Vary is sent.
func TestCompressResponsesAsLoki(t *testing.T) {
	for _, compress := range []bool{true, false} {
		for _, tg := range targetsWith(t, func(c *config.Config) { c.Frontend.CompressResponses = compress }) {
			t.Run(fmt.Sprintf("%s/compress=%v", tg.name, compress), func(t *testing.T) {
				tenant := fmt.Sprintf("gz%d", time.Now().UnixNano())
				h := time.Now().Add(-2 * time.Hour).Truncate(time.Minute)
				var es []entry
				for i := range 40 {
					es = append(es, entry{ns(h.Add(time.Duration(i) * time.Second)), fmt.Sprintf("line number %d with some padding text to make it longer", i)})
				}
				tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "gz"}, es...))
				p := url.Values{"query": {`{app="gz"}`}, "start": {ns(h)}, "end": {ns(h.Add(time.Minute))}, "limit": {"100"}}
				gz := map[string]string{"Accept-Encoding": "gzip"}

				// Asked twice, the answer is cached (the second time: frontend.askedSet),
				// as its gzipped bytes alone; a plain hit is those decompressed.
				tg.get(t, "/loki/api/v1/query_range", tenant, p, nil)
				plain := tg.get(t, "/loki/api/v1/query_range", tenant, p, nil)
				if plain.status != 200 || len(plain.body) < 1400 || plain.header.Get("Content-Encoding") != "" {
					t.Fatalf("plain: %d, %d bytes, encoding %q", plain.status, len(plain.body), plain.header.Get("Content-Encoding"))
				}
				for _, hit := range []string{"cached", "cached again"} {
					r := tg.get(t, "/loki/api/v1/query_range", tenant, p, gz)
					checkEncoding(t, hit, r, compress, compress)
					if got := decoded(t, r); !bytes.Equal(got, plain.body) {
						t.Errorf("%s: decoded answer differs from the plain one", hit)
					}
				}
				if r := tg.get(t, "/loki/api/v1/query_range", tenant, p, nil); r.header.Get("Content-Encoding") != "" || !bytes.Equal(r.body, plain.body) ||
					r.header.Get("Content-Length") != plain.header.Get("Content-Length") {
					t.Errorf("plain hit: encoding %q, length %q, body equal %v", r.header.Get("Content-Encoding"), r.header.Get("Content-Length"), bytes.Equal(r.body, plain.body))
				}
				cold := tg.get(t, "/loki/api/v1/query_range", tenant, p, map[string]string{"Accept-Encoding": "gzip", "Cache-Control": "no-cache"})
				checkEncoding(t, "no-cache", cold, compress, compress)
				if got, want := resultOf(t, decoded(t, cold)), resultOf(t, plain.body); got != want {
					t.Errorf("no-cache: result %s, want %s", got, want)
				}
				checkEncoding(t, "labels", tg.get(t, "/loki/api/v1/labels", tenant, url.Values{"start": {ns(h)}, "end": {ns(h.Add(time.Minute))}}, gz), false, compress)
				checkEncoding(t, "bad query", tg.get(t, "/loki/api/v1/query_range", tenant, url.Values{"query": {`{app="gz"`}}, gz), false, compress)
				checkEncoding(t, "format_query", tg.get(t, "/loki/api/v1/format_query", tenant, url.Values{"query": {`{a="b"}`}}, gz), false, false)
			})
		}
	}
}

func checkEncoding(t *testing.T, what string, r response, gzipped, vary bool) {
	t.Helper()
	if got := r.header.Get("Content-Encoding") == "gzip"; got != gzipped {
		t.Errorf("%s: gzipped %v, want %v (%d bytes)", what, got, gzipped, len(r.body))
	}
	if got := r.header.Get("Vary") == "Accept-Encoding"; got != vary {
		t.Errorf("%s: Vary %q, want it %v", what, r.header.Get("Vary"), vary)
	}
}

func decoded(t *testing.T, r response) []byte {
	t.Helper()
	if r.header.Get("Content-Encoding") != "gzip" {
		return r.body
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resultOf is an answer's data.result, without the timing statistics.
func resultOf(t *testing.T, body []byte) string {
	t.Helper()
	var v struct {
		Data struct {
			Result json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return string(v.Data.Result)
}
