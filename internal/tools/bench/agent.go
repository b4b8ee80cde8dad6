package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
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
	// Loki, when set, makes the agent push through these vloki replicas'
	// Loki push API in turn instead (vloki replicas that together are the
	// only writers see every line).
	Loki []string
}

// historyBatch is how many history lines one post carries.
const historyBatch = 20_000

// agentTick is how often the agent posts a batch.
const agentTick = 100 * time.Millisecond

// post writes a batch where cfg says: batch number n through the Loki
// URLs in turn.
func (cfg AgentConfig) post(ctx context.Context, n int, rows []agentRow) error {
	if len(cfg.Loki) == 0 {
		return postJSONLines(ctx, cfg.URL, jsonLines(rows))
	}
	return postLoki(ctx, cfg.Loki[n%len(cfg.Loki)], rows)
}

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
	for batch := 0; ; batch++ {
		select {
		case <-ctx.Done():
			return written, nil
		case now := <-t.C:
			// A batch is finished even when ctx ends meanwhile, so the
			// count is what VictoriaLogs holds.
			if err := cfg.post(context.WithoutCancel(ctx), batch, agentBatch(r, perTick, now.Add(-agentTick), agentTick)); err != nil {
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
	for batch := 0; written < total; batch++ {
		if err := ctx.Err(); err != nil {
			return written, nil
		}
		n := min(total-written, historyBatch)
		from := end.Add(-cfg.History + time.Duration(written)*per)
		if err := cfg.post(ctx, batch, agentBatch(r, int(n), from, time.Duration(n)*per)); err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// agentRow is one line the agent writes, with its stream's labels.
type agentRow struct {
	at                            time.Time
	msg                           string
	app, namespace, region, level string
}

// agentBatch is n lines of random services and levels, timestamps spread
// evenly over [from, from+span).
func agentBatch(r *rand.Rand, n int, from time.Time, span time.Duration) []agentRow {
	rows := make([]agentRow, n)
	for i := range rows {
		s := services[r.IntN(len(services))]
		lv := levels[r.IntN(len(levels))].name
		rows[i] = agentRow{at: from.Add(time.Duration(i) * span / time.Duration(n)), msg: s.line(r, lv),
			app: s.app, namespace: s.namespace, region: s.region, level: lv}
	}
	return rows
}

func (a agentRow) labels() map[string]string {
	return map[string]string{"app": a.app, "namespace": a.namespace, "env": "prod", "region": a.region, "level": a.level}
}

// jsonLines is rows as VictoriaLogs' JSON lines, the labels as vloki
// stores them (stream fields).
func jsonLines(rows []agentRow) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, row := range rows {
		m := row.labels()
		m["_time"], m["_msg"] = row.at.UTC().Format(time.RFC3339Nano), row.msg
		_ = enc.Encode(m)
	}
	return b.Bytes()
}

// postLoki pushes rows through vloki's Loki push API (JSON), a stream per
// label set.
func postLoki(ctx context.Context, base string, rows []agentRow) error {
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][2]string       `json:"values"`
	}
	var streams []*stream
	at := map[agentRow]*stream{}
	for _, row := range rows {
		key := agentRow{app: row.app, namespace: row.namespace, region: row.region, level: row.level}
		s := at[key]
		if s == nil {
			s = &stream{Stream: row.labels()}
			at[key], streams = s, append(streams, s)
		}
		s.Values = append(s.Values, [2]string{strconv.FormatInt(row.at.UnixNano(), 10), row.msg})
	}
	body, err := json.Marshal(map[string]any{"streams": streams})
	if err != nil {
		return err
	}
	return post(ctx, base+"/loki/api/v1/push", "application/json", body)
}

// postJSONLines posts rows to VictoriaLogs' /insert/jsonline (tenant 0:0,
// where vloki keeps its default tenant).
func postJSONLines(ctx context.Context, base string, body []byte) error {
	return post(ctx, base+"/insert/jsonline?_stream_fields=app,namespace,env,region,level&_msg_field=_msg&_time_field=_time", "", body)
}

func post(ctx context.Context, u, contentType string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("insert into %s: %s: %s", u, resp.Status, msg)
	}
	return nil
}
