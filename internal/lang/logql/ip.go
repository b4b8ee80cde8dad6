package logql

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"go4.org/netipx"
)

var errIPInvalidOperation = errors.New("ip: invalid operation")

// IPMatcher matches addresses against an ip("...") pattern: one address,
// a CIDR prefix or a from-to range.
type IPMatcher struct {
	Pattern string
	addr    netip.Addr
	prefix  netip.Prefix
	rng     netipx.IPRange
	kind    int // 0 address, 1 prefix, 2 range
}

// NewIPMatcher parses a pattern as Loki does: address, then prefix, then range.
func NewIPMatcher(pattern string) (*IPMatcher, error) {
	m := &IPMatcher{Pattern: pattern}
	var err error
	if m.addr, err = netip.ParseAddr(pattern); err == nil {
		return m, nil
	}
	if m.prefix, err = netip.ParsePrefix(pattern); err == nil {
		m.kind = 1
		return m, nil
	}
	if m.rng, err = netipx.ParseIPRange(pattern); err == nil {
		m.kind = 2
		return m, nil
	}
	return nil, fmt.Errorf("ip: invalid pattern: %q", pattern)
}

func (m *IPMatcher) contains(ip netip.Addr) bool {
	switch m.kind {
	case 1:
		return m.prefix.Contains(ip)
	case 2:
		return m.rng.Contains(ip)
	}
	return m.addr.Compare(ip) == 0
}

func (m *IPMatcher) String() string { return "ip(" + strconv.Quote(m.Pattern) + ")" }

const (
	ipv4Chars = "0123456789."
	ipv6Chars = "0123456789abcdefABCDEF:."
)

// MatchText reports whether text holds an address the pattern matches.
// Candidates start where an address looks like it starts (a digit with a
// dot within three bytes, or a colon among the first hex digits) and run
// over the address characters, as Loki scans them.
func (m *IPMatcher) MatchText(text string) bool {
	n := len(text)
	for i := 0; i < n; i++ {
		charset := ""
		switch {
		case i+3 < n && looksIPv4(text[i:i+4]):
			charset = ipv4Chars
		case i+4 < n && looksIPv6(text[i:i+5]):
			charset = ipv6Chars
		default:
			continue
		}
		l := spanOf(text[i:], charset)
		if ip, err := netip.ParseAddr(text[i : i+l]); err == nil && m.contains(ip) {
			return true
		}
		i += l
	}
	return false
}

func looksIPv4(p string) bool {
	return isDigit(p[0]) && (p[1] == '.' || p[2] == '.' || p[3] == '.')
}

func looksIPv6(p string) bool {
	if p[0] == ':' && p[1] == ':' && isHex(p[2]) {
		return true
	}
	for k := 1; k <= 4; k++ {
		if p[k] == ':' && allHex(p[:k]) {
			return true
		}
	}
	return false
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func spanOf(s, charset string) int {
	for i := 0; i < len(s); i++ {
		found := false
		for j := 0; j < len(charset); j++ {
			if s[i] == charset[j] {
				found = true
				break
			}
		}
		if !found {
			return i
		}
	}
	return len(s)
}

// IPLabelFilter is `name = ip("...")` or `name != ip("...")`.
type IPLabelFilter struct {
	Name   string
	Negate bool
	IP     *IPMatcher
	// patternErr is why the pattern is no address, range or prefix: Loki
	// reports it for a stage that is this filter alone, and otherwise
	// keeps no entry.
	patternErr string
}

// Match lets an entry with an error through, drops one without the label,
// and otherwise looks for a matching address in the value.
func (f *IPLabelFilter) Match(l Entry) bool {
	if e, _ := l.Label("__error__"); e != "" {
		return true
	}
	v, ok := l.Label(f.Name)
	if !ok || f.patternErr != "" {
		return false
	}
	return f.IP.MatchText(v) != f.Negate
}

func (f *IPLabelFilter) String() string {
	op := "="
	if f.Negate {
		op = "!="
	}
	return f.Name + op + f.IP.String()
}
