package plan

import (
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
)

// TestEveryOpHasAPlanRow fails for an operator logql registers without a
// row here, or a row that contradicts logql's.
func TestEveryOpHasAPlanRow(t *testing.T) {
	for _, op := range logql.RangeOps() {
		row, ok := rangeOpPlans[op]
		switch {
		case !ok:
			t.Errorf("%s: no row in rangeOpPlans", op)
		case row.bucket != nil && op.UnwrapRule() == logql.UnwrapRequired:
			t.Errorf("%s: VictoriaLogs' buckets cannot sum unwrapped values", op)
		}
	}
	if len(rangeOpPlans) != len(logql.RangeOps()) {
		t.Errorf("rows for operators logql does not register")
	}
}
