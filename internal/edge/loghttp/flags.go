package loghttp

import (
	"net/http"
	"strings"
)

// Flags are the X-Loki-Response-Encoding-Flags a request carried, in order.
type Flags []string

// FlagCategorizeLabels asks for the 3-tuple entry encoding.
const FlagCategorizeLabels = "categorize-labels"

// EncodingFlags splits the header on commas without trimming, like Loki.
func EncodingFlags(h http.Header) Flags {
	v := h.Get("X-Loki-Response-Encoding-Flags")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Categorize reports whether categorize-labels was asked for.
func (f Flags) Categorize() bool {
	for _, s := range f {
		if s == FlagCategorizeLabels {
			return true
		}
	}
	return false
}
