package otheragents

import (
	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/write/push"
)

// Config describes how to read data other agents wrote into
// VictoriaLogs. A nil *Config reads rows as vloki writes them.
type Config struct {
	// Names maps Loki names to the stored fields they stand for.
	Names *Map
	// MissingMsg is the _msg VictoriaLogs stores for a row without one
	// (its -defaultMsgValue); such rows get a line rebuilt from their
	// fields.
	MissingMsg string
	// DiscoverServiceName lists the stream labels service_name is taken
	// from when a stream has none, as Loki's distributor does (the
	// tenant's limit).
	DiscoverServiceName []string
	// Levels, when set, derives detected_level for entries without one,
	// with the tenant's level fields.
	Levels *limits.Limits
}

// DetectedLevel is the detected_level Loki would have added at ingestion
// to an entry stored without one, from stored names; "" for none.
func (c *Config) DetectedLevel(stream, metadata lokidata.Labels, line string) string {
	if c.Levels == nil {
		return ""
	}
	if _, ok := metadata.Get(push.DetectedLevelLabel); ok {
		return ""
	}
	return push.DetectLevel(stream, metadata, line, *c.Levels)
}

// ServiceNameLabel is the stream label Loki derives at ingestion.
const ServiceNameLabel = "service_name"

// UnknownService is service_name when no discovery label is set.
const UnknownService = "unknown_service"

// ServiceChain lists, in order, the stored stream fields whose first
// non-empty value is a stream's service_name; UnknownService when none
// is set. Nil when service_name is not derived.
func (c *Config) ServiceChain() []string {
	if c == nil || len(c.DiscoverServiceName) == 0 {
		return nil
	}
	chain := append([]string(nil), c.Names.VL(ServiceNameLabel)...)
	for _, d := range c.DiscoverServiceName {
		chain = append(chain, c.Names.VL(d)...)
	}
	return chain
}

// Derived reports a Loki label name whose value is not stored under that
// name: renamed fields, and service_name or detected_level when vloki
// derives them. Always false for a nil Config.
func (c *Config) Derived(name string) bool {
	if c == nil {
		return false
	}
	switch {
	case name == ServiceNameLabel && len(c.DiscoverServiceName) > 0:
		return true
	case name == push.DetectedLevelLabel && c.Levels != nil:
		return true
	}
	return c.Names.Renamed(name)
}
