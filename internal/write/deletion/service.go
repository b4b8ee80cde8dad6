package deletion

import (
	"context"
	"errors"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Service is Loki's delete API over the store: what its handlers call.
type Service struct {
	Store *Store
	// Mode is Loki's deletion_mode, for every tenant.
	Mode Mode
	// CancelPeriod is Loki's delete_request_cancel_period.
	CancelPeriod time.Duration
	// MaxInterval is Loki's delete_max_interval (0: none).
	MaxInterval time.Duration
	// CanDelete reports whether the backend takes delete tasks
	// (backend.ErrNoDeletes when not), asked before a request is taken
	// in filter-and-delete mode.
	CanDelete func(context.Context) error
	// Changed is told of a tenant whose requests changed: answers cached
	// for it are stale.
	Changed func(tenant.ID)
	Now     func() time.Time
}

// ErrDisabled is Loki's 403 for a tenant whose deletion_mode is disabled.
var ErrDisabled = errors.New("deletion is not available for this tenant")

// ErrNoDeletes says the storage cannot delete rows (CanDelete's error).
var ErrNoDeletes = backend.ErrNoDeletes

// Create decodes and stores a create call; org is the tenant's
// X-Scope-OrgID.
func (s *Service) Create(ctx context.Context, t tenant.ID, org string, p CreateParams) (*Request, error) {
	if s.Mode == Disabled {
		return nil, ErrDisabled
	}
	now := s.Now()
	nr, err := p.Decode(now, s.MaxInterval)
	if err != nil {
		return nil, err
	}
	if s.Mode == FilterAndDelete && s.CanDelete != nil {
		if err := s.CanDelete(ctx); err != nil {
			return nil, err
		}
	}
	r, err := s.Store.Add(t, org, nr, now)
	if err != nil {
		return nil, err
	}
	s.changed(t)
	return r, nil
}

// List returns the tenant's requests as Loki lists them.
func (s *Service) List(t tenant.ID, startMs, endMs int64, bounded bool) ([]Request, error) {
	if s.Mode == Disabled {
		return nil, ErrDisabled
	}
	return s.Store.List(t, startMs, endMs, bounded), nil
}

// Cancel removes a request within its cancel period (force: after it).
func (s *Service) Cancel(t tenant.ID, id string, force bool) error {
	if s.Mode == Disabled {
		return ErrDisabled
	}
	if err := s.Store.Cancel(t, id, force, s.CancelPeriod, s.Now()); err != nil {
		return err
	}
	s.changed(t)
	return nil
}

// Generation is the tenant's cache generation number.
func (s *Service) Generation(t tenant.ID) (string, error) {
	if s.Mode == Disabled {
		return "", ErrDisabled
	}
	return s.Store.Generation(t), nil
}

func (s *Service) changed(t tenant.ID) {
	if s.Changed != nil {
		s.Changed(t)
	}
}

// ParseListBound reads a list call's start or end as Loki does.
func ParseListBound(s string) (int64, bool) { return parseTime(s) }

// Listed writes requests as Loki's list answer: a JSON array and a line
// end.
func Listed(b []byte, reqs []Request) []byte {
	b = append(b, '[')
	for i := range reqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = reqs[i].appendListed(b)
	}
	return append(b, "]\n"...)
}
