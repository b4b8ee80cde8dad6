package acklog

import (
	"math"
	"testing"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

func push(ts ...int64) []model.Stream {
	s := model.Stream{}
	for _, x := range ts {
		s.Entries = append(s.Entries, model.Entry{TimestampNs: x})
	}
	return []model.Stream{s}
}

func TestOldestSince(t *testing.T) {
	l, tn := New(), backend.Tenant{AccountID: 3}
	if o, ok := l.OldestSince(tn, 0); !ok || o != math.MaxInt64 {
		t.Fatalf("empty log: %d %v", o, ok)
	}
	l.Acked(tn, push(500, 300))
	s := l.Seq(tn)
	l.Acked(tn, push(900))
	l.Acked(tn, push(700, 800))
	if o, ok := l.OldestSince(tn, s); !ok || o != 700 {
		t.Errorf("since the first push: %d %v, want 700", o, ok)
	}
	if o, ok := l.OldestSince(tn, 0); !ok || o != 300 {
		t.Errorf("since the start: %d %v, want 300", o, ok)
	}
	if o, ok := l.OldestSince(tn, l.Seq(tn)); !ok || o != math.MaxInt64 {
		t.Errorf("since the last push: %d %v", o, ok)
	}
	l.Failed(tn)
	if o, ok := l.OldestSince(tn, s); !ok || o != math.MinInt64 {
		t.Errorf("after a failed push: %d %v", o, ok)
	}
	if _, ok := l.OldestSince(backend.Tenant{}, 0); !ok {
		t.Error("another tenant sees this one's pushes")
	}
}

func TestTrimmedLogIsUnknown(t *testing.T) {
	l, tn := New(), backend.Tenant{}
	for i := range 2 * Keep {
		l.Acked(tn, push(int64(i)))
	}
	if _, ok := l.OldestSince(tn, 1); ok {
		t.Error("a sequence older than the log was answered")
	}
	if o, ok := l.OldestSince(tn, l.Seq(tn)-2); !ok || o != 2*Keep-2 {
		t.Errorf("recent sequence: %d %v", o, ok)
	}
}
