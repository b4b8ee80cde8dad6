package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lang/logql/mutate"
)

// Fixed evaluation times, as record-logql's, so that answers never depend
// on the wall clock.
const (
	rangeStart = 1700000000 // 2023-11-14T22:13:20Z
	rangeEnd   = 1700003600 // one hour later
	rangeStep  = 60
	rangeLimit = 10
)

type asker struct {
	base   string
	client *http.Client
}

func newClient(timeout time.Duration) *http.Client { return &http.Client{Timeout: timeout} }

// record asks Loki about one mutant on its three query endpoints.
func (a *asker) record(m mutate.Mutant) (Case, error) {
	c := Case{Query: m.Query, Kind: m.Kind}
	var err error
	rp := url.Values{"query": {m.Query}, "start": {itoa(rangeStart)}, "end": {itoa(rangeEnd)},
		"step": {itoa(rangeStep)}, "limit": {itoa(rangeLimit)}}
	if c.Status, c.Error, err = a.get("/loki/api/v1/query_range", rp); err != nil {
		return c, err
	}
	ip := url.Values{"query": {m.Query}, "time": {itoa(rangeEnd)}, "limit": {itoa(rangeLimit)}}
	status, msg, err := a.get("/loki/api/v1/query", ip)
	if err != nil {
		return c, err
	}
	if status != c.Status || msg != c.Error {
		c.InstantStatus, c.InstantError = status, msg
	}
	return c, a.format(&c)
}

// format adds format_query's answer where it is not the range answer's
// error: its output for a query it formats, its error otherwise.
func (a *asker) format(c *Case) error {
	status, body, err := a.raw("/loki/api/v1/format_query", url.Values{"query": {c.Query}})
	if err != nil {
		return err
	}
	var answer struct {
		Data  string `json:"data"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		answer.Error = body
	}
	text := answer.Error
	if status == http.StatusOK {
		text = answer.Data
	}
	if status != c.Status || text != c.Error {
		c.FormatStatus, c.Format = status, text
	}
	return nil
}

// get returns the status and, unless 200, the body with its trailing
// newline removed (the error text).
func (a *asker) get(path string, params url.Values) (int, string, error) {
	status, body, err := a.raw(path, params)
	if status == http.StatusOK {
		body = ""
	}
	return status, strings.TrimSuffix(body, "\n"), err
}

func (a *asker) raw(path string, params url.Values) (int, string, error) {
	resp, err := a.client.Get(a.base + path + "?" + params.Encode())
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func itoa(n int) string { return strconv.Itoa(n) }
