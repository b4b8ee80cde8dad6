// Command record-malformed derives malformed queries from valid ones
// (internal/lang/logql/mutate) and records a running Loki's answers to them, the
// goldens internal/lang/logql's TestLokiMalformed holds vloki's parser to.
//
// Seeds are the queries Loki ran (answered 200) among the LogQL corpus
// (internal/lang/logql/testdata/corpus.jsonl) and the parity corpus
// (parity/corpus, statuses from parity/goldens.jsonl); mutate.SelectSeeds
// picks the ones covering the most syntax. Every mutant is asked on
// query_range, query and format_query, twice; a mutant whose two answers
// differ is marked flaky. Only Loki's answers are written.
//
//	go run ./parity/cmd/record-malformed -url $LOKI_URL
//
// `make malformed-record` starts a fresh Loki, runs this and stops it.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lang/logql/mutate"
)

// Case is one line of malformed.jsonl.gz. Instant and format answers are
// kept only where they say something the range answer does not.
type Case struct {
	Query string `json:"q"`
	Kind  string `json:"k"`
	// Status and Error are query_range's answer (Error empty on 200).
	Status int    `json:"s"`
	Error  string `json:"e,omitempty"`
	// InstantStatus and InstantError are the instant query's answer when
	// it differs from the range answer.
	InstantStatus int    `json:"is,omitempty"`
	InstantError  string `json:"ie,omitempty"`
	// FormatStatus is format_query's status when it differs from the
	// range status; Format is its output (200) or error text.
	FormatStatus int    `json:"fs,omitempty"`
	Format       string `json:"f,omitempty"`
	Flaky        bool   `json:"flaky,omitempty"`
}

func main() {
	lokiURL := flag.String("url", os.Getenv("LOKI_URL"), "base URL of the Loki to ask (default $LOKI_URL)")
	corpus := flag.String("corpus", "internal/lang/logql/testdata/corpus.jsonl", "LogQL corpus with Loki's answers")
	parityDir := flag.String("parity", "parity", "parity directory (corpus/ and goldens.jsonl)")
	out := flag.String("out", "internal/lang/logql/testdata/malformed.jsonl.gz", "output file (gzipped)")
	seeds := flag.Int("seeds", 60, "how many seeds")
	perSeed := flag.Int("per-seed", 300, "mutants per seed")
	passes := flag.Int("passes", 2, "how many times every mutant is asked; answers must agree")
	list := flag.Bool("list", false, "print the seeds and the mutants' count by kind, ask nothing")
	flag.Parse()
	valid, err := validQueries(*corpus, *parityDir)
	if err != nil {
		fatalf("%v", err)
	}
	chosen := mutate.SelectSeeds(valid, *seeds)
	mutants := mutate.Generate(chosen, *perSeed)
	fmt.Fprintf(os.Stderr, "%d valid queries, %d seeds, %d mutants\n", len(valid), len(chosen), len(mutants))
	if *list {
		printPlan(chosen, mutants)
		return
	}
	if *lokiURL == "" {
		fatalf("no Loki URL: pass -url or set LOKI_URL")
	}

	a := &asker{base: strings.TrimRight(*lokiURL, "/"), client: newClient(time.Minute)}
	cases := make([]Case, len(mutants))
	for p := range *passes {
		for i, m := range mutants {
			c, err := a.record(m)
			if err != nil {
				fatalf("%q: %v", m.Query, err)
			}
			if p == 0 {
				cases[i] = c
			} else if c != cases[i] {
				cases[i].Flaky = true
			}
			if (i+1)%2000 == 0 {
				fmt.Fprintf(os.Stderr, "pass %d: %d/%d\n", p+1, i+1, len(mutants))
			}
		}
	}
	if err := write(*out, cases); err != nil {
		fatalf("%v", err)
	}
	report(cases, *out)
}

// printPlan lists the seeds and how many mutants of each kind they gave.
func printPlan(seeds []string, mutants []mutate.Mutant) {
	for _, s := range seeds {
		fmt.Println(s)
	}
	kinds := map[string]int{}
	for _, m := range mutants {
		kinds[m.Kind]++
	}
	fmt.Println(kinds)
}

func report(cases []Case, out string) {
	accepted, flaky := 0, 0
	for _, c := range cases {
		if c.Status == 200 {
			accepted++
		}
		if c.Flaky {
			flaky++
			fmt.Fprintf(os.Stderr, "FLAKY %q\n", c.Query)
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %d mutants to %s: %d run by Loki, %d refused; %d flaky\n",
		len(cases), out, accepted, len(cases)-accepted, flaky)
}

// write stores the cases one JSON object a line, without HTML escaping so
// that queries stay readable, gzipped (the 18,000 lines weigh 3 MB).
func write(path string, cases []Case) error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "record-malformed: "+format+"\n", args...)
	os.Exit(1)
}
