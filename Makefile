# vloki — the Loki HTTP API served from VictoriaLogs.
export CGO_ENABLED ?= 0
GO ?= go

.PHONY: run test build vet fmt bench bench-compare bench-load bench-memory bench-scale soak parity parity-record parity-diff parity-settle canary canary-check canary-record otlp-record patterns-record ruler-api-record docs bench-capacity dedup-record collide-record burst-record ruler-record legacy-record malformed-record kinds-record

## run: start vloki on :3100 with the embedded VictoriaLogs and demo data
run:
	$(GO) run ./cmd/vloki -demo

## test: everything CI runs (unit, integration on real VictoriaLogs, parity, vloki's own canary); builds no AGPL module (VLOKI_NO_LOKI=1 makes scripts/loki-build.sh refuse)
test: vet
	scripts/test-deps.sh
	VLOKI_NO_LOKI=1 $(GO) test -count=1 -timeout 40m ./...
	cd deploy && $(GO) vet ./... && VLOKI_NO_LOKI=1 $(GO) test -count=1 ./...

build:
	$(GO) build -o bin/vloki ./cmd/vloki

vet:
	@out=$$(gofmt -l cmd internal deploy); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fmt:
	gofmt -w cmd internal

## docs: regenerate docs/configuration.md from the flag definitions
docs:
	VLOKI_UPDATE_DOCS=1 $(GO) test -count=1 -run TestReferenceIsCurrent ./internal/config/

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

## bench-compare: long-range metric queries through vloki, VictoriaLogs directly and a fresh Loki v3.7.8
bench-compare:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID; while kill -0 $$LOKI_PID 2>/dev/null; do sleep 0.2; done; rm -rf $$LOKI_DATA' EXIT; \
	  VLOKI_BENCH_COMPARE=1 LOKI_BENCH_URL=$$LOKI_URL $(GO) test -run '^$$' -bench BenchmarkCompare -benchtime $${BENCH_RUNS:-10}x -timeout 60m ./internal/testing/parity/

## bench-load: the workloads against vloki (cold, warm, external), VictoriaLogs and Loki (when built) side by side; report in bench-results/ (BENCH_DURATION, BENCH_CLIENTS, BENCH_WORKLOADS, BENCH_RATE, BENCH_WINDOW=fixed|now|shifted|grafana, BENCH_AGENT_RATE)
bench-load:
	scripts/bench-load.sh

## bench-memory: peak RSS of vloki in its default configuration (embedded, external) at 50 clients beside VictoriaLogs alone, with heap profiles; report in bench-results/memory (BENCH_CLIENTS, BENCH_WINDOW, BENCH_DURATION, BENCH_WORKLOADS, BENCH_VLOKI_FLAGS)
bench-memory:
	scripts/bench-memory.sh

## bench-scale: the Quickwit-vs-Loki benchmark's data (BENCH_SCALE_LINES, default 30 M) and queries through vloki (embedded, external VictoriaLogs unless BENCH_SCALE_EXT=0, a two-node VictoriaLogs cluster unless BENCH_SCALE_CLUSTER=0) beside VictoriaLogs' LogsQL twins; report in bench-results/scale; BENCH_SCALE_PHASES=loki adds Loki v3.7.8 on a subset (loki-hicard: over 25,600 streams), =ingest times ingestion beside Loki (BENCH_SCALE_VIA=proto|json|otlp), =memory peak RSS at 50 clients in the default configuration and the restart on a full store
bench-scale:
	scripts/bench-scale.sh

## bench-capacity: throughput of one and two vloki replicas on a single VictoriaLogs node and on a two-storage-node cluster (bench-results/capacity)
bench-capacity:
	scripts/bench-capacity.sh

## soak: every workload mixed at 200 clients for 5 minutes with pushes alongside, counted back (SOAK_CLIENTS, SOAK_DURATION, SOAK_PUSH_RATE)
soak:
	scripts/soak.sh

## parity-record: record Loki v3.7.8's answers to the corpus (builds Loki; not part of CI)
parity-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  $(GO) run ./cmd/parity record -url $$LOKI_URL -dir parity

## parity: compare vloki with the goldens on both backends and print the score
parity:
	$(GO) test -count=1 -run TestParity -v ./internal/testing/parity/

## parity-diff: random queries against a fresh Loki v3.7.8 holding the parity dataset (DIFF_N, DIFF_SEED=n or first-last, DIFF_GEN=2…6, 6 the malformed mutants of internal/lang/logql/mutate; DIFF_DATASET=2 adds the second dataset)
parity-diff:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  $(GO) run ./cmd/parity compare -url $$LOKI_URL -dir parity > /dev/null; \
	  DIFF_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -timeout 4h -run TestRandomDifferential -v ./internal/testing/parity/

## parity-settle: which goldens a fresh Loki v3.7.8 answers differently once its ingesters flush, the evidence behind parity/known-gaps.txt (SETTLE_SLICES time windows pushed with a flush after each, then SETTLE_WAIT for its index; not part of CI)
SETTLE_SLICES ?= 24
SETTLE_WAIT ?= 16m
parity-settle:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  $(GO) run ./cmd/parity settle -url $$LOKI_URL -dir parity -slices $(SETTLE_SLICES) -wait $(SETTLE_WAIT)

