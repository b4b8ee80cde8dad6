package integration

import (
	"bytes"
	"net/http"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// idleCloser is a transport whose kept-alive connections may be dropped.
type idleCloser interface{ CloseIdleConnections() }

// noneLeftBehind fails t when, once every idle keep-alive connection is
// closed (a pooled connection holds goroutines but is no leak), more than
// slack goroutines remain beyond baseline after 10 s. On failure it logs
// the goroutines' stacks so the leak can be named.
func noneLeftBehind(t *testing.T, baseline int, transports ...idleCloser) {
	t.Helper()
	const slack = 10
	closeIdle := func() {
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
		http.DefaultClient.CloseIdleConnections()
	}
	deadline := time.Now().Add(10 * time.Second)
	closeIdle()
	n := runtime.NumGoroutine()
	for n > baseline+slack && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		closeIdle()
		n = runtime.NumGoroutine()
	}
	if n > baseline+slack {
		var stacks bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		t.Errorf("%d goroutines left, %d before:\n%s", n, baseline, stacks.String())
	}
}
