// Command record-logql asks a running Loki which LogQL queries it accepts and
// records its exact answers, as the goldens for vloki's LogQL parser.
//
// Input is internal/lang/logql/testdata/corpus-queries.txt (format described in
// that file's header); output is internal/lang/logql/testdata/corpus.jsonl, one
// JSON object per query, sorted by query and de-duplicated. Every query is
// asked twice (two full passes); a query whose two answers differ is reported
// on stderr and marked "flaky": true.
//
//	go run ./parity/cmd/record-logql -url http://127.0.0.1:3100
//
// scripts/record-logql-corpus.sh starts a fresh Loki, runs this and stops it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Fixed evaluation times, so that answers never depend on the wall clock.
const (
	rangeStart = 1700000000 // 2023-11-14T22:13:20Z
	rangeEnd   = 1700003600 // one hour later
	rangeLimit = 10
)

// Case is one line of corpus.jsonl.
type Case struct {
	Query         string `json:"query"`
	RangeStatus   int    `json:"range_status"`
	RangeError    string `json:"range_error,omitempty"`
	InstantStatus int    `json:"instant_status"`
	InstantError  string `json:"instant_error,omitempty"`
	FormatStatus  int    `json:"format_status"`
	FormatBody    string `json:"format_body"`
	Flaky         bool   `json:"flaky,omitempty"`
}

// entry is one query of the input with the intent its author declared.
type entry struct {
	query  string
	intent string // "valid" or "invalid"
	line   int
}

