package logql

import (
	"sync"
	"sync/atomic"

	"github.com/grafana/regexp"
)

// Dashboards send the same queries again and again; compiled regexes are
// kept (a compiled Regexp is safe for concurrent use). The cache is
// dropped whole when it grows past maxCachedRegexps.
const maxCachedRegexps = 4096

var (
	regexpCache sync.Map // expression → *regexp.Regexp
	regexpCount atomic.Int32
)

// compileRegexp compiles expr, or returns the earlier compilation.
func compileRegexp(expr string) (*regexp.Regexp, error) {
	if re, ok := regexpCache.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	if regexpCount.Add(1) > maxCachedRegexps {
		regexpCache.Clear()
		regexpCount.Store(0)
	}
	regexpCache.Store(expr, re)
	return re, nil
}
