package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// runRules is `vloki rules <command>`; the one command is backfill.
func runRules(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "backfill" {
		fmt.Fprintln(stderr, "usage: vloki rules backfill -start <time> -end <time> [-url URL] [-tenant T] [-namespace N] [-group G]")
		return errors.New("unknown rules command")
	}
	return backfill(args[1:], stdout, stderr)
}

// backfill asks a running vloki to backfill recording rules
// (POST /ruler/backfill) and prints its JSON report.
func backfill(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vloki rules backfill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("url", "http://127.0.0.1:3100", "the vloki to run the backfill (its rules, backend and remote write settings are used)")
	start := fs.String("start", "", "the range's start: RFC3339, or Unix seconds or nanoseconds (required)")
	end := fs.String("end", "", "the range's end, included (required)")
	tenant := fs.String("tenant", "", "the tenant (X-Scope-OrgID; with auth off, vloki's single tenant)")
	namespace := fs.String("namespace", "", "only this namespace (default every one)")
	group := fs.String("group", "", "only groups of this name (default every one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *start == "" || *end == "" {
		fs.Usage()
		return errors.New("-start and -end are required")
	}
	q := url.Values{"start": {*start}, "end": {*end}}
	if *namespace != "" {
		q.Set("namespace", *namespace)
	}
	if *group != "" {
		q.Set("group", *group)
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(*server, "/")+"/ruler/backfill?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	if *tenant != "" {
		req.Header.Set("X-Scope-OrgID", *tenant)
	}
	resp, err := http.DefaultClient.Do(req) // no timeout: a long range takes long
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, strings.TrimSpace(string(body)))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("backfill: %s", resp.Status)
	}
	return nil
}
