package api

import (
	"net/http"
	"runtime"

	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/lang/logql"
)

// Version is the Loki version vloki reports; Grafana needs >= 3 to send
// categorize-labels.
const Version = "3.7.8"

func (s *Server) formatQuery(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	expr, err := logql.ParseForFormat(r.Form.Get("query"))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(lokijson.AppendFormatQueryError(nil, err.Error()))
		return
	}
	_, _ = w.Write(lokijson.AppendFormatQuery(nil, logql.Pretty(expr)))
}

func (s *Server) buildInfo(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(lokijson.AppendBuildInfo(nil, lokijson.BuildInfo{
		Version: Version, Revision: "vloki", Branch: "main", GoVersion: runtime.Version(),
	}))
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.closing:
		writeText(w, http.StatusServiceUnavailable, "shutting down\n")
		return
	default:
	}
	if s.d.Ready != nil {
		if err := s.d.Ready(); err != nil {
			writeText(w, http.StatusServiceUnavailable, "backend not ready: "+err.Error()+"\n")
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ready\n"))
}
