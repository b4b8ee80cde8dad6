package logtmpl

import (
	"bytes"
	"sync"
	"text/template"
	"text/template/parse"
	"time"
)

// Template is a parsed line_format or label_format template. It is safe
// for concurrent use: each execution takes a private copy bound to the
// entry's line and timestamp.
type Template struct {
	parsed *template.Template
	pool   sync.Pool
}

// runner is one goroutine's copy of a template.
type runner struct {
	t    *template.Template
	line string
	ts   int64
	buf  bytes.Buffer
}

// Parse parses text as Loki does; name is "line" for line_format and
// "label" for label_format, and shows in error messages.
func Parse(name, text string) (*Template, error) {
	t, err := template.New(name).Option("missingkey=zero").Funcs(baseFuncs).Parse(text)
	if err != nil {
		return nil, err
	}
	return &Template{parsed: t}, nil
}

// Execute renders the template over the entry's labels.
func (t *Template) Execute(labels map[string]string, line string, ts int64) (string, error) {
	r, _ := t.pool.Get().(*runner)
	if r == nil {
		r = t.newRunner()
	}
	defer t.pool.Put(r)
	r.line, r.ts = line, ts
	r.buf.Reset()
	if err := r.t.Execute(&r.buf, labels); err != nil {
		return "", err
	}
	return r.buf.String(), nil
}

func (t *Template) newRunner() *runner {
	r := &runner{}
	c, _ := t.parsed.Clone()
	r.t = c.Funcs(template.FuncMap{
		lineFunc:      func() string { return r.line },
		timestampFunc: func() time.Time { return time.Unix(0, r.ts) },
	})
	return r
}

// Fields lists the label names the template reads (`.name`), as Loki's
// parser hints count them.
func (t *Template) Fields() []string {
	return nodeFields(nil, t.parsed.Root)
}

func nodeFields(out []string, n parse.Node) []string {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				out = nodeFields(out, c)
			}
		}
	case *parse.ActionNode:
		out = pipeFields(out, n.Pipe)
	case *parse.PipeNode:
		out = pipeFields(out, n)
	case *parse.CommandNode:
		for _, a := range n.Args {
			out = nodeFields(out, a)
		}
	case *parse.IfNode:
		out = branchFields(out, &n.BranchNode)
	case *parse.WithNode:
		out = branchFields(out, &n.BranchNode)
	case *parse.RangeNode:
		out = branchFields(out, &n.BranchNode)
	case *parse.FieldNode:
		out = append(out, n.Ident...)
	}
	return out
}

func pipeFields(out []string, p *parse.PipeNode) []string {
	if p == nil {
		return out
	}
	for _, c := range p.Cmds {
		out = nodeFields(out, c)
	}
	return out
}

func branchFields(out []string, b *parse.BranchNode) []string {
	out = pipeFields(out, b.Pipe)
	if b.List != nil {
		out = nodeFields(out, b.List)
	}
	if b.ElseList != nil {
		out = nodeFields(out, b.ElseList)
	}
	return out
}
