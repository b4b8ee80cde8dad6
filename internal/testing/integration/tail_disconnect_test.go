package integration

import (
	"fmt"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/config"
)

// Tail clients that vanish without a close frame (a killed browser tab)
// leave nothing running: vloki's goroutines and VictoriaLogs' live tails
// fall back, and pushes are still acknowledged at once.
func TestTailDisconnectLeavesNothing(t *testing.T) {
	tg := targetsWith(t, func(c *config.Config) { c.Tail.Backend = "on" })[0]
	vlURL := vlURLOf(t, tg)
	labels := map[string]string{"app": "vanish"}
	tg.pushJSON(t, "vanish", jsonPush(labels, entry{ns(time.Now().Add(-time.Hour)), "before"}))
	waitLiveTails(t, vlURL, 0) // earlier tests' tails on this VictoriaLogs end first
	baseline := tailGoroutines()
	var conns []*websocket.Conn
	for i := range 20 {
		q := url.Values{"query": {fmt.Sprintf(`{app="vanish"} |= "x%d"`, i%4)}, "start": {ns(time.Now().Add(-time.Minute))}}
		conn := dialTailAs(t, tg, "vanish", q)
		readTailAll(conn)
		conns = append(conns, conn)
	}
	waitLiveTails(t, vlURL, 4) // one per distinct tail query
	if open := tailGoroutines(); open < baseline+20 {
		t.Fatalf("%d goroutines in vloki's tail code with 20 tails open (%d before): the count proves nothing", open, baseline)
	}
	for _, c := range conns {
		_ = c.UnderlyingConn().Close() // gone, without a close frame
	}

	start := time.Now()
	tg.pushNoFlush(t, "vanish", labels, entry{ns(time.Now()), "x1 after"})
	if d := time.Since(start); d > time.Second {
		t.Errorf("a push took %s with vanished tails", d)
	}
	waitLiveTails(t, vlURL, 0)
	deadline := time.Now().Add(10 * time.Second)
	for tailGoroutines() > baseline && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := tailGoroutines(); n > baseline {
		t.Errorf("%d goroutines in vloki's tail code after the tails vanished, %d before they opened", n, baseline)
	}
}

// tailGoroutines counts the goroutines running vloki's tail code (idle
// HTTP connections, which come and go, are not counted).
func tailGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if tailFrame.MatchString(g) {
			n++
		}
	}
	return n
}

var tailFrame = regexp.MustCompile(`(?m)^github\.com/vloki/vloki/internal/[^\n]*(?i:tail)`)

// waitLiveTails waits up to 10 s for VictoriaLogs to run want live tails
// (it starts them within about a second).
func waitLiveTails(t *testing.T, vlURL string, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for vlMetric(t, vlURL, "vl_live_tailing_requests") != want && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := vlMetric(t, vlURL, "vl_live_tailing_requests"); n != want {
		t.Fatalf("VictoriaLogs runs %v live tails, want %v", n, want)
	}
}
