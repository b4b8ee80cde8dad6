package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vloki/vloki/internal/testing/parity"
)

// Seed pushes the dataset through the Loki push API of every target at
// once, then waits until each counts every line.
func Seed(ctx context.Context, cfg DatasetConfig, targets []Target) (int, error) {
	ds := Generate(cfg)
	total := Lines(ds)
	g, gctx := errgroup.WithContext(ctx)
	for _, tg := range targets {
		g.Go(func() error {
			if err := parity.Push(gctx, tg.URL, tenantOf(tg), ds, 1<<20); err != nil {
				return fmt.Errorf("seeding %s: %w", tg.Name, err)
			}
			return waitCount(gctx, tg, cfg, total)
		})
	}
	return total, g.Wait()
}

// waitCount polls until the target counts total lines (Loki's ingesters
// take a moment; vloki answers at once).
func waitCount(ctx context.Context, tg Target, cfg DatasetConfig, total int) error {
	window := time.Duration(cfg.Days*float64(24*time.Hour)) + time.Hour
	q := url.Values{"query": {fmt.Sprintf(`sum(count_over_time({env="prod"}[%dh]))`, int(window.Hours()))}, "time": {ns(cfg.Now.Add(time.Second))}}
	deadline := time.Now().Add(10 * time.Minute)
	got := 0
	for time.Now().Before(deadline) {
		got = instantValue(ctx, tg, q)
		if got == total {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("%s counts %d of %d lines after 10 minutes", tg.Name, got, total)
}

func instantValue(ctx context.Context, tg Target, q url.Values) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tg.URL+"/loki/api/v1/query?"+q.Encode(), nil)
	if err != nil {
		return -1
	}
	req.Header = tg.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&body) != nil || len(body.Data.Result) != 1 {
		return -1
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
