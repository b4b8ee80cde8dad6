package main

import (
	"fmt"
	"net/http"
	"time"
)

// defaultReadyURL is where `vloki ready` asks when given no URL: the
// default listener of a vloki in the same container.
const defaultReadyURL = "http://127.0.0.1:3100/ready"

// checkReady is `vloki ready [URL]`, a health check for images that have
// no shell or curl: it succeeds when URL answers 200 within 3 seconds.
func checkReady(args []string) error {
	url := defaultReadyURL
	if len(args) > 0 {
		url = args[0]
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: %s answered %s", url, resp.Status)
	}
	return nil
}
