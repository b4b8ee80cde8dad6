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
}

// agentTick is how often the agent posts a batch.
const agentTick = 100 * time.Millisecond

// Agent writes until ctx ends and returns how many lines VictoriaLogs
// accepted; it stops at the first write VictoriaLogs refuses.
func Agent(ctx context.Context, cfg AgentConfig) (int64, error) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	perTick := max(cfg.Rate*int(agentTick/time.Millisecond)/1000, 1)
	t := time.NewTicker(agentTick)
	defer t.Stop()
	var written int64
	for {
		select {
		case <-ctx.Done():
			return written, nil
		case now := <-t.C:
			// A batch is finished even when ctx ends meanwhile, so the
			// count is what VictoriaLogs holds.
			if err := postJSONLines(context.WithoutCancel(ctx), cfg.URL, agentBatch(r, perTick, now)); err != nil {
				return written, err
			}
			written += int64(perTick)
		}
	}
}

// agentBatch is n JSON lines of random services and levels, the labels as
// vloki stores them (stream fields), timestamps spread over the last tick.
func agentBatch(r *rand.Rand, n int, now time.Time) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range n {
		s := services[r.IntN(len(services))]
		lv := levels[r.IntN(len(levels))].name
		ts := now.Add(-agentTick + time.Duration(i)*agentTick/time.Duration(n))
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
