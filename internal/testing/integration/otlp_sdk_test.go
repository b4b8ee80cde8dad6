package integration

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestOTelSDKExporter exports a log record with OpenTelemetry's own Go SDK
// (otlploghttp, protobuf over HTTP) and reads it back as Loki would store
// it: the resource's service.name as a stream label, the attribute and the
// severity as structured metadata, the level detected from the severity.
func TestOTelSDKExporter(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			ctx := context.Background()
			u, err := url.Parse(tg.url)
			if err != nil {
				t.Fatal(err)
			}
			exp, err := otlploghttp.New(ctx, otlploghttp.WithEndpoint(u.Host), otlploghttp.WithURLPath("/otlp/v1/logs"), otlploghttp.WithInsecure(),
				otlploghttp.WithHeaders(map[string]string{"X-Scope-OrgID": "sdk"}))
			if err != nil {
				t.Fatal(err)
			}
			res := resource.NewSchemaless(semconv.ServiceName("sdk-app"), semconv.K8SNamespaceName("prod"))
			provider := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)))
			var rec otellog.Record
			at := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
			rec.SetTimestamp(at)
			rec.SetBody(otellog.StringValue("hello from the sdk"))
			rec.SetSeverity(otellog.SeverityWarn)
			rec.SetSeverityText("WARN")
			rec.AddAttributes(otellog.String("order.id", "o-17"))
			provider.Logger("checkout-lib").Emit(ctx, rec)
			if err := provider.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			vltest.Flush(t, tg.vl)
			p := rangeParams(`{service_name="sdk-app"}`, at.Add(-time.Second), at.Add(time.Second), 10, "backward")
			r := tg.get(t, "/loki/api/v1/query_range", "sdk", p, categorize)
			got := string(r.body)
			for _, want := range []string{`"k8s_namespace_name":"prod","service_name":"sdk-app"`, `"hello from the sdk"`, `"order_id":"o-17"`,
				`"severity_number":"13"`, `"severity_text":"WARN"`, `"detected_level":"warn"`, `"scope_name":"checkout-lib"`} {
				if !strings.Contains(got, want) {
					t.Errorf("answer lacks %s: %s", want, got)
				}
			}
		})
	}
}
