package plan

import (
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

func TestStreamFilterForForeignData(t *testing.T) {
	f := &otheragents.Config{DiscoverServiceName: []string{"app"}, Names: otheragents.New([]string{"service.name", "k8s.ns", "app", "env"})}
	cases := []struct{ selector, want string }{
		{`{env="prod"}`, `{env="prod"}`},
		{`{k8s_ns="shop"}`, `(({k8s.ns!="",k8s.ns="shop"}))`},
		{`{env="prod", service_name="web"}`,
			`({env="prod"} AND ({service.name!="",service.name="web"} OR {service.name="",app!="",app="web"}))`},
		// The fallback name matches too: streams with none of the fields.
		{`{service_name=~"unknown.*"}`,
			`(({service.name!="",service.name=~"(?s:unknown.*)"} OR {service.name="",app!="",app=~"(?s:unknown.*)"} OR {service.name="",app=""}))`},
	}
	for _, c := range cases {
		sel, err := logql.ParseLogSelector(c.selector, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := (logsql.Query{Filter: StreamFilter(sel.Matchers(), f)}).String(); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.selector, got, c.want)
		}
		if got := SelectorQuery(sel.Matchers(), nil); got != (logsql.Query{Filter: StreamFilter(sel.Matchers(), nil)}).String() {
			t.Errorf("native %s: %s", c.selector, got)
		}
	}
}
