# PARoG-Go. `make test` is the one command that runs every test.
GO ?= go
# TAGS are the build tags of every build and test. nomsgpack leaves gin's
# MessagePack codec (github.com/ugorji/go, about 9.5 MB of the binary) out;
# the server speaks JSON only. The Dockerfile builds with the same tags.
TAGS ?= nomsgpack

.PHONY: test test-go lint build run bench stress probe

# -buildvcs=auto stamps the git revision into the binary for parog --version
# even where GOFLAGS turns stamping off.
build:
	$(GO) build -tags '$(TAGS)' -buildvcs=auto -o bin/parog ./cmd/parog

# Runs the main job: the HTTP server on the embedded demo KG. It builds
# bin/parog, then execs it in place of the recipe's shell, so Ctrl-C and a
# kill of make stop the server (a `go run` left it running). More serve
# flags go in ARGS, e.g. make run ARGS="--addr 127.0.0.1:9090".
run: build
	exec bin/parog serve --config configs/demo.yaml $(ARGS)

# Installs Virtuoso, Redis and Chromium when missing (root) or says how, then
# lints and runs all tests with the race detector (the browser tests may not
# skip). configs/deploy is a module of its own (its tests link BuildKit and
# compose-go), so its tests run from its folder, first, so that the count of
# skipped data tests stays the last line.
test: lint
	./scripts/ensure-packages.sh
	cd configs/deploy && $(GO) test -tags '$(TAGS)' -race -count=1 ./...
	@$(MAKE) --no-print-directory test-go

# The tests of PKGS (all by default) with the race detector, then one line
# counting the tests that skipped for want of the real data (each appends
# a line to $$PAROG_SKIPLOG; see internal/realdata). TESTFLAGS adds flags.
PKGS ?= ./...
test-go:
	@log=$$(mktemp); \
	PAROG_SKIPLOG=$$log PAROG_REQUIRE_BROWSER=1 $(GO) test -tags '$(TAGS)' -race -count=1 -timeout 40m $(TESTFLAGS) $(PKGS); rc=$$?; \
	echo "data tests skipped: $$(wc -l <$$log) (set PAROG_DATA to run them)"; rm -f $$log; exit $$rc

# Not part of test, and slow: runs the tests of STRESS_PKGS (default all)
# with the race detector, five times each, while a busy loop loads the
# machine, so that a test which hangs on timing fails here, e.g.
# make stress STRESS_PKGS="./kgqa/engine ./kgqa/server". One busy loop
# beside go test's parallel packages keeps a 2-core machine over-full (load
# 3 and more) for the hour a run takes there; BURNERS=$(nproc) loads it
# harder and takes twice as long.
STRESS_PKGS ?= ./...
BURNERS ?= 1
stress:
	./scripts/ensure-packages.sh
	GO=$(GO) TAGS='$(TAGS)' COUNT=5 BURNERS=$(BURNERS) ./scripts/stress.sh $(STRESS_PKGS)

# The loopback-only attack suite (scripts/probe) against a freshly built
# bin/parog on the demo KG: slow readers from three source addresses, a
# named pipe in the viewer's folder, a hostile prompt template, hostile
# output targets, header floods, query products. It fails on an unexpected
# status, server RSS over 1 GiB, or goroutines left after the clients
# leave; under a minute on two cores.
probe: build
	$(GO) run -tags '$(TAGS)' ./scripts/probe --parog bin/parog

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet -tags '$(TAGS)' ./...
	$(GO) tool staticcheck -tags '$(TAGS)' ./...
	cd configs/deploy && $(GO) vet -tags '$(TAGS)' ./... && $(GO) tool staticcheck -tags '$(TAGS)' ./...

# Runs the benchmark set (load, oracle on the slice, KG primitives, results
# parsing), writes benchstat-compatible out/bench/<time>-<commit>.txt,
# compares it with the previous run and appends a row to
# docs/performance.md. A few minutes; not part of make test. Installs jq
# (root) when missing, as make test installs the servers.
bench:
	./scripts/ensure-packages.sh --bench
	GO=$(GO) TAGS='$(TAGS)' ./scripts/bench.sh
