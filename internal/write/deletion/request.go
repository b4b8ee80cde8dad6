// Package deletion is Loki's log deletion API on VictoriaLogs: delete
// requests per tenant, kept on disk; lines they match hidden from log and
// metric queries at once (Loki's query-time filtering); once the cancel
// period has passed, the rows deleted from storage by a VictoriaLogs
// delete task (filter-and-delete mode).
package deletion

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"strconv"
)

// Mode is Loki's per-tenant deletion_mode.
type Mode string

// Loki's deletion modes.
const (
	Disabled        Mode = "disabled"
	FilterOnly      Mode = "filter-only"
	FilterAndDelete Mode = "filter-and-delete"
)

// Valid reports a mode Loki knows.
func (m Mode) Valid() bool { return m == Disabled || m == FilterOnly || m == FilterAndDelete }

// Statuses of a request as Loki lists them.
const (
	StatusReceived  = "received"
	StatusProcessed = "processed"
)

// Request is one delete request. Times are Unix milliseconds, both
// inclusive, as Loki stores them.
type Request struct {
	ID        string `json:"id"`
	Query     string `json:"query"`
	StartMs   int64  `json:"start_ms"`
	EndMs     int64  `json:"end_ms"`
	CreatedMs int64  `json:"created_ms"`
	Status    string `json:"status"`
	// Task is the VictoriaLogs delete task deleting the rows, once one
	// was started.
	Task string `json:"task,omitempty"`
}

// requestID is Loki's id of a request: FNV-1 (32 bits) of the tenant,
// the creation time in Unix ns (little-endian) and the query, in hex.
func requestID(tenant string, createdNs int64, query string) string {
	h := fnv.New32()
	h.Write([]byte(tenant))
	var ns [8]byte
	binary.LittleEndian.PutUint64(ns[:], uint64(createdNs))
	h.Write(ns[:])
	h.Write([]byte(query))
	return hex.EncodeToString(h.Sum(nil))
}

// appendListed appends the request as Loki's GET /loki/api/v1/delete lists
// it: times in seconds with millisecond decimals, fields in Loki's order.
func (r *Request) appendListed(b []byte) []byte {
	b = append(b, `{"request_id":`...)
	b = strconv.AppendQuote(b, r.ID)
	b = append(b, `,"start_time":`...)
	b = appendSeconds(b, r.StartMs)
	b = append(b, `,"end_time":`...)
	b = appendSeconds(b, r.EndMs)
	b = append(b, `,"query":`...)
	b = appendJSONString(b, r.Query)
	b = append(b, `,"status":`...)
	b = strconv.AppendQuote(b, r.Status)
	b = append(b, `,"created_at":`...)
	b = appendSeconds(b, r.CreatedMs)
	return append(b, `,"user_id":""}`...)
}

// appendSeconds writes milliseconds as seconds, as Prometheus' model.Time
// marshals: the shortest decimal.
func appendSeconds(b []byte, ms int64) []byte {
	return strconv.AppendFloat(b, float64(ms)/1000, 'f', -1, 64)
}

// appendJSONString writes s as encoding/json does (HTML characters
// escaped), as Loki's list is encoded.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
