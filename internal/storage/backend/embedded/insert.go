package embedded

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/VictoriaMetrics/VictoriaLogs/app/vlinsert/insertutil"
	"github.com/VictoriaMetrics/VictoriaLogs/lib/logstorage"
	"github.com/VictoriaMetrics/VictoriaMetrics/lib/httpserver"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// lokiPushPath names the endpoint the rows would have gone through.
const lokiPushPath = "/insert/loki/api/v1/push"

// InsertLoki stores a push's rows as VictoriaLogs' Loki protobuf endpoint
// stores them with message parsing off (app/vlinsert/loki): a stream's
// labels are its stream fields, in order; each entry's structured
// metadata with a name and a value are fields; its line is _msg; a zero
// timestamp is the time of insertion. The rows are in storage when it
// returns, as when the endpoint answers. In the same process there is
// no protobuf to write and read back.
func (e *Engine) InsertLoki(ctx context.Context, t tenant.ID, streams []backend.PushStream) error {
	_, done, err := e.gate.enter(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := insertutil.CanWriteData(); err != nil {
		return insertError(err)
	}
	cp, err := commonParams(t)
	if err != nil {
		return insertError(err)
	}
	lmp := cp.NewLogMessageProcessor("loki_protobuf", false)
	defer lmp.MustClose()
	fs := logstorage.GetFields()
	defer func() {
		fs.ClearUpToCapacity() // the fields point into the push
		logstorage.PutFields(fs)
	}()
	for _, s := range streams {
		fs.Fields = fs.Fields[:0]
		for _, l := range s.Labels {
			fs.Add(l.Name, l.Value)
		}
		streamFields := len(fs.Fields)
		for _, en := range s.Entries {
			fs.Fields = fs.Fields[:streamFields]
			for _, md := range en.StructuredMetadata {
				if md.Name != "" && md.Value != "" {
					fs.Add(md.Name, md.Value)
				}
			}
			fs.Add("_msg", en.Line)
			// The endpoint reads seconds and nanos from the protobuf.
			ts := en.Timestamp.Unix()*1e9 + int64(en.Timestamp.Nanosecond())
			if ts == 0 {
				ts = time.Now().UnixNano()
			}
			lmp.AddRow(ts, fs.Fields, streamFields)
		}
	}
	return nil
}

// commonParams are the endpoint's parameters for vloki's pushes: the
// tenant, no other option.
func commonParams(t tenant.ID) (*insertutil.CommonParams, error) {
	r, err := http.NewRequest(http.MethodPost, lokiPushPath, nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("AccountID", strconv.FormatUint(uint64(t.AccountID), 10))
	r.Header.Set("ProjectID", strconv.FormatUint(uint64(t.ProjectID), 10))
	return insertutil.GetCommonParams(r)
}

// insertError is the error the endpoint would have answered with.
func insertError(err error) error {
	status := http.StatusBadRequest
	var esc *httpserver.ErrorWithStatusCode
	if errors.As(err, &esc) {
		status = esc.StatusCode
	}
	return &backend.Error{Endpoint: lokiPushPath, Status: status, Body: err.Error()}
}
