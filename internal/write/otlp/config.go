package otlp

import (
	"errors"
	"fmt"
	"regexp"
)

// Action is what becomes of a matching attribute, as Loki's otlp_config
// names it.
type Action string

// Loki's attribute actions.
const (
	IndexLabel         Action = "index_label"
	StructuredMetadata Action = "structured_metadata"
	Drop               Action = "drop"
)

// AttributesConfig picks attributes by name or by a fully anchored regex
// and says what becomes of them (default structured_metadata).
type AttributesConfig struct {
	Action     Action   `yaml:"action"`
	Attributes []string `yaml:"attributes"`
	Regex      string   `yaml:"regex"`
	re         *regexp.Regexp
}

// ResourceAttributesConfig adds rules for resource attributes, after
// Loki's default index labels unless IgnoreDefaults.
type ResourceAttributesConfig struct {
	IgnoreDefaults   bool               `yaml:"ignore_defaults"`
	AttributesConfig []AttributesConfig `yaml:"attributes_config"`
}

// Config is Loki's per-tenant otlp_config (limits_config.otlp_config).
type Config struct {
	ResourceAttributes  ResourceAttributesConfig `yaml:"resource_attributes"`
	ScopeAttributes     []AttributesConfig       `yaml:"scope_attributes"`
	LogAttributes       []AttributesConfig       `yaml:"log_attributes"`
	SeverityTextAsLabel bool                     `yaml:"severity_text_as_label"`
}

// Compile checks the configuration with Loki's rules and its messages,
// and compiles the regexes.
func (c *Config) Compile() error {
	for _, list := range [][]AttributesConfig{c.ResourceAttributes.AttributesConfig, c.ScopeAttributes, c.LogAttributes} {
		for i := range list {
			if err := list[i].compile(); err != nil {
				return err
			}
		}
	}
	for _, ac := range c.ScopeAttributes {
		if ac.Action == IndexLabel {
			return fmt.Errorf("%s action is only supported for resource_attributes", IndexLabel)
		}
	}
	return nil
}

func (a *AttributesConfig) compile() error {
	if a.Action == "" {
		a.Action = StructuredMetadata
	}
	if a.Action != IndexLabel && a.Action != StructuredMetadata && a.Action != Drop {
		return fmt.Errorf("unsupported action, it must be one of: %s, %s, %s", Drop, IndexLabel, StructuredMetadata)
	}
	if len(a.Attributes) == 0 && a.Regex == "" {
		return errors.New("attributes or regex must be set")
	}
	if len(a.Attributes) != 0 && a.Regex != "" {
		return errors.New("only one of attributes or regex must be set")
	}
	if a.Regex != "" {
		re, err := regexp.Compile("^(?:" + a.Regex + ")$")
		if err != nil {
			return fmt.Errorf("otlp_config regex %q: %w", a.Regex, err)
		}
		a.re = re
	}
	return nil
}

func (a *AttributesConfig) matches(name string) bool {
	if a.re != nil {
		return a.re.MatchString(name)
	}
	for _, n := range a.Attributes {
		if n == name {
			return true
		}
	}
	return false
}

// action is the first matching rule's action, structured_metadata when
// none matches.
func action(name string, rules []AttributesConfig) Action {
	for i := range rules {
		if rules[i].matches(name) {
			return rules[i].Action
		}
	}
	return StructuredMetadata
}

// resourceAction is Loki's ActionForResourceAttribute: its default index
// labels first (unless ignored), then the configured rules.
func (c *Config) resourceAction(name string) Action {
	if !c.ResourceAttributes.IgnoreDefaults && IndexedResourceAttributes[name] {
		return IndexLabel
	}
	return action(name, c.ResourceAttributes.AttributesConfig)
}
