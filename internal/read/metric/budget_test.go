package metric

import (
	"errors"
	"strings"
	"testing"
)

func TestBudgetFailsPastItsLimit(t *testing.T) {
	b := budget{max: 100}
	if err := b.take(100); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	err := b.take(1)
	var le *LimitError
	if !errors.As(err, &le) || le.Status() != 400 || !strings.Contains(le.Msg, "(limit: 100 B)") {
		t.Fatalf("got %v", err)
	}
	unlimited := budget{}
	if err := unlimited.take(1 << 40); err != nil {
		t.Fatalf("unlimited: %v", err)
	}
}
