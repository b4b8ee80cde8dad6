package backend

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// VictoriaLogs' delete tasks (v1.38 and later, with -delete.enable; in a
// cluster vlselect takes them and its storage nodes need
// -internaldelete.enable).
const (
	deleteRun    = "/delete/run_task"
	deleteActive = "/delete/active_tasks"
)

// ErrNoDeletes says the backend cannot delete rows: a release before
// v1.38 (no /delete/ endpoints) or one started without -delete.enable.
var ErrNoDeletes = errors.New("VictoriaLogs cannot delete rows: it needs v1.38 or later started with -delete.enable (in a cluster, vlselect with -delete.enable and its storage nodes with -internaldelete.enable)")

// RunDeleteTask starts deleting the tenant's rows matching the LogsQL
// filter and returns the task's id.
func (c *Client) RunDeleteTask(ctx context.Context, t tenant.ID, filter string) (string, error) {
	var out struct {
		TaskID string `json:"task_id"`
	}
	err := c.getJSON(ctx, t, deleteRun, url.Values{"filter": {filter}}, &out)
	return out.TaskID, noDeletes(err)
}

// ActiveDeleteTasks returns the ids of the delete tasks still running
// (every tenant's: VictoriaLogs lists them all).
func (c *Client) ActiveDeleteTasks(ctx context.Context) (map[string]bool, error) {
	var tasks []struct {
		TaskID string `json:"task_id"`
	}
	if err := noDeletes(c.getJSON(ctx, tenant.ID{}, deleteActive, url.Values{}, &tasks)); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(tasks))
	for _, task := range tasks {
		out[task.TaskID] = true
	}
	return out, nil
}

// CanDelete reports whether the backend takes delete tasks.
func (c *Client) CanDelete(ctx context.Context) error {
	_, err := c.ActiveDeleteTasks(ctx)
	return err
}

// noDeletes turns the answers of a backend without the delete API (400
// "unsupported path" before v1.38, or 404 through a proxy; 400 "…pass
// -delete.enable…" without the flag) into ErrNoDeletes.
func noDeletes(err error) error {
	var be *Error
	if !errors.As(err, &be) {
		return err
	}
	if be.Status == http.StatusNotFound || (be.Status == http.StatusBadRequest &&
		(strings.Contains(be.Body, "-delete.enable") || strings.Contains(be.Body, "unsupported path"))) {
		return ErrNoDeletes
	}
	return err
}
