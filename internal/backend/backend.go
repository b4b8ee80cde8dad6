// Package backend is vloki's client of the VictoriaLogs HTTP API. The same
// client talks to an external VictoriaLogs (single node, or a cluster's
// vlselect/vlinsert) over the network, or to the embedded engine through an
// in-process http.RoundTripper.
package backend

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"
)

// Tenant is a VictoriaLogs tenant.
type Tenant struct {
	AccountID uint32
	ProjectID uint32
}

// Client calls VictoriaLogs.
type Client struct {
	base *url.URL
	// insertBase, when set, takes the ingestion requests (a cluster's
	// vlinsert); base takes the rest (its vlselect).
	insertBase *url.URL
	http       *http.Client
	// streaming has no overall timeout: live tails last as long as their
	// context.
	streaming *http.Client
	observe   func(endpoint string, d time.Duration, err error)
	// direct, when set, runs queries in-process without HTTP.
	direct DirectQuerier
	// breaker fails requests fast while VictoriaLogs is unreachable.
	breaker *gobreaker.CircuitBreaker[*http.Response]
}

// Options configure a Client.
type Options struct {
	// Timeout bounds a whole request, including reading the answer.
	Timeout time.Duration
	// Observe, when set, is called after every request with its duration.
	Observe func(endpoint string, d time.Duration, err error)
	// Direct, when set, runs LogsQL queries without HTTP (the embedded
	// engine); every other request still goes through the transport.
	Direct DirectQuerier
	// InsertURL, when set, receives pushes instead of the base URL: a
	// VictoriaLogs cluster's vlinsert, the base being its vlselect.
	InsertURL string
}

// NewHTTPTransport returns a transport sized for many concurrent requests to
// one host: Go's default of 2 idle connections per host exhausts ports under
// load.
func NewHTTPTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   512,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0,
		ExpectContinueTimeout: time.Second,
	}
}

// New returns a client of the VictoriaLogs at baseURL that sends requests
// through rt.
func New(baseURL string, rt http.RoundTripper, opts Options) (*Client, error) {
	u, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	observe := opts.Observe
	if observe == nil {
		observe = func(string, time.Duration, error) {}
	}
	c := &Client{
		base: u, http: &http.Client{Transport: rt, Timeout: opts.Timeout}, streaming: &http.Client{Transport: rt},
		observe: observe, breaker: newBreaker(), direct: opts.Direct,
	}
	if opts.InsertURL != "" {
		if c.insertBase, err = parseBase(opts.InsertURL); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil {
		return nil, fmt.Errorf("invalid VictoriaLogs URL %q: %w", raw, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid VictoriaLogs URL %q: want scheme://host[:port]", raw)
	}
	return u, nil
}

// BaseURL is the VictoriaLogs URL the client talks to.
func (c *Client) BaseURL() string { return c.base.String() }

// Error is a non-2xx answer from VictoriaLogs.
type Error struct {
	Endpoint string
	Status   int
	Body     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("VictoriaLogs %s answered %d: %s", e.Endpoint, e.Status, strings.TrimSpace(e.Body))
}

// do sends a request and returns the response when VictoriaLogs answered
// 2xx. The caller closes the body.
func (c *Client) do(ctx context.Context, t Tenant, method, path string, form url.Values, body io.Reader, hdr http.Header) (*http.Response, error) {
	return c.send(ctx, c.http, t, method, path, form, body, hdr)
}

// send is do through the given client (the streaming one for live tails).
func (c *Client) send(ctx context.Context, client *http.Client, t Tenant, method, path string, form url.Values, body io.Reader, hdr http.Header) (*http.Response, error) {
	u := *c.base
	if c.insertBase != nil && strings.HasPrefix(path, "/insert/") {
		u = *c.insertBase
	}
	u.Path += path
	if method == http.MethodGet || body != nil {
		u.RawQuery = form.Encode()
	} else {
		body = strings.NewReader(form.Encode())
		hdr = cloneWith(hdr, "Content-Type", "application/x-www-form-urlencoded")
	}
	countRequest(ctx)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("AccountID", strconv.FormatUint(uint64(t.AccountID), 10))
	req.Header.Set("ProjectID", strconv.FormatUint(uint64(t.ProjectID), 10))
	resp, err := c.breaker.Execute(func() (*http.Response, error) { return client.Do(req) })
	if err != nil {
		return nil, c.classify(ctx, breakerError(err))
	}
	resp.Body = &classifyingBody{ReadCloser: resp.Body, ctx: ctx, c: c}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &Error{Endpoint: path, Status: resp.StatusCode, Body: string(b)}
	}
	return resp, nil
}

func cloneWith(h http.Header, k, v string) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set(k, v)
	return out
}

// timed runs fn and reports its duration to the observer.
func (c *Client) timed(endpoint string, fn func() error) error {
	start := time.Now()
	err := fn()
	c.observe(endpoint, time.Since(start), err)
	return err
}
