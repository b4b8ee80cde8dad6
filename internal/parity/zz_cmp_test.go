package parity

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/vltest"
)

func TestZZCmp(t *testing.T) {
	loki := os.Getenv("ZZ_LOKI")
	c, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.Assemble(config.Default(), slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "embedded", func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	ctx := context.Background()
	if err := Push(ctx, srv.URL, "", Generate2(DefaultLines/4, DefaultSpan), 1<<20); err != nil {
		t.Fatal(err)
	}
	c.Flush(ctx)
	cs := Case{Endpoint: "/loki/api/v1/query_range", Params: map[string]string{}}
	for _, kv := range strings.Split(os.Getenv("ZZ_PARAMS"), "&&") {
		k, v, _ := strings.Cut(kv, "=")
		cs.Params[k] = v
	}
	if os.Getenv("ZZ_CAT") == "1" {
		cs.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}
	}
	want, _ := Ask(ctx, loki, "", cs)
	got, _ := Ask(ctx, srv.URL, "", cs)
	os.WriteFile("/tmp/vb/zz_want.json", []byte(want.Body), 0o644)
	os.WriteFile("/tmp/vb/zz_got.json", []byte(got.Body), 0o644)
	fmt.Println(Compare(cs, want, got))
}
