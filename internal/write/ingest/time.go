package ingest

import "time"

func timeFromNs(ns int64) time.Time { return time.Unix(0, ns).UTC() }