## canary: vloki's own end-to-end checker (internal/tools/canary) against vloki on every backend, held to loki-canary's figures against Loki (part of make test)
canary:
	$(GO) test -count=1 -run '^TestCanary$$' -v ./internal/testing/integration/

## canary-check: the real loki-canary against vloki on every backend, held to its figures against Loki (builds loki-canary from Loki's AGPL module; not part of CI)
canary-check:
	VLOKI_BUILD_LOKI=1 $(GO) test -count=1 -run '^TestLokiCanary$$' -v -timeout 10m ./internal/testing/integration/

## canary-record: loki-canary's figures against a fresh Loki v3.7.8, which TestCanary and TestLokiCanary hold vloki to (builds Loki and loki-canary; not part of CI)
canary-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  VLOKI_BUILD_LOKI=1 CANARY_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestLokiCanary$$' -v -timeout 10m ./internal/testing/integration/

## dedup-record: Loki's answers to repeated pushes, which TestDuplicatePushesMatchLoki compares vloki's with (not part of CI)
dedup-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  DEDUP_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestDuplicatePushesMatchLoki$$' -v ./internal/testing/integration/

## patterns-record: Loki's /patterns answers (pattern ingester on) to the data of TestPatternsMatchLoki, placed in the last three hours (not part of CI)
patterns-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  PATTERNS_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestPatternsMatchLoki$$' -v ./internal/testing/integration/

## collide-record: Loki's answers to structured metadata colliding with labels and parsed keys, which TestParsedLabelsReplaceMetadataMatchLoki compares vloki's with (not part of CI)
collide-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  COLLIDE_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestParsedLabelsReplaceMetadataMatchLoki$$' -v ./internal/testing/integration/

## kinds-record: Loki's answers to filters over lines with escapes and bytes outside ASCII, which TestLineKindsMatchLoki compares vloki's narrowed plans with (not part of CI)
kinds-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  KINDS_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestLineKindsMatchLoki$$' -v ./internal/testing/integration/

## burst-record: Loki's answers to entries sharing a timestamp, which TestSameTimestampOrderMatchesLoki compares vloki's with (not part of CI)
burst-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  BURST_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestSameTimestampOrderMatchesLoki$$' -v ./internal/testing/integration/

## malformed-record: Loki's answers to the malformed queries internal/lang/logql/mutate derives from the corpora's valid ones (60 seeds x 300 mutants), which TestLokiMalformed holds vloki's parser to (not part of CI)
malformed-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; \
	  trap 'kill $$LOKI_PID; while kill -0 $$LOKI_PID 2>/dev/null; do sleep 0.2; done; rm -rf $$LOKI_DATA' EXIT; \
	  $(GO) run ./parity/cmd/record-malformed -url $$LOKI_URL

## legacy-record: Loki's answers on its legacy API (/api/prom/query, /label, /label/{name}/values, /series, /tail), which TestLegacyAPIMatchesLoki compares vloki's with (not part of CI)
legacy-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  LEGACY_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestLegacyAPIMatchesLoki$$' -v ./internal/testing/integration/

## ruler-record: Loki v3.7.8's ruler through TestRulerMatchesLoki's scenario (rules and alerts APIs, notifications, remote-written samples), which the test compares vloki's ruler with (builds Loki; not part of CI)
ruler-record:
	VLOKI_BUILD_LOKI=1 RULER_RECORD=1 $(GO) test -count=1 -timeout 10m -run '^TestRulerMatchesLoki$$' -v ./internal/testing/integration/

## otlp-record: Loki's answers to the OTLP tests' exports, from fresh Loki v3.7.8s with the default and the tests' otlp_config (not part of CI)
otlp-record:
	@set -e; eval "$$(scripts/loki-run.sh)"; trap 'kill $$LOKI_PID' EXIT; \
	  OTLP_RECORD_LOKI_URL=$$LOKI_URL OTLP_RECORD_GOLDEN=otlp_loki.json $(GO) test -count=1 -run '^TestOTLPMatchesLoki$$' -v ./internal/testing/integration/
	@set -e; cfg=$$(mktemp); scripts/otlp-overrides-config.sh >"$$cfg"; \
	  eval "$$(LOKI_CONFIG=$$cfg scripts/loki-run.sh)"; trap 'kill $$LOKI_PID; rm -f $$cfg' EXIT; \
	  OTLP_RECORD_LOKI_URL=$$LOKI_URL OTLP_RECORD_GOLDEN=otlp_loki_overrides.json $(GO) test -count=1 -run '^TestOTLPOverridesMatchLoki$$' -v ./internal/testing/integration/

## ruler-api-record: Grafana's sequence against the rules API of a fresh Loki v3.7.8 with a writable rule store, which TestRulerGrafanaSequence compares vloki's answers with (builds Loki; not part of CI)
ruler-api-record:
	@set -e; cfg=$$(mktemp); scripts/loki-ruler-api-config.sh >"$$cfg"; \
	  eval "$$(LOKI_CONFIG=$$cfg scripts/loki-run.sh)"; \
	  trap 'kill $$LOKI_PID; while kill -0 $$LOKI_PID 2>/dev/null; do sleep 0.2; done; rm -rf $$LOKI_DATA $$cfg' EXIT; \
	  RULER_API_RECORD_LOKI_URL=$$LOKI_URL $(GO) test -count=1 -run '^TestRulerGrafanaSequence$$' -v ./internal/testing/integration/
