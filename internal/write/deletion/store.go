package deletion

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/atomicfile"
)

// Store keeps the delete requests of every tenant, one file per tenant
// (`<account>-<project>.json`, rewritten whole and renamed into place on
// every change), and the LogsQL filters hiding what they match. Requests
// are few (a deletion rewrites storage: Loki and VictoriaLogs both advise
// it for rare cases), so every one is held in memory.
type Store struct {
	dir string

	mu      sync.Mutex
	tenants map[tenant.ID]*tenantState
}

// tenantState is one tenant's requests and what is derived from them.
type tenantState struct {
	Requests []*Request `json:"requests"`
	// Generation is Loki's cache generation number: the Unix ns of the
	// last create or cancel ("" before the first).
	Generation string `json:"generation"`
	// hidden is the filter matching every line the requests hide.
	hidden logsql.Filter
}

// Open loads the requests kept in dir (created with the first request).
func Open(dir string) (*Store, error) {
	s := &Store{dir: dir, tenants: map[tenant.ID]*tenantState{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		t, ok := tenantOfFile(filepath.Base(f))
		if !ok {
			continue
		}
		st, err := load(f)
		if err != nil {
			return nil, fmt.Errorf("delete requests %s: %w", f, err)
		}
		s.tenants[t] = st
	}
	return s, nil
}

func load(path string) (*tenantState, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := &tenantState{}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, err
	}
	if err := st.compile(); err != nil {
		return nil, err
	}
	return st, nil
}

func fileOf(t tenant.ID) string {
	return strconv.FormatUint(uint64(t.AccountID), 10) + "-" + strconv.FormatUint(uint64(t.ProjectID), 10) + ".json"
}

func tenantOfFile(name string) (tenant.ID, bool) {
	a, p, ok := strings.Cut(strings.TrimSuffix(name, ".json"), "-")
	acc, err1 := strconv.ParseUint(a, 10, 32)
	proj, err2 := strconv.ParseUint(p, 10, 32)
	return tenant.ID{AccountID: uint32(acc), ProjectID: uint32(proj)}, ok && err1 == nil && err2 == nil
}

// Filter is the LogsQL filter matching exactly the lines a request
// deletes: its time range (milliseconds, both inclusive, as Loki compares
// them with an entry's nanoseconds) and its query's stream selector and
// filters. A query whose stages VictoriaLogs cannot match exactly is
// refused (ErrInexact).
func Filter(sel logql.LogSelectorExpr, startMs, endMs int64) (logsql.Filter, error) {
	lq, err := plan.CompileLog(sel, nil)
	if err != nil {
		return nil, err
	}
	if !lq.PushdownExact {
		return nil, &Inexact{Query: sel.String()}
	}
	return logsql.And{logsql.TimeRange{Start: startMs * 1e6, End: endMs * 1e6}, lq.Pushdown}, nil
}

// Inexact is a delete query vloki cannot match exactly in VictoriaLogs:
// its pipeline has parsers or stages that change labels or lines.
type Inexact struct{ Query string }

func (e *Inexact) Error() string {
	return "vloki deletes by stream selector, line filters and filters on stream labels only; parsers and label formatting cannot be matched exactly in storage: " + e.Query
}

func (st *tenantState) compile() error {
	var hidden logsql.Or
	for _, r := range st.Requests {
		sel, err := logql.ParseLogSelector(r.Query, true)
		if err != nil {
			return err
		}
		f, err := Filter(sel, r.StartMs, r.EndMs)
		if err != nil {
			return err
		}
		hidden = append(hidden, f)
	}
	st.hidden = nil
	if len(hidden) > 0 {
		st.hidden = hidden
	}
	return nil
}

