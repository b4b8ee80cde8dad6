package parity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Case is one request of the corpus.
type Case struct {
	ID       string            `json:"id"`
	Endpoint string            `json:"endpoint"`
	Params   map[string]string `json:"params"`
	Headers  map[string]string `json:"headers,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
}

// LoadCorpus reads every *.jsonl file of dir; blank lines and lines
// starting with # are skipped. IDs must be unique.
func LoadCorpus(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var out []Case
	for _, f := range files {
		cases, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if seen[c.ID] {
				return nil, fmt.Errorf("%s: duplicate case id %q", f, c.ID)
			}
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func loadFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Query returns the case's query string with times resolved: a value
// "@<duration>" (e.g. "@0s", "@6h30m", "@-5m") is Anchor plus the duration
// in Unix ns, "@<duration>s" written as "@s:<duration>" gives Unix seconds
// and "@rfc:<duration>" RFC3339Nano.
func (c Case) Query() (string, error) {
	v := url.Values{}
	for k, raw := range c.Params {
		resolved, err := resolveTime(raw)
		if err != nil {
			return "", fmt.Errorf("case %s param %s: %w", c.ID, k, err)
		}
		if k == "match[]" || k == "match" {
			for _, m := range strings.Split(resolved, "\n") {
				v.Add(k, m)
			}
			continue
		}
		v.Set(k, resolved)
	}
	return v.Encode(), nil
}

func resolveTime(raw string) (string, error) {
	if !strings.HasPrefix(raw, "@") {
		return raw, nil
	}
	form, d := "ns", raw[1:]
	if i := strings.IndexByte(d, ':'); i > 0 {
		form, d = d[:i], d[i+1:]
	}
	neg := strings.HasPrefix(d, "-")
	dur, err := model.ParseDuration(strings.TrimPrefix(d, "-"))
	if err != nil {
		return "", err
	}
	off := time.Duration(dur)
	if neg {
		off = -off
	}
	t := Anchor.Add(off)
	switch form {
	case "ns":
		return strconv.FormatInt(t.UnixNano(), 10), nil
	case "s":
		return strconv.FormatInt(t.Unix(), 10), nil
	case "rfc":
		return t.Format(time.RFC3339Nano), nil
	}
	return "", fmt.Errorf("unknown time form %q", form)
}
