package config

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// yamlOnly describes the settings that have no flag (blocks too rich for
// one); every other YAML key is a flag's name with '_' for '-'.
var yamlOnly = map[string]string{
	"ruler.external_labels":     "Loki's ruler.external_labels: labels added to alerts sent to Alertmanager where absent, and $externalLabels in rule templates (not added to remote-written samples)",
	"ruler.remote_write.client": "Loki's deprecated `remote_write.client`: one Prometheus remote-write configuration, sent as the client `default`; refused beside `clients`",
	"ruler.remote_write.clients": "Loki's `remote_write.clients`: receivers by id, each a Prometheus remote-write configuration " +
		"(`url`, `headers`, `remote_timeout`, `basic_auth`, `authorization`, `tls_config`, `proxy_url`, `write_relabel_configs`, " +
		"`queue_config`: `capacity`, `max_shards`, `min_shards`, `max_samples_per_send`, `batch_send_deadline`, `min_backoff`, `max_backoff`, …); " +
		"named `<tenant>-rw-<id>`, no metadata, no exemplars, as in Loki",
	"limits.otlp_config": "Loki's `otlp_config` for `/otlp/v1/logs`: `resource_attributes` " +
		"(`ignore_defaults`, `attributes_config`), `scope_attributes`, `log_attributes` " +
		"(actions `index_label`, `structured_metadata`, `drop` by `attributes` or anchored `regex`), " +
		"`severity_text_as_label`",
}

// flagNamed are the YAML keys whose flag Loki names otherwise (its
// -runtime-config.reload-period sets runtime_config.period), by key, the
// flag's '-' written '_'.
var flagNamed = map[string]string{"runtime_config.period": "runtime_config.reload_period"}

// Setting is one documented setting.
type Setting struct {
	Flag, YAML, Default, Usage string
}

// Settings lists every setting: each YAML key of Config, with the flag
// that sets it, then the flags no YAML key holds (-config.file). It fails
// when a flag and the YAML keys disagree, so neither goes undocumented.
func Settings() ([]Setting, error) {
	cfg := Default()
	fs := flag.NewFlagSet("vloki", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("config.file", "", "YAML configuration file; flags override it")
	bindFlags(fs, &cfg)
	flags := map[string]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) { flags[strings.ReplaceAll(f.Name, "-", "_")] = f })

	var out []Setting
	for _, key := range yamlKeys(reflect.TypeOf(cfg), "") {
		f, ok := flags[cmp.Or(flagNamed[key], key)]
		switch {
		case ok:
			out = append(out, Setting{Flag: "-" + f.Name, YAML: key, Default: f.DefValue, Usage: f.Usage})
			delete(flags, cmp.Or(flagNamed[key], key))
		case yamlOnly[key] != "":
			out = append(out, Setting{YAML: key, Usage: yamlOnly[key]})
		default:
			return nil, fmt.Errorf("YAML key %s has no flag and no description", key)
		}
	}
	if f, ok := flags["config.file"]; ok {
		out = append(out, Setting{Flag: "-" + f.Name, Usage: f.Usage})
		delete(flags, "config.file")
	}
	for key := range flags {
		return nil, fmt.Errorf("flag -%s sets no YAML key", flags[key].Name)
	}
	return out, nil
}

// yamlKeys lists the dotted YAML keys of t's leaves, in field order; a
// struct named in yamlOnly is one leaf.
func yamlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			keys = append(keys, yamlKeys(f.Type, prefix)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		if f.Type.Kind() == reflect.Struct && f.Type.String() != "time.Duration" && yamlOnly[key] == "" {
			keys = append(keys, yamlKeys(f.Type, key+".")...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// Reference is docs/configuration.md: every setting as a Markdown table.
func Reference() (string, error) {
	settings, err := Settings()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Configuration reference\n\n")
	b.WriteString("Generated from vloki's flag definitions (`make docs`; `TestReferenceIsCurrent` fails when\n")
	b.WriteString("this file is stale). Flags override the YAML file given with `-config.file`; a YAML key is\n")
	b.WriteString("its flag's name with `_` for `-`, nested by its dots (but Loki's `-runtime-config.reload-period`\n")
	b.WriteString("sets `runtime_config.period`).\n\n")
	b.WriteString("| flag | YAML key | default | meaning |\n|---|---|---|---|\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", code(s.Flag), code(s.YAML), code(s.Default), strings.ReplaceAll(s.Usage, "|", `\|`))
	}
	return b.String(), nil
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}
