package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

func TestMain(m *testing.M) { os.Exit(vltest.Main(m)) }

// TestRequestsAreDecodedOnce: a query_range, a label-values request and a
// tail each have their parameters read once and their query parsed once,
// at the edge, whatever the layers after it (frontend, queue, engine) do.
func TestRequestsAreDecodedOnce(t *testing.T) {
	c, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage.Path = t.TempDir()
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "embedded", func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	defer app.Close()
	defer srv.Close()
	end := strconv.FormatInt(time.Now().UnixNano(), 10)
	for _, path := range []string{
		"/loki/api/v1/query_range?" + url.Values{"query": {`sum(rate({app="a"} |= "x" [5m]))`}, "end": {end}}.Encode(),
		"/loki/api/v1/label/app/values?" + url.Values{"query": {`{app="a"}`}, "end": {end}}.Encode(),
	} {
		forms, parses := loghttp.FormsRead(), logql.Parses()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		checkOnce(t, path, forms, parses)
	}
	forms, parses := loghttp.FormsRead(), logql.Parses()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/loki/api/v1/tail?" + url.Values{"query": {`{app="a"}`}}.Encode()
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close() // decoded before the upgrade answered
	checkOnce(t, "tail", forms, parses)
}

func checkOnce(t *testing.T, what string, forms, parses uint64) {
	t.Helper()
	if n := loghttp.FormsRead() - forms; n != 1 {
		t.Errorf("%s: parameters read %d times", what, n)
	}
	if n := logql.Parses() - parses; n != 1 {
		t.Errorf("%s: query parsed %d times", what, n)
	}
}
