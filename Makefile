# PARoG-Go. `make test` is the one command that runs every test.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2

.PHONY: test lint build demo bench

# -buildvcs=auto stamps the git revision into the binary for parog --version
# even where GOFLAGS turns stamping off.
build:
	$(GO) build -buildvcs=auto -o bin/parog ./cmd/parog

# Runs the main job: the HTTP server on the embedded demo KG.
demo:
	$(GO) run ./cmd/parog serve --config configs/demo.yaml

# Installs Virtuoso when missing (root) or says how, then lints and runs all
# tests with the race detector.
test: lint
	./scripts/ensure-virtuoso.sh
	$(GO) test -race -count=1 -timeout 40m ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
