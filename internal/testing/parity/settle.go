package parity

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Slices cuts the dataset into n windows of equal time, each holding the
// entries of every stream that fall in it, in order: pushed one after the
// other with a flush between, they reach Loki as agents shipping in real
// time deliver them, each stream's chunks cut at the windows' edges.
func Slices(streams []Stream, n int) [][]Stream {
	lo, hi := bounds(streams)
	width := (hi - lo + int64(n)) / int64(n)
	out := make([][]Stream, n)
	for _, s := range streams {
		parts := make([]Stream, n)
		for _, e := range s.Entries {
			i := (e.TimestampNs - lo) / width
			parts[i].Entries = append(parts[i].Entries, e)
		}
		for i, part := range parts {
			if len(part.Entries) > 0 {
				out[i] = append(out[i], Stream{Labels: s.Labels, Entries: part.Entries})
			}
		}
	}
	return out
}

func bounds(streams []Stream) (lo, hi int64) {
	first := true
	for _, s := range streams {
		for _, e := range s.Entries {
			if first || e.TimestampNs < lo {
				lo = e.TimestampNs
			}
			if first || e.TimestampNs > hi {
				hi = e.TimestampNs
			}
			first = false
		}
	}
	return lo, hi
}

// FlushLoki asks a Loki single binary to flush every chunk its ingester
// holds to the store and waits until it holds none in memory.
func FlushLoki(ctx context.Context, baseURL string, limit time.Duration) error {
	resp, err := call(ctx, http.MethodPost, baseURL+"/flush")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST /flush: %s", resp.Status)
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		n, err := memoryChunks(ctx, baseURL)
		if err == nil && n == "0" {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("Loki still holds chunks in memory %v after /flush", limit)
}

// memoryChunks reads loki_ingester_memory_chunks from Loki's /metrics.
func memoryChunks(ctx context.Context, baseURL string) (string, error) {
	resp, err := call(ctx, http.MethodGet, baseURL+"/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "loki_ingester_memory_chunks "); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("no loki_ingester_memory_chunks in %s/metrics", baseURL)
}

func call(ctx context.Context, method, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}
