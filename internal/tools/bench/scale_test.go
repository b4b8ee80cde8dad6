package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
	"github.com/vloki/vloki/internal/tools/bench/scaleingest"
)

// TestScaleReferenceNotCountedIsReported: a target that takes every push
// but never counts the lines back fails the run, unless it is the
// reference (Loki), whose failure is reported in its row.
func TestScaleReferenceNotCountedIsReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loki/api/v1/push" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, "context canceled", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	run := func(reference string) (*ScaleReport, error) {
		return Scale(context.Background(), ScaleConfig{
			Data:    scaledata.Config{Now: time.Unix(1_800_000_000, 0), Days: 1, Lines: 300, Seed: 1},
			Targets: []Target{{Name: "loki", URL: srv.URL}}, Reference: reference,
			Ingest: scaleingest.Options{Pushers: 1, BatchLines: 100}, IngestOnly: true, CountWait: 1500 * time.Millisecond,
		})
	}
	if _, err := run("other"); err == nil || !strings.Contains(err.Error(), "not counted back") {
		t.Fatalf("a target that lost the lines passed: %v", err)
	}
	rep, err := run("loki")
	if err != nil {
		t.Fatal(err)
	}
	in := rep.Ingestion[0]
	if in.NotCounted == "" || in.CountedBack != -1 || in.Lines != 300 {
		t.Fatalf("row %+v", in)
	}
	if md := rep.Markdown(); !strings.Contains(md, "| no answer |") || !strings.Contains(md, "loki took every push but did not count them back") {
		t.Fatalf("report:\n%s", md)
	}
}
