package logql

import "strings"

// LabelSelection is one item of drop/keep: a label name, or a matcher
// that applies only when the label's value matches.
type LabelSelection struct {
	Name    string
	Matcher *Matcher
}

func (s LabelSelection) String() string {
	if s.Matcher != nil {
		return s.Matcher.String()
	}
	return s.Name
}

// DropLabelsExpr is `| drop a, b="v"`.
type DropLabelsExpr struct {
	Items []LabelSelection
}

// Names are the plain label names the stage drops.
func (e *DropLabelsExpr) Names() []string {
	var out []string
	for _, it := range e.Items {
		if it.Matcher == nil {
			out = append(out, it.Name)
		}
	}
	return out
}

func (e *DropLabelsExpr) String() string { return "| drop " + joinSelections(e.Items) }

// KeepLabelsExpr is `| keep a, b="v"`.
type KeepLabelsExpr struct {
	Items []LabelSelection
}

func (e *KeepLabelsExpr) String() string { return "| keep " + joinSelections(e.Items) }

func joinSelections(items []LabelSelection) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = it.String()
	}
	return strings.Join(parts, ",")
}
