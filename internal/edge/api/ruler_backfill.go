package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/ruler/eval"
)

// rulerBackfill is vloki's POST /ruler/backfill?start=&end=[&namespace=]
// [&group=]: the tenant's recording rules evaluated at every slot of the
// range and remote-written as live evaluation would have written them.
// It answers when the run ends, with what was written: 200, or 400 (bad
// range, over the slot limit, no remote write), 404 (no such group), 409
// (the tenant's previous run still going), 500 (the receiver failed; the
// report says how far the run got).
func (s *Server) rulerBackfill(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.rulerTenant(true, func(w http.ResponseWriter, r *http.Request, tenant string) {
		if s.d.Ruler.Backfiller == nil {
			respondRulerError(w, http.StatusNotFound, "not_found", "backfill is not available")
			return
		}
		req, err := backfillRequest(r, tenant)
		if err != nil {
			respondRulerError(w, http.StatusBadRequest, "bad_data", err.Error())
			return
		}
		rep, err := s.d.Ruler.Backfiller.Backfill(r.Context(), req)
		status, errorType := backfillStatus(err)
		resp := rulerResponse{Status: "success", Data: rep}
		if err != nil {
			resp.Status, resp.ErrorType, resp.Error = "error", errorType, err.Error()
		}
		b, _ := json.Marshal(resp)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	})(w, r)
}

// backfillRequest reads the range (Loki's timestamp forms: RFC3339,
// Unix seconds or nanoseconds) and the group filters, from the query or
// a form body.
func backfillRequest(r *http.Request, tenant string) (eval.BackfillRequest, error) {
	if err := r.ParseForm(); err != nil {
		return eval.BackfillRequest{}, err
	}
	req := eval.BackfillRequest{Tenant: tenant, Namespace: r.Form.Get("namespace"), Group: r.Form.Get("group")}
	var err error
	if req.Start, err = loghttp.ParseTimestamp(r.Form.Get("start"), time.Time{}); err != nil {
		return req, fmt.Errorf("invalid start: %w", err)
	}
	if req.End, err = loghttp.ParseTimestamp(r.Form.Get("end"), time.Time{}); err != nil {
		return req, fmt.Errorf("invalid end: %w", err)
	}
	return req, nil
}

func backfillStatus(err error) (int, string) {
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.Is(err, eval.ErrBackfillInvalid):
		return http.StatusBadRequest, "bad_data"
	case errors.Is(err, eval.ErrBackfillNoGroups):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, eval.ErrBackfillRunning):
		return http.StatusConflict, "conflict"
	}
	return http.StatusInternalServerError, "server_error"
}
