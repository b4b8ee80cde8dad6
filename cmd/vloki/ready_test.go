package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheckReady(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	if err := checkReady([]string{srv.URL + "/ready"}); err != nil {
		t.Fatalf("ready server: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := checkReady([]string{srv.URL + "/ready"}); err == nil {
		t.Fatal("a 503 passed the check")
	}
}
