// Package push decodes, validates and enriches Loki push requests with
// Loki v3.7.8's rules and error texts.
//
// One deliberate difference: Loki accepts the valid streams of a request and
// rejects the invalid ones with a 400; vloki writes nothing when it answers
// 400, so a client retrying the whole request never duplicates entries.
package push

import (
	"fmt"
	"net/http"

	"github.com/vloki/vloki/internal/lokidata"
)

// Stream is one decoded stream: sorted labels and its entries.
type Stream struct {
	Labels  lokidata.Labels
	Entries []lokidata.Entry
}

// Request is a decoded push.
type Request struct {
	Streams []Stream
}

// Error is a push failure with the status Loki answers.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func badRequest(format string, args ...any) error {
	return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, args...)}
}
