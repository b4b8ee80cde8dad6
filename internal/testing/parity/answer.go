package parity

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
)

// Answer is one recorded HTTP answer.
type Answer struct {
	ID          string `json:"id"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}

// Ask sends a case to a Loki API and captures the answer.
func Ask(ctx context.Context, baseURL, tenant string, c Case) (Answer, error) {
	q, err := c.Query()
	if err != nil {
		return Answer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+c.Endpoint+"?"+q, nil)
	if err != nil {
		return Answer{}, err
	}
	if tenant != "" {
		req.Header.Set("X-Scope-OrgID", tenant)
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, err
	}
	return Answer{ID: c.ID, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: string(b)}, nil
}

// LoadGoldens reads a goldens file (one Answer per line) keyed by case id.
func LoadGoldens(path string) (map[string]Answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]Answer{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<20), 64<<20)
	for sc.Scan() {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, err
		}
		out[a.ID] = a
	}
	return out, sc.Err()
}

// WriteGoldens writes answers sorted by id, one per line.
func WriteGoldens(path string, answers []Answer) error {
	sort.Slice(answers, func(i, j int) bool { return answers[i].ID < answers[j].ID })
	var b strings.Builder
	for _, a := range answers {
		line, err := json.Marshal(a)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// KnownGaps reads the registry: one "<id> <reason>" per line.
func KnownGaps(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	out := map[string]string{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, ok := strings.Cut(line, " ")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: want \"<id> <reason>\"", path, n+1)
		}
		out[id] = strings.TrimSpace(reason)
	}
	return out, nil
}

// WithoutStats is a with the statistics its JSON body reports taken out:
// they change from run to run, the comparator ignores them, and they are
// most of a small answer's bytes, so recorded answers need not keep them.
func WithoutStats(a Answer) Answer {
	d := json.NewDecoder(strings.NewReader(a.Body))
	d.UseNumber()
	var v map[string]any
	if d.Decode(&v) != nil {
		return a
	}
	data, ok := v["data"].(map[string]any)
	if _, has := data["stats"]; !ok || !has {
		return a
	}
	delete(data, "stats")
	b, err := json.Marshal(v)
	if err != nil {
		return a
	}
	a.Body = string(b)
	return a
}
