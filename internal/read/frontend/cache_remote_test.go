package frontend

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/testing/cachetest"
)

func remotes(t *testing.T) map[string]*Remote {
	cfg := RemoteConfig{TTL: time.Hour, MaxItemBytes: 1 << 20, Timeout: time.Second}
	return map[string]*Remote{
		"memcached": NewMemcached([]string{cachetest.Memcached(t)}, cfg),
		"redis":     NewRedis(cachetest.Redis(t), cfg),
	}
}

func TestRemoteCaches(t *testing.T) {
	ctx := context.Background()
	for name, c := range remotes(t) {
		t.Run(name, func(t *testing.T) {
			a := &answer{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(`{"status":"success"}`), complete: true}
			key := "1:0:0\x00query_range\x00a long key with every parameter"
			if _, ok := c.Get(ctx, key); ok {
				t.Fatal("hit before set")
			}
			if !c.Set(ctx, key, a) {
				t.Fatal("not stored")
			}
			got, ok := c.Get(ctx, key)
			if !ok || got.status != 200 || string(got.body) != string(a.body) || got.header.Get("Content-Type") != "application/json" {
				t.Fatalf("got %+v %v", got, ok)
			}
			if c.Set(ctx, "big", &answer{status: 200, body: make([]byte, 2<<20)}) {
				t.Fatal("stored an answer over the item limit")
			}
			g1, ok1 := c.Generation(ctx, "7:0")
			g2, ok2 := c.Generation(ctx, "7:0")
			c.Invalidate(ctx, "7:0")
			g3, ok3 := c.Generation(ctx, "7:0")
			if !ok1 || !ok2 || !ok3 || g1 != g2 || g3 == g2 {
				t.Fatalf("generations %d %d %d", g1, g2, g3)
			}
		})
	}
}

func TestRemoteDownIsAMiss(t *testing.T) {
	c := NewRedis("127.0.0.1:1", RemoteConfig{TTL: time.Hour, MaxItemBytes: 1 << 20, Timeout: 100 * time.Millisecond})
	if _, ok := c.Generation(context.Background(), "1:0"); ok {
		t.Fatal("a generation from an unreachable cache")
	}
	if _, ok := c.Get(context.Background(), "k"); ok {
		t.Fatal("a hit from an unreachable cache")
	}
}

func TestAnswerEncoding(t *testing.T) {
	a := &answer{status: 400, header: http.Header{"A": {"1", "2"}, "B": {""}}, body: []byte("x\x00y"), complete: true}
	got, err := unmarshalAnswer(a.marshal())
	if err != nil || got.status != 400 || len(got.header["A"]) != 2 || string(got.body) != "x\x00y" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := unmarshalAnswer(a.marshal()[:10]); err == nil {
		t.Fatal("a truncated answer decoded")
	}
}
