package frontend

import (
	"net/http/httptest"
	"testing"
)

// TestWriteWholeKeepsTheBody: the recorder keeps a handed-over body as it
// is (one buffer per answer, not two); what is written after it follows,
// and a writer that is not the frontend's gets the bytes written.
func TestWriteWholeKeepsTheBody(t *testing.T) {
	rec := newRecorder()
	b := []byte(`{"status":"success"}`)
	WriteWhole(rec, b)
	if a := rec.answer(); &a.body[0] != &b[0] || a.status != 200 {
		t.Fatalf("answer %d %q: want the handed-over buffer itself", a.status, a.body)
	}
	_, _ = rec.Write([]byte("\n"))
	if got := string(rec.answer().body); got != "{\"status\":\"success\"}\n" {
		t.Fatalf("body %q: want the handed-over body, then the newline", got)
	}

	rec = newRecorder()
	_, _ = rec.Write([]byte("a"))
	WriteWhole(rec, []byte("b"))
	if got := string(rec.answer().body); got != "ab" {
		t.Fatalf("body %q after a write: want both, in order", got)
	}

	w := httptest.NewRecorder()
	WriteWhole(w, b)
	if w.Body.String() != string(b) || w.Code != 200 {
		t.Fatalf("plain writer got %d %q", w.Code, w.Body.String())
	}
}
