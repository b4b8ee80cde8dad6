// Package rulestore keeps Loki's rule groups in Loki's local layout,
// <dir>/<tenant>/<namespace file>, each file a `groups:` YAML document as
// Prometheus' rulefmt reads it. Unlike Loki's local store it is writable:
// the rules API sets and deletes groups with atomic writes (a temporary
// file renamed over the namespace file). A file that does not parse or
// validate fails its namespace only, never the tenant.
package rulestore

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Group is a rule group as Loki keeps it (its proto's fields) and prints
// it: the YAML keys and their order are rulefmt.RuleGroup's. Group labels
// are dropped, as by Loki. query_offset is kept (vloki's: Loki drops it),
// and printed only when set, so groups without it read as in Loki.
type Group struct {
	Name        string          `yaml:"name"`
	Interval    model.Duration  `yaml:"interval,omitempty"`
	QueryOffset *model.Duration `yaml:"query_offset,omitempty"`
	Limit       int             `yaml:"limit,omitempty"`
	Rules       []Rule          `yaml:"rules"`
}

// Rule is a recording or alerting rule as Loki keeps it, plus an alert's
// keep_firing_for (vloki's: Loki's proto has no field for it, loki#7450),
// printed only when set.
type Rule struct {
	Record        string            `yaml:"record,omitempty"`
	Alert         string            `yaml:"alert,omitempty"`
	Expr          string            `yaml:"expr"`
	For           model.Duration    `yaml:"for,omitempty"`
	KeepFiringFor model.Duration    `yaml:"keep_firing_for,omitempty"`
	Labels        map[string]string `yaml:"labels,omitempty"`
	Annotations   map[string]string `yaml:"annotations,omitempty"`
}

// Name is the rule's alert or record name.
func (r Rule) Name() string {
	if r.Alert != "" {
		return r.Alert
	}
	return r.Record
}

// The decoding structs mirror prometheus/model/rulefmt's YAML layout, so a
// strict decoder accepts exactly the keys Prometheus' rulefmt knows.
type fileGroups struct {
	Groups []fileGroup `yaml:"groups"`
}

type fileGroup struct {
	Name        string            `yaml:"name"`
	Interval    model.Duration    `yaml:"interval,omitempty"`
	QueryOffset *model.Duration   `yaml:"query_offset,omitempty"`
	Limit       int               `yaml:"limit,omitempty"`
	Rules       []Rule            `yaml:"rules"`
	Labels      map[string]string `yaml:"labels,omitempty"`
}

// kept is the group as stored: group labels dropped, as by Loki;
// keep_firing_for kept on alerting rules only (Prometheus' recording
// rules have none, and Loki accepts it there silently).
func (g fileGroup) kept() Group {
	out := Group{Name: g.Name, Interval: g.Interval, QueryOffset: g.QueryOffset, Limit: g.Limit, Rules: make([]Rule, 0, len(g.Rules))}
	for _, r := range g.Rules {
		rule := Rule{Record: r.Record, Alert: r.Alert, Expr: r.Expr, For: r.For, Labels: r.Labels, Annotations: r.Annotations}
		if r.Alert != "" {
			rule.KeepFiringFor = r.KeepFiringFor
		}
		out.Rules = append(out.Rules, rule)
	}
	return out
}

// ParseFile reads a namespace file as Loki's local store does: yaml.v3
// with unknown keys refused, then Loki's validation. It returns the first
// error only, as Loki reports it.
func ParseFile(content []byte) ([]Group, error) {
	var fg fileGroups
	dec := yaml.NewDecoder(bytes.NewReader(content))
	dec.KnownFields(true)
	if err := dec.Decode(&fg); err != nil {
		// An empty file is an EOF: Loki reports it too.
		return nil, err
	}
	groups := make([]Group, 0, len(fg.Groups))
	for _, g := range fg.Groups {
		groups = append(groups, g.kept())
	}
	if errs := Validate(groups...); len(errs) > 0 {
		return nil, errs[0]
	}
	return groups, nil
}

// ErrDecode is Loki's answer to a POSTed body that is not a rule group
// (its typo included).
var ErrDecode = errors.New("unable to decoded rule group")

// ParseGroup reads one POSTed group as Loki does: non-strict (unknown keys
// ignored), fields Loki's proto lacks dropped. It does not validate.
func ParseGroup(body []byte) (Group, error) {
	var g fileGroup
	if err := yaml.Unmarshal(body, &g); err != nil {
		return Group{}, ErrDecode
	}
	return g.kept(), nil
}

// MarshalFile is the namespace file for groups.
func MarshalFile(groups []Group) ([]byte, error) {
	return yaml.Marshal(struct {
		Groups []Group `yaml:"groups"`
	}{groups})
}

var (
	legacyLabelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	legacyMetricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
)

// Validate applies Loki's checks (its ValidateGroups) with Loki's texts:
// group names, then the first problem of each rule, expressions parsed as
// LogQL. Loki ranges over labels in map order; here they are sorted, so
// the error reported for a rule is always the same one.
func Validate(groups ...Group) []error {
	var errs []error
	seen := map[string]bool{}
	for i, g := range groups {
		if g.Name == "" {
			errs = append(errs, fmt.Errorf("group %d: Groupname must not be empty", i))
		}
		if seen[g.Name] {
			errs = append(errs, fmt.Errorf("groupname: \"%s\" is repeated in the same file", g.Name))
		}
		seen[g.Name] = true
		for _, r := range g.Rules {
			if err := validateRule(r, g.Name); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// JoinErrors is Loki's text for several validation errors.
func JoinErrors(errs []error) string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, ", ")
}

func validateRule(r Rule, group string) error {
	switch {
	case r.Record != "" && r.Alert != "":
		return errors.New("only one of 'record' and 'alert' must be set")
	case r.Record == "" && r.Alert == "":
		return errors.New("one of 'record' or 'alert' must be set")
	case r.Expr == "":
		return errors.New("field 'expr' must be set in rule")
	}
	if _, err := logql.ParseExpr(r.Expr); err != nil {
		if r.Record != "" {
			return fmt.Errorf("could not parse expression for record '%s' in group '%s': %w", r.Record, group, err)
		}
		return fmt.Errorf("could not parse expression for alert '%s' in group '%s': %w", r.Alert, group, err)
	}
	if r.Record != "" {
		switch {
		case len(r.Annotations) > 0:
			return errors.New("invalid field 'annotations' in recording rule")
		case r.For != 0:
			return errors.New("invalid field 'for' in recording rule")
		case !legacyMetricName.MatchString(r.Record):
			return fmt.Errorf("invalid recording rule name: %s", r.Record)
		}
	}
	for _, k := range sortedKeys(r.Labels) {
		if !legacyLabelName.MatchString(k) || k == model.MetricNameLabel {
			return fmt.Errorf("invalid label name: %s", k)
		}
		if !utf8.ValidString(r.Labels[k]) {
			return fmt.Errorf("invalid label value: %s", r.Labels[k])
		}
	}
	for _, k := range sortedKeys(r.Annotations) {
		if !legacyLabelName.MatchString(k) {
			return fmt.Errorf("invalid annotation name: %s", k)
		}
	}
	if r.Alert == "" {
		return nil
	}
	for _, k := range sortedKeys(r.Labels) {
		if err := parseTemplate(r.Alert, r.Labels[k]); err != nil {
			return fmt.Errorf("label %q: %w", k, err)
		}
	}
	for _, k := range sortedKeys(r.Annotations) {
		if err := parseTemplate(r.Alert, r.Annotations[k]); err != nil {
			return fmt.Errorf("annotation %q: %w", k, err)
		}
	}
	return nil
}

// templateFuncs are the names of Prometheus' template functions
// (prometheus/template), so parsing knows them; they are never run here.
var templateFuncs = func() template.FuncMap {
	m := template.FuncMap{}
	for _, name := range []string{"query", "first", "label", "value", "strvalue", "args", "reReplaceAll",
		"safeHtml", "match", "title", "toUpper", "toLower", "graphLink", "tableLink", "sortByLabel",
		"stripPort", "stripDomain", "humanize", "humanize1024", "humanizeDuration", "humanizePercentage",
		"humanizeTimestamp", "toTime", "toDuration", "now", "pathPrefix", "externalURL", "parseDuration",
		"urlQueryEscape"} {
		m[name] = func(...any) any { return nil }
	}
	return m
}()

// parseTemplate parses a label or annotation template as Loki's
// validation does: after Loki's variable definitions ($labels,
// $externalLabels and $value; not $externalURL), named __alert_<alert>.
func parseTemplate(alert, text string) error {
	defs := "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$value := .Value}}"
	_, err := template.New("__alert_" + alert).Funcs(templateFuncs).Option("missingkey=zero").Parse(defs + text)
	return err
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
