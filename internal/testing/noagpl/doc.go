// Package noagpl holds the checks, run by make test, that keep Loki's AGPL
// module (and every module marked not-to-use, testdata/not-to-use.tsv)
// out of vloki and out of make test: no go.mod or go.sum of the
// repository names one; nothing the CI script's make targets run calls
// scripts/loki-build.sh or scripts/loki-run.sh (make test also sets
// VLOKI_NO_LOKI=1, which makes loki-build.sh refuse); and a Go file
// names loki-build.sh, loki-run.sh or the Loki module only inside a
// function that first checks the opt-in variable VLOKI_BUILD_LOKI (set by
// make canary-check and the recording targets). Real Loki stays the
// reference: its answers are recorded as goldens by those opt-in targets.
package noagpl
