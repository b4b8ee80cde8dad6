package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// AgentConfig is another agent writing into VictoriaLogs while a run
// reads it: lines of the seeded services stamped with the wall clock,
// posted straight to VictoriaLogs' own insert API, so no vloki in front
// of it sees the writes (vloki is not the sole writer).
type AgentConfig struct {
	// URL is VictoriaLogs' base URL.
	URL string
	// Rate is lines a second.
	Rate int
	// History, when > 0, is written first: the lines the agent would have
	// written at Rate over the last History, as an agent that was running
	// before the bench began has (so a recent window holds as many of its
	// lines as an older one).
	History time.Duration
	// Live, when set, is called once the history is written, before the
	// first live line.
	Live func(history int64)
}

// historyBatch is how many history lines one post carries.
const historyBatch = 20_000

// agentTick is how often the agent posts a batch.
const agentTick = 100 * time.Millisecond

// Agent writes until ctx ends and returns how many lines VictoriaLogs
// accepted; it stops at the first write VictoriaLogs refuses.
func Agent(ctx context.Context, cfg AgentConfig) (int64, error) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	perTick := max(cfg.Rate*int(agentTick/time.Millisecond)/1000, 1)
	written, err := backfill(ctx, cfg, r)
	if err != nil {
		return written, err
	}
	if cfg.Live != nil {
		cfg.Live(written)
	}
	t := time.NewTicker(agentTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return written, nil
		case now := <-t.C:
			// A batch is finished even when ctx ends meanwhile, so the
			// count is what VictoriaLogs holds.
			if err := postJSONLines(context.WithoutCancel(ctx), cfg.URL, agentBatch(r, perTick, now.Add(-agentTick), agentTick)); err != nil {
				return written, err
			}
			written += int64(perTick)
		}
	}
}

// backfill writes cfg.History's lines, oldest first, ending at the
// moment it began.
func backfill(ctx context.Context, cfg AgentConfig, r *rand.Rand) (int64, error) {
	total := int64(cfg.Rate) * int64(cfg.History/time.Second)
	if total <= 0 {
		return 0, nil
	}
	end := time.Now()
	per := cfg.History / time.Duration(total)
	var written int64
	for written < total {
		if err := ctx.Err(); err != nil {
			return written, nil
		}
		n := min(total-written, historyBatch)
		from := end.Add(-cfg.History + time.Duration(written)*per)
		if err := postJSONLines(ctx, cfg.URL, agentBatch(r, int(n), from, time.Duration(n)*per)); err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// agentBatch is n JSON lines of random services and levels, the labels as
// vloki stores them (stream fields), timestamps spread evenly over
// [from, from+span).
func agentBatch(r *rand.Rand, n int, from time.Time, span time.Duration) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range n {
		s := services[r.IntN(len(services))]
		lv := levels[r.IntN(len(levels))].name
		ts := from.Add(time.Duration(i) * span / time.Duration(n))
		_ = enc.Encode(map[string]string{"_time": ts.UTC().Format(time.RFC3339Nano), "_msg": s.line(r, lv),
			"app": s.app, "namespace": s.namespace, "env": "prod", "region": s.region, "level": lv})
	}
	return b.Bytes()
}

// postJSONLines posts rows to VictoriaLogs' /insert/jsonline (tenant 0:0,
// where vloki keeps its default tenant).
func postJSONLines(ctx context.Context, base string, body []byte) error {
	u := base + "/insert/jsonline?_stream_fields=app,namespace,env,region,level&_msg_field=_msg&_time_field=_time"
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("VictoriaLogs insert: %s: %s", resp.Status, msg)
	}
	return nil
}