// Add stores a new request of the tenant (org is its X-Scope-OrgID, part
// of Loki's request id).
func (s *Store) Add(t tenant.ID, org string, nr NewRequest, now time.Time) (*Request, error) {
	if _, err := Filter(nr.Selector, nr.StartMs, nr.EndMs); err != nil {
		return nil, err
	}
	r := &Request{
		ID: requestID(org, now.UnixNano(), nr.Query), Query: nr.Query, StartMs: nr.StartMs, EndMs: nr.EndMs,
		CreatedMs: now.UnixMilli(), Status: StatusReceived,
	}
	err := s.change(t, func(st *tenantState) error {
		st.Requests = append(st.Requests, r)
		st.Generation = strconv.FormatInt(now.UnixNano(), 10)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// change applies fn to a copy of the tenant's state, writes it and only
// then makes it current: a failed write changes nothing.
func (s *Store) change(t tenant.ID, fn func(*tenantState) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &tenantState{}
	if cur := s.tenants[t]; cur != nil {
		next.Generation = cur.Generation
		for _, r := range cur.Requests {
			c := *r
			next.Requests = append(next.Requests, &c)
		}
	}
	if err := fn(next); err != nil {
		return err
	}
	if err := next.compile(); err != nil {
		return err
	}
	if err := s.write(t, next); err != nil {
		return err
	}
	s.tenants[t] = next
	return nil
}

// write replaces the tenant's file atomically.
func (s *Store) write(t tenant.ID, st *tenantState) error {
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(s.dir, fileOf(t)), raw)
}

// List returns the tenant's requests in creation order; with both bounds
// set (Unix ms), only those overlapping [start, end].
func (s *Store) List(t tenant.ID, startMs, endMs int64, bounded bool) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	if st := s.tenants[t]; st != nil {
		for _, r := range st.Requests {
			if !bounded || (r.StartMs <= endMs && r.EndMs >= startMs) {
				out = append(out, *r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedMs < out[j].CreatedMs })
	return out
}

// ErrNotFound: no request of the tenant has the id.
var ErrNotFound = errors.New(msgNotFound)

// Cancel removes a request not yet processed, within cancelPeriod of its
// creation unless forced, with Loki's texts for the refusals.
func (s *Store) Cancel(t tenant.ID, id string, force bool, cancelPeriod time.Duration, now time.Time) error {
	return s.change(t, func(st *tenantState) error {
		for i, r := range st.Requests {
			if r.ID != id {
				continue
			}
			if r.Status != StatusReceived || r.Task != "" {
				return bad(msgProcessing)
			}
			if !force && now.UnixMilli() > r.CreatedMs+cancelPeriod.Milliseconds() {
				return bad(fmt.Sprintf(msgPastCancelPeriod, cancelPeriod))
			}
			st.Requests = append(st.Requests[:i], st.Requests[i+1:]...)
			st.Generation = strconv.FormatInt(now.UnixNano(), 10)
			return nil
		}
		return ErrNotFound
	})
}

// Hidden is the filter matching every line the tenant's requests hide,
// nil when none does.
func (s *Store) Hidden(t tenant.ID) logsql.Filter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.tenants[t]; st != nil {
		return st.hidden
	}
	return nil
}

// Generation is the tenant's cache generation number ("" before its first
// request).
func (s *Store) Generation(t tenant.ID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.tenants[t]; st != nil {
		return st.Generation
	}
	return ""
}

// Pending is a request whose rows are to be deleted from storage.
type Pending struct {
	Tenant  tenant.ID
	Request Request
}

// Pending returns the requests not yet processed that may be: created
// more than delay before now.
func (s *Store) Pending(delay time.Duration, now time.Time) []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Pending
	for t, st := range s.tenants {
		for _, r := range st.Requests {
			if r.Status == StatusReceived && now.UnixMilli() > r.CreatedMs+delay.Milliseconds() {
				out = append(out, Pending{Tenant: t, Request: *r})
			}
		}
	}
	return out
}

// Update changes one request (its task, its status).
func (s *Store) Update(t tenant.ID, id string, fn func(*Request)) error {
	return s.change(t, func(st *tenantState) error {
		for _, r := range st.Requests {
			if r.ID == id {
				fn(r)
				return nil
			}
		}
		return ErrNotFound
	})
}
