package logql

import (
	"strconv"
	"strings"

	"github.com/vloki/vloki/internal/lang/logtmpl"
)

// LineFmtExpr is `| line_format "template"`.
type LineFmtExpr struct {
	Value string
	Tmpl  *logtmpl.Template
}

func (e *LineFmtExpr) String() string { return "| line_format " + strconv.Quote(e.Value) }

// LabelFmt is one `name=source` rename or `name="template"` of a
// label_format stage.
type LabelFmt struct {
	Name   string
	Value  string
	Rename bool
	Tmpl   *logtmpl.Template
}

func (f LabelFmt) String() string {
	if f.Rename {
		return f.Name + "=" + f.Value
	}
	return f.Name + "=" + strconv.Quote(f.Value)
}

// LabelFmtExpr is `| label_format a=b, c="{{.d}}"`.
type LabelFmtExpr struct {
	Formats []LabelFmt
}

func (e *LabelFmtExpr) String() string {
	parts := make([]string, len(e.Formats))
	for i, f := range e.Formats {
		parts[i] = f.String()
	}
	return "| label_format " + strings.Join(parts, ",")
}

// parseLineFormat reads the template after `line_format`.
func (p *parser) parseLineFormat() (Stage, error) {
	if p.advance().kind != tString {
		return nil, p.syntaxError("STRING")
	}
	e := &LineFmtExpr{Value: p.tok.text}
	p.advance()
	t, err := logtmpl.Parse("line", e.Value)
	if err != nil {
		p.failStage(e, "invalid line template: "+err.Error())
		return e, nil
	}
	e.Tmpl = t
	return e, nil
}

// parseLabelFormat reads the comma-separated items after `label_format`.
func (p *parser) parseLabelFormat() (Stage, error) {
	e := &LabelFmtExpr{}
	for {
		if !p.advance().isName() {
			return nil, p.syntaxError("IDENTIFIER")
		}
		f := LabelFmt{Name: p.tok.text}
		if !p.advance().isPunctText("=") {
			return nil, p.syntaxError("=")
		}
		switch v := p.advance(); {
		case v.kind == tString:
			f.Value = v.text
		case v.isName():
			f.Value, f.Rename = v.text, true
		default:
			return nil, p.syntaxError("IDENTIFIER", "STRING")
		}
		e.Formats = append(e.Formats, f)
		if !p.advance().isPunctText(",") {
			break
		}
	}
	if msg := e.compile(); msg != "" {
		p.failStage(e, msg)
	}
	return e, nil
}

// compile applies Loki's checks and parses the templates; it returns
// what Loki's stage constructor says of a bad one.
func (e *LabelFmtExpr) compile() string {
	seen := map[string]bool{}
	for _, f := range e.Formats {
		if f.Name == "__error__" {
			return f.Name + " cannot be formatted"
		}
		if seen[f.Name] {
			return "multiple label name '" + f.Name + "' not allowed in a single format operation"
		}
		seen[f.Name] = true
	}
	for i, f := range e.Formats {
		if f.Rename {
			continue
		}
		t, err := logtmpl.Parse("label", f.Value)
		if err != nil {
			return "invalid template for label '" + f.Name + "': " + err.Error()
		}
		e.Formats[i].Tmpl = t
	}
	return ""
}
