package plan

import (
	"strconv"
	"strings"

	"github.com/vloki/vloki/internal/lang/logsql"
)

// SamplesKey identifies the samples the rows path extracts for this range
// aggregation, whatever its window, step or operation: a canonical
// printing of all that decides which rows are read and what each becomes
// (log query and unwrap, the pushdown with what delete requests hide, the
// extraction's grouping, parser hints and early filters, data of other
// agents). Range, offset and operation are not in it: they only decide
// which samples a window takes and what it makes of them. Empty when the
// query's source is unknown: such samples are not shared.
func (ra *RangeAgg) SamplesKey() string {
	if ra.Source == "" || ra.Log == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(ra.Source)
	b.WriteString("\x00pushdown:")
	b.WriteString(logsql.Query{Filter: ra.Log.WidePushdown()}.String())
	b.WriteString("\x00grouping:")
	if ra.Grouping == nil {
		b.WriteString("none")
	} else {
		b.WriteString(ra.Grouping.String())
	}
	b.WriteString("\x00hints:")
	if h := ra.Hints; h != nil {
		b.WriteString(strconv.FormatBool(h.NoLabels) + "," + strconv.FormatBool(h.PreserveError) + "," +
			strconv.FormatBool(h.CheckEarly) + "," + strconv.FormatBool(h.Required == nil) + ":" + strings.Join(h.Required, ","))
	}
	b.WriteString("\x00early:")
	if e := ra.EarlyFilters(); e != nil {
		for i, n := range e.Names {
			b.WriteString(strconv.Quote(n) + "=" + e.Filters[i].String() + ";")
		}
	}
	b.WriteString("\x00foreign:")
	b.WriteString(strconv.FormatBool(ra.Log.Foreign != nil))
	return b.String()
}
