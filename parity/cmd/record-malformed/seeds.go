package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// validQueries returns the queries Loki ran: the LogQL corpus's with
// query_range 200, and the parity corpus's query and query_range requests
// whose golden status is 200.
func validQueries(corpus, parityDir string) ([]string, error) {
	var out []string
	err := eachLine(corpus, func(line []byte) error {
		var c struct {
			Query       string `json:"query"`
			RangeStatus int    `json:"range_status"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		if c.RangeStatus == 200 {
			out = append(out, c.Query)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	statuses, err := goldenStatuses(filepath.Join(parityDir, "goldens.jsonl"))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(parityDir, "corpus", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		err := eachLine(f, func(line []byte) error {
			var c struct {
				ID       string            `json:"id"`
				Endpoint string            `json:"endpoint"`
				Params   map[string]string `json:"params"`
			}
			if err := json.Unmarshal(line, &c); err != nil {
				return err
			}
			isQuery := strings.HasSuffix(c.Endpoint, "/query_range") || strings.HasSuffix(c.Endpoint, "/query")
			if isQuery && statuses[c.ID] == 200 && c.Params["query"] != "" {
				out = append(out, c.Params["query"])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func goldenStatuses(path string) (map[string]int, error) {
	out := map[string]int{}
	err := eachLine(path, func(line []byte) error {
		var g struct {
			ID     string `json:"id"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		out[g.ID] = g.Status
		return nil
	})
	return out, err
}

// eachLine calls f with every line that is not blank or a `#` comment.
func eachLine(path string, f func([]byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if t := strings.TrimSpace(string(line)); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := f(line); err != nil {
			return err
		}
	}
	return sc.Err()
}
