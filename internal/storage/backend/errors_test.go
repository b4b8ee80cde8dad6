package backend

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

// TestClassify: transport failures become typed errors without addresses;
// the end of a body and the caller's own cancellation stay what they are.
func TestClassify(t *testing.T) {
	c := &Client{http: &http.Client{}}
	ctx := context.Background()
	for _, cause := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET} {
		err := c.classify(ctx, &url.Error{Op: "Post", URL: "http://10.1.2.3:9428/insert", Err: cause})
		var ue *UnavailableError
		if !errors.As(err, &ue) || strings.Contains(err.Error(), "10.1.2.3") {
			t.Errorf("%v: got %v", cause, err)
		}
	}
	if err := c.classify(ctx, io.EOF); err != io.EOF {
		t.Errorf("a body's end became %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.classify(cancelled, syscall.ECONNRESET); !errors.Is(err, context.Canceled) {
		t.Errorf("the caller's cancellation became %v", err)
	}
}
