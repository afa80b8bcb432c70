# vaultd: common tasks. CI runs `make test` (see .ci/run).
#
#   make run     build, then show the example vault as an agent sees it first
#   make test    go vet + all tests (fuzz seed corpora run as normal tests)
#   make build   static binary in bin/vaultd
#   make lint    gofmt check + go vet
#   make fuzz    every fuzz target for FUZZTIME (default 60s) each
#   make bench   benchmarks (./bench)

GO       ?= go
BIN      := bin/vaultd
FUZZTIME ?= 60s

.PHONY: all build run test e2e vet lint fuzz bench clean

all: lint test build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/vaultd

# Until the MCP server exists, `make run` shows what `vault_overview` shows an
# agent. The state dir goes to bin/ so that the example vault stays clean.
run: build
	./$(BIN) overview --vault example-vault --state-dir bin/example-state

# go test runs each fuzz target's seed corpus (f.Add and testdata/fuzz) as a
# normal test, so the seeds are checked on every `make test`.
test: vet
	$(GO) test ./...

# The end-to-end tests alone: the built binary driven by real MCP clients.
e2e:
	$(GO) test -count=1 ./e2e/...

vet:
	$(GO) vet ./...

lint: vet
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt: these files need formatting (run gofmt -w):"; echo "$$unformatted"; exit 1; fi

# Runs every Fuzz* target of every package, one after the other.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

bench:
	sh bench/bench.sh

clean:
	rm -rf bin