func main() {
	lokiURL := flag.String("url", os.Getenv("LOKI_URL"), "base URL of the Loki to ask (default $LOKI_URL)")
	in := flag.String("in", "internal/lang/logql/testdata/corpus-queries.txt", "query corpus")
	out := flag.String("out", "internal/lang/logql/testdata/corpus.jsonl", "output file")
	passes := flag.Int("passes", 2, "how many times every query is asked; answers must agree")
	flag.Parse()
	if *lokiURL == "" {
		fatalf("no Loki URL: pass -url or set LOKI_URL")
	}
	entries, err := readCorpus(*in)
	if err != nil {
		fatalf("%v", err)
	}
	r := &recorder{base: strings.TrimRight(*lokiURL, "/"), client: &http.Client{Timeout: time.Minute}}

	var results [][]Case
	for p := 0; p < *passes; p++ {
		res := make([]Case, len(entries))
		for i, e := range entries {
			c, err := r.record(e.query)
			if err != nil {
				fatalf("line %d: %v", e.line, err)
			}
			res[i] = c
		}
		results = append(results, res)
	}

	cases := results[0]
	flaky := 0
	for i := range cases {
		for p := 1; p < len(results); p++ {
			if results[p][i] != cases[i] {
				cases[i].Flaky = true
			}
		}
		if cases[i].Flaky {
			flaky++
			fmt.Fprintf(os.Stderr, "FLAKY line %d: %q\n", entries[i].line, short(entries[i].query))
		}
	}

	// Report where the author's intent and Loki disagree. "valid" means Loki
	// runs the query (query_range answers 200); format_query answers 200 for
	// more queries, as it only parses (no stage is built, no limit checked).
	// The corpus records Loki's answers either way.
	parsed, ran, mismatched := 0, 0, 0
	for i, c := range cases {
		got := "invalid"
		if c.FormatStatus == http.StatusOK {
			parsed++
		}
		if c.RangeStatus == http.StatusOK {
			got = "valid"
			ran++
		}
		if got != entries[i].intent {
			mismatched++
			msg := fmt.Sprintf("%d %s", c.RangeStatus, c.RangeError)
			fmt.Fprintf(os.Stderr, "INTENT line %d: meant %s, Loki says %s (%s): %q\n",
				entries[i].line, entries[i].intent, got, short(strings.TrimSpace(msg)), short(entries[i].query))
		}
	}

	sort.SliceStable(cases, func(i, j int) bool { return cases[i].Query < cases[j].Query })
	var buf bytes.Buffer
	seen := map[string]bool{}
	n := 0
	for _, c := range cases {
		if seen[c.Query] {
			continue
		}
		seen[c.Query] = true
		b, err := marshal(c)
		if err != nil {
			fatalf("%v", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		n++
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d cases to %s; of %d queries read: %d valid (query_range 200), %d invalid; %d parse (format_query 200); %d intent mismatches; %d flaky\n",
		n, *out, len(cases), ran, len(cases)-ran, parsed, mismatched, flaky)
}

type recorder struct {
	base   string
	client *http.Client
}

func (r *recorder) record(q string) (Case, error) {
	c := Case{Query: q}
	var err error
	var body string

	rp := url.Values{}
	rp.Set("query", q)
	rp.Set("start", strconv.Itoa(rangeStart))
	rp.Set("end", strconv.Itoa(rangeEnd))
	rp.Set("limit", strconv.Itoa(rangeLimit))
	if c.RangeStatus, body, err = r.get("/loki/api/v1/query_range", rp); err != nil {
		return c, err
	}
	if c.RangeStatus != http.StatusOK {
		c.RangeError = body
	}

	ip := url.Values{}
	ip.Set("query", q)
	ip.Set("time", strconv.Itoa(rangeEnd))
	if c.InstantStatus, body, err = r.get("/loki/api/v1/query", ip); err != nil {
		return c, err
	}
	if c.InstantStatus != http.StatusOK {
		c.InstantError = body
	}

	fp := url.Values{}
	fp.Set("query", q)
	if c.FormatStatus, c.FormatBody, err = r.get("/loki/api/v1/format_query", fp); err != nil {
		return c, err
	}
	return c, nil
}

func (r *recorder) get(path string, params url.Values) (int, string, error) {
	resp, err := r.client.Get(r.base + path + "?" + params.Encode())
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(b), nil
}

// readCorpus reads corpus-queries.txt. See the header of that file.
func readCorpus(path string) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []entry
	intent := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "//"):
			continue
		case strings.HasPrefix(line, "%valid"):
			intent = "valid"
			continue
		case strings.HasPrefix(line, "%invalid"):
			intent = "invalid"
			continue
		}
		if intent == "" {
			return nil, fmt.Errorf("%s:%d: query before any %%valid/%%invalid section", path, ln)
		}
		q := line
		switch {
		case strings.HasPrefix(line, "%json "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "%json ")), &q); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, ln, err)
			}
		case strings.HasPrefix(line, "%repeat "):
			q, err = repeat(strings.TrimPrefix(line, "%repeat "))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, ln, err)
			}
		case strings.HasPrefix(line, "%"):
			return nil, fmt.Errorf("%s:%d: unknown directive %q", path, ln, line)
		}
		entries = append(entries, entry{query: q, intent: intent, line: ln})
	}
	return entries, sc.Err()
}

// repeat expands `%repeat N PREFIX REPEATED SUFFIX`, each part a JSON
// string: PREFIX, then REPEATED as many times as needed for the query to be
// N bytes long (at least; the last copy may overshoot), then SUFFIX.
func repeat(spec string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(spec))
	var n int
	var prefix, rep, suffix string
	for _, v := range []any{&n, &prefix, &rep, &suffix} {
		if err := dec.Decode(v); err != nil {
			return "", fmt.Errorf("bad %%repeat: %v", err)
		}
	}
	if rep == "" {
		return "", fmt.Errorf("bad %%repeat: empty repeated part")
	}
	var sb strings.Builder
	sb.WriteString(prefix)
	for sb.Len()+len(suffix) < n {
		sb.WriteString(rep)
	}
	sb.WriteString(suffix)
	return sb.String(), nil
}

// marshal encodes without HTML escaping so that queries stay readable.
func marshal(c Case) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func short(s string) string {
	if len(s) > 160 {
		return s[:160] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "record-logql: "+format+"\n", args...)
	os.Exit(1)
}
