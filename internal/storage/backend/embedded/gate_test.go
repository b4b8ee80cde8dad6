package embedded

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// A call that outlives the engine (a coalesced query runs detached from its
// client) gets "unavailable", not a panic inside VictoriaLogs' torn-down
// globals; Stop waits for a call in progress and ends it.
func TestCallsAfterStopAreRefused(t *testing.T) {
	eng, err := Start(Config{DataPath: t.TempDir(), Retention: "100y", LogLevel: "ERROR"})
	if err != nil {
		t.Fatal(err)
	}
	push(t, eng, 2000)

	// A query in progress when Stop comes: its callback holds it open.
	inside := make(chan struct{})
	release := make(chan struct{})
	running := make(chan error, 1)
	go func() {
		first := true
		running <- eng.RunQuery(context.Background(), tenant.ID{}, backend.QueryRequest{Query: "*"}, func(*backend.Row) error {
			if first {
				first = false
				close(inside)
				<-release
			}
			return nil
		})
	}()
	<-inside
	stopped := make(chan struct{})
	go func() { eng.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a query was still inside the storage")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-stopped
	if err := <-running; !isUnavailable(err) {
		t.Errorf("query cut by Stop: got %v, want an unavailable error", err)
	}

	err = eng.RunQuery(context.Background(), tenant.ID{}, backend.QueryRequest{Query: "*"}, func(*backend.Row) error { return nil })
	if !isUnavailable(err) {
		t.Errorf("RunQuery after Stop: got %v", err)
	}
	if _, err := eng.Values(context.Background(), tenant.ID{}, backend.FieldNames, backend.MetadataRequest{Query: "*"}); !isUnavailable(err) {
		t.Errorf("Values after Stop: got %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://embedded/select/logsql/query?query=*", nil)
	if _, err := eng.RoundTripper().RoundTrip(req); !isUnavailable(err) {
		t.Errorf("RoundTrip after Stop: got %v", err)
	}
}

func isUnavailable(err error) bool {
	var u *backend.UnavailableError
	return errors.As(err, &u)
}

// push writes n JSON lines through the in-process insert API and waits
// until a query sees them.
func push(t *testing.T, eng *Engine, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"_msg":"line ` + strings.Repeat("x", i%7) + `","app":"a"}` + "\n")
	}
	req, _ := http.NewRequest(http.MethodPost, "http://embedded/insert/jsonline?_stream_fields=app", strings.NewReader(b.String()))
	resp, err := eng.RoundTripper().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("insert: %d", resp.StatusCode)
	}
	flush, _ := http.NewRequest(http.MethodGet, "http://embedded/internal/force_flush", nil)
	if resp, err = eng.RoundTripper().RoundTrip(flush); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
