package limits

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/vloki/vloki/internal/edge/tenant"
	"gopkg.in/yaml.v3"
)

// RuntimeConfig is what vloki takes of Loki's runtime configuration file.
type RuntimeConfig struct {
	// Tenants are the limits of each tenant the file overrides: the
	// defaults with the keys of its block applied.
	Tenants map[tenant.ID]Limits
	// Warnings say what of the file vloki left aside: empty tenant blocks
	// (Loki skips them too) and Loki's keys that vloki does not apply.
	Warnings []string
}

// ParseRuntimeConfig reads Loki's runtime configuration file,
//
//	overrides:
//	  "<tenant>":
//	    <limits_config key>: <value>
//
// as strictly as Loki does (a key Loki does not know is an error, so is a
// key given twice); each tenant block starts from defaults. Tenant names
// become VictoriaLogs tenants through tenantOf. An empty file overrides
// nothing.
func ParseRuntimeConfig(data []byte, defaults Limits, tenantOf func(string) tenant.ID) (RuntimeConfig, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return RuntimeConfig{}, err
	}
	out := RuntimeConfig{Tenants: map[tenant.ID]Limits{}}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return out, nil
	}
	top, err := mapping(doc.Content[0])
	if err != nil {
		return RuntimeConfig{}, err
	}
	for _, kv := range top {
		switch key := kv[0].Value; {
		case key == "overrides":
			if err := out.addOverrides(kv[1], defaults, tenantOf); err != nil {
				return RuntimeConfig{}, err
			}
		case lokiOnlySections[key]:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: Loki's, not applied by vloki", key))
		default:
			return RuntimeConfig{}, fmt.Errorf("line %d: field %s not found in Loki's runtime configuration", kv[0].Line, key)
		}
	}
	return out, nil
}

// addOverrides reads the overrides block.
func (rc *RuntimeConfig) addOverrides(n *yaml.Node, defaults Limits, tenantOf func(string) tenant.ID) error {
	if isNull(n) {
		return nil
	}
	blocks, err := mapping(n)
	if err != nil {
		return err
	}
	names := map[tenant.ID]string{}
	ignored := map[string]bool{}
	for _, kv := range blocks {
		name, block := kv[0].Value, kv[1]
		if isNull(block) {
			rc.Warnings = append(rc.Warnings, fmt.Sprintf("skipping empty tenant limit definition for tenant %s", name))
			continue
		}
		l, err := tenantLimits(block, defaults, ignored)
		if err != nil {
			return fmt.Errorf("invalid override for tenant %s: %w", name, err)
		}
		t := tenantOf(name)
		if other, ok := names[t]; ok {
			return fmt.Errorf("tenants %s and %s are one VictoriaLogs tenant (%d:%d): give one override", other, name, t.AccountID, t.ProjectID)
		}
		names[t], rc.Tenants[t] = name, l
	}
	if len(ignored) > 0 {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range ignored {
				if !yield(k) {
					return
				}
			}
		})
		rc.Warnings = append(rc.Warnings, "Loki's limits not applied per tenant by vloki: "+strings.Join(keys, ", "))
	}
	return nil
}

// tenantLimits applies one tenant block to defaults; the Loki keys vloki
// does not apply are added to ignored.
func tenantLimits(block *yaml.Node, defaults Limits, ignored map[string]bool) (Limits, error) {
	pairs, err := mapping(block)
	if err != nil {
		return Limits{}, err
	}
	applied := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, kv := range pairs {
		switch key := kv[0].Value; {
		case limitKeys[key]:
			applied.Content = append(applied.Content, kv[0], kv[1])
		case lokiOnlyKeys[key]:
			ignored[key] = true
		default:
			return Limits{}, fmt.Errorf("line %d: field %s not found in Loki's limits", kv[0].Line, key)
		}
	}
	l := defaults
	if err := applied.Decode(&l); err != nil {
		return Limits{}, err
	}
	return l, l.Validate()
}

// limitKeys are the YAML keys of Limits.
var limitKeys = func() map[string]bool {
	t := reflect.TypeFor[Limits]()
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		out[name] = true
	}
	return out
}()

// mapping is n's key-value pairs, refused when n is not a mapping or
// gives a key twice.
func mapping(n *yaml.Node) ([][2]*yaml.Node, error) {
	n = resolved(n)
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping of keys to values", n.Line)
	}
	seen := map[string]bool{}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if seen[k.Value] {
			return nil, fmt.Errorf("line %d: key %q already set", k.Line, k.Value)
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, n.Content[i+1]})
	}
	return out, nil
}

func isNull(n *yaml.Node) bool {
	n = resolved(n)
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// resolved is the node an alias stands for.
func resolved(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
