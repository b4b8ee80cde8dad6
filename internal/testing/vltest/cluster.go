package vltest

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/storage/backend"
)

// Cluster is a VictoriaLogs cluster on loopback: storage nodes (plain
// victoria-logs processes) and fronts, victoria-logs processes started
// with -storageNode, each both a vlinsert and a vlselect of the cluster.
type Cluster struct {
	Fronts  []*Process
	Storage []*Process
}

// StartCluster starts a cluster of n storage nodes and fronts fronts in
// dir. Stop it with Stop.
func StartCluster(dir string, n, fronts int) (*Cluster, error) {
	c := &Cluster{}
	var addrs []string
	for i := 0; i < n; i++ {
		p, err := StartProcess(filepath.Join(dir, fmt.Sprintf("storage-%d", i)))
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Storage = append(c.Storage, p)
		addrs = append(addrs, strings.TrimPrefix(p.URL, "http://"))
	}
	for i := 0; i < fronts; i++ {
		front, err := StartProcess(filepath.Join(dir, fmt.Sprintf("front-%d", i)), "-storageNode="+strings.Join(addrs, ","))
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Fronts = append(c.Fronts, front)
	}
	return c, nil
}

// FrontURLs are the fronts' URLs, comma-separated.
func (c *Cluster) FrontURLs() string {
	urls := make([]string, len(c.Fronts))
	for i, f := range c.Fronts {
		urls[i] = f.URL
	}
	return strings.Join(urls, ",")
}

// Stop stops every process of the cluster by PID.
func (c *Cluster) Stop() {
	for _, p := range append(c.Fronts, c.Storage...) {
		p.Stop()
	}
}

// frontSendInterval bounds how long a front holds inserted rows before
// sending them to the storage nodes (VictoriaLogs' vlinsert sends pending
// data every second, skipping a node sent to less than a second before).
const frontSendInterval = 2100 * time.Millisecond

// Flush makes everything inserted so far searchable: it waits for the
// fronts to send what they hold, then force-flushes every storage node
// (a front has no force_flush of its own).
func (c *Cluster) Flush(ctx context.Context) error {
	select {
	case <-time.After(frontSendInterval):
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, p := range c.Storage {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/internal/force_flush", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("force_flush on %s: %s", p.URL, resp.Status)
		}
	}
	return nil
}

// ClusterBackend starts a cluster of two storage nodes and fronts fronts
// for the test, stopped with it, and a client of every front.
func ClusterBackend(t testing.TB, fronts int) (Backend, *Cluster) {
	t.Helper()
	c, err := StartCluster(t.TempDir(), 2, fronts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	client, err := backend.New(c.FrontURLs(), backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Backend{Name: "cluster", Client: client, Flush: c.Flush}, c
}
