package main

import (
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/config"
)

// TestDockerfile: the image builds with exactly `make build`, runs as a
// non-root user, checks /ready with `vloki ready`, and its entrypoint's
// flags are vloki's.
func TestDockerfile(t *testing.T) {
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	var user, health string
	var entrypoint []string
	for _, line := range strings.Split(string(raw), "\n") {
		instr, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch instr {
		case "FROM":
			user = "" // a new stage
		case "RUN":
			runs = append(runs, rest)
		case "USER":
			user = rest
		case "HEALTHCHECK":
			health = rest
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &entrypoint); err != nil {
				t.Fatalf("ENTRYPOINT %s: %v", rest, err)
			}
		}
	}
	builds := 0
	for _, r := range runs {
		if strings.Contains(r, "go build") {
			t.Errorf("RUN %s: the image must build with make build", r)
		}
		if r == "make build" {
			builds++
		}
	}
	if builds != 1 {
		t.Errorf("want one RUN make build, have %q", runs)
	}
	if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("final stage runs as %q, want a non-root user", user)
	}
	if !strings.Contains(health, `["/vloki", "ready"]`) {
		t.Errorf("HEALTHCHECK %q does not run vloki ready", health)
	}
	if len(entrypoint) == 0 || entrypoint[0] != "/vloki" {
		t.Fatalf("ENTRYPOINT %q", entrypoint)
	}
	parseVlokiArgs(t, "ENTRYPOINT", entrypoint[1:])
}

// TestComposeFiles: every vloki service of the compose files starts with
// flags vloki accepts, every file they mount exists, and every URL the
// provisioned Grafana data sources, Prometheus or the ruler (Alertmanager,
// remote write) use names a service.
func TestComposeFiles(t *testing.T) {
	for _, c := range []struct{ file, provisioning string }{
		{"docker-compose.yml", "grafana/provisioning"},
		{"docker-compose.cluster.yml", "grafana/provisioning-cluster"},
	} {
		t.Run(c.file, func(t *testing.T) {
			var compose struct {
				Services map[string]struct {
					Image      string
					Entrypoint []string
					Command    []string
					Volumes    []string
				}
			}
			readYAML(t, filepath.Join("../../deploy", c.file), &compose)
			vlokis := 0
			for name, s := range compose.Services {
				if s.Image == "vloki:dev" {
					vlokis++
					args := s.Command
					if len(s.Entrypoint) == 0 {
						args = append([]string{"-storage.path=/data"}, args...) // the Dockerfile's
					}
					parseVlokiArgs(t, name, args)
					for _, u := range rulerURLs(t, args) {
						if _, ok := compose.Services[u.Hostname()]; !ok {
							t.Errorf("%s: ruler URL %s names no service", name, u)
						}
					}
				}
				for _, v := range s.Volumes {
					if src, _, _ := strings.Cut(v, ":"); strings.HasPrefix(src, "./") {
						if _, err := os.Stat(filepath.Join("../../deploy", src)); err != nil {
							t.Errorf("%s mounts %s: %v", name, src, err)
						}
					}
				}
			}
			if vlokis == 0 {
				t.Fatal("no vloki service")
			}
			for _, u := range provisionedURLs(t, filepath.Join("../../deploy", c.provisioning, "datasources")) {
				host := u.Hostname()
				if _, ok := compose.Services[host]; !ok {
					t.Errorf("data source URL %s names no service", u)
				}
			}
		})
	}
}

func parseVlokiArgs(t *testing.T, where string, args []string) {
	t.Helper()
	if _, err := config.Load(args, io.Discard); err != nil {
		t.Errorf("%s: vloki %s: %v", where, strings.Join(args, " "), err)
	}
}

// rulerURLs are the Alertmanagers and remote write receivers the flags
// name.
func rulerURLs(t *testing.T, args []string) []*url.URL {
	t.Helper()
	cfg, err := config.Load(args, io.Discard)
	if err != nil {
		return nil
	}
	var out []*url.URL
	for _, raw := range strings.Split(cfg.Ruler.AlertmanagerURL, ",") {
		if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.Host != "" {
			out = append(out, u)
		}
	}
	clients, err := cfg.Ruler.RemoteWrite.ClientConfigs()
	if err != nil {
		t.Error(err)
	}
	for _, c := range clients {
		out = append(out, c.URL.URL)
	}
	return out
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func provisionedURLs(t *testing.T, dir string) []*url.URL {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*url.URL
	for _, e := range entries {
		var ds struct{ Datasources []struct{ URL string } }
		readYAML(t, filepath.Join(dir, e.Name()), &ds)
		for _, d := range ds.Datasources {
			u, err := url.Parse(d.URL)
			if err != nil || u.Host == "" {
				t.Errorf("%s: data source URL %q", e.Name(), d.URL)
				continue
			}
			out = append(out, u)
		}
	}
	if !slices.ContainsFunc(out, func(u *url.URL) bool { return u.Port() == "3100" }) {
		t.Errorf("%s: no data source points at vloki", dir)
	}
	return out
}
