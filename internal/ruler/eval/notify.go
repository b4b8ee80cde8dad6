package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/discovery/targetgroup"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/notifier"
	"github.com/prometheus/prometheus/rules"
)

// Alerting configures notifications as Loki's ruler sends them.
type Alerting struct {
	// AlertmanagerURL is Loki's ruler.alertmanager_url: comma-separated
	// URLs, each its own Alertmanager set (scheme, host and path prefix
	// from the URL, basic auth from its user info). Empty: no
	// notification is sent.
	AlertmanagerURL string
	// QueueCapacity and Timeout are Loki's notification_queue_capacity
	// and notification_timeout.
	QueueCapacity int
	Timeout       time.Duration
	// DatasourceUID is Loki's ruler.datasource_uid, in generatorURL.
	DatasourceUID string
	// ExternalLabels are Loki's ruler.external_labels: the notifier adds
	// them to each alert's labels that lack them.
	ExternalLabels map[string]string
}

// alertmanagers parses alertmanager_url into Prometheus' configurations
// and their static targets.
func (a Alerting) alertmanagers() (config.AlertmanagerConfigs, map[string][]*targetgroup.Group, error) {
	var cfgs config.AlertmanagerConfigs
	targets := map[string][]*targetgroup.Group{}
	for _, raw := range strings.Split(a.AlertmanagerURL, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("ruler.alertmanager_url %q: %w", raw, err)
		}
		if u.Host == "" {
			return nil, nil, fmt.Errorf("ruler.alertmanager_url %q: no host", raw)
		}
		cfg := config.DefaultAlertmanagerConfig
		cfg.Scheme, cfg.PathPrefix = u.Scheme, strings.TrimSuffix(u.Path, "/")
		if a.Timeout > 0 {
			cfg.Timeout = model.Duration(a.Timeout)
		}
		if u.User != nil {
			pw, _ := u.User.Password()
			cfg.HTTPClientConfig.BasicAuth = &commoncfg.BasicAuth{Username: u.User.Username(), Password: commoncfg.Secret(pw)}
		}
		key := fmt.Sprintf("config-%d", len(cfgs)) // the keys ApplyConfig gives the sets
		targets[key] = []*targetgroup.Group{{Source: raw, Targets: []model.LabelSet{{model.AddressLabel: model.LabelValue(u.Host)}}}}
		c := cfg
		cfgs = append(cfgs, &c)
	}
	return cfgs, targets, nil
}

// newNotifier starts the tenant's notifier (nil without Alertmanager):
// Prometheus' notifier, v2 API, with X-Scope-OrgID set to the tenant.
func newNotifier(a Alerting, tenant string, reg prometheus.Registerer, log *slog.Logger) (*notifier.Manager, error) {
	cfgs, targets, err := a.alertmanagers()
	if err != nil || len(cfgs) == 0 {
		return nil, err
	}
	n := notifier.NewManager(&notifier.Options{
		QueueCapacity: a.QueueCapacity,
		Registerer:    reg,
		Do: func(ctx context.Context, client *http.Client, req *http.Request) (*http.Response, error) {
			req.Header.Set("X-Scope-OrgID", tenant)
			if client == nil {
				client = http.DefaultClient
			}
			return client.Do(req.WithContext(ctx))
		},
	}, model.UTF8Validation, log)
	global := config.DefaultGlobalConfig
	global.ExternalLabels = labels.FromMap(a.ExternalLabels)
	if err := n.ApplyConfig(&config.Config{GlobalConfig: global, AlertingConfig: config.AlertingConfig{AlertmanagerConfigs: cfgs}}); err != nil {
		return nil, err
	}
	tsets := make(chan map[string][]*targetgroup.Group, 1)
	tsets <- targets
	go n.Run(tsets)
	// Alerts sent before the targets are loaded would be dropped.
	for deadline := time.Now().Add(5 * time.Second); len(n.Alertmanagers()) == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return n, nil
}

// notifyFunc sends the alerts the rules manager passes (firing, or just
// resolved, at most every resend_delay) as Loki's ruler does: startsAt
// the firing time, endsAt the resolution or the validity's end, and a
// generatorURL opening the query in Grafana's Explore.
func notifyFunc(n *notifier.Manager, externalURL, datasourceUID string) rules.NotifyFunc {
	return func(_ context.Context, expr string, alerts ...*rules.Alert) {
		if n == nil || len(alerts) == 0 {
			return
		}
		gen := GeneratorURL(externalURL, expr, datasourceUID)
		out := make([]*notifier.Alert, 0, len(alerts))
		for _, a := range alerts {
			na := &notifier.Alert{StartsAt: a.FiredAt, Labels: a.Labels, Annotations: a.Annotations, GeneratorURL: gen}
			if !a.ResolvedAt.IsZero() {
				na.EndsAt = a.ResolvedAt
			} else {
				na.EndsAt = a.ValidUntil
			}
			out = append(out, na)
		}
		n.Send(out...)
	}
}

// GeneratorURL is Loki's link to an alert's query:
// <external_url>/explore?left=<escaped JSON of the Explore state>, the
// datasource left out when its uid is empty.
func GeneratorURL(externalURL, expr, datasourceUID string) string {
	type datasource struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	type query struct {
		Expr       string      `json:"expr"`
		QueryType  string      `json:"queryType"`
		Datasource *datasource `json:"datasource,omitempty"`
	}
	q := query{Expr: expr, QueryType: "range"}
	if datasourceUID != "" {
		q.Datasource = &datasource{Type: "loki", UID: datasourceUID}
	}
	b, _ := json.Marshal(struct {
		Queries []query `json:"queries"`
	}{[]query{q}})
	return externalURL + "/explore?left=" + url.QueryEscape(string(b))
}
