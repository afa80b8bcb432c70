# vaultd: common tasks. CI runs `make test` (see .ci/run).
#
#   make run     serve a copy of the example vault over HTTP on 127.0.0.1:8765
#                and print how to connect Claude Code and Cursor
#   make test    go vet + all tests (fuzz seed corpora run as normal tests)
#   make build   static binary in bin/vaultd
#   make lint    gofmt check + go vet
#   make fuzz    every fuzz target for FUZZTIME (default 60s) each
#   make bench   benchmarks (./bench)
#   make stress  the long-running data-safety, HTTP limit and gesetze search-quality tests (minutes), with figures

GO       ?= go
BIN      := bin/vaultd
FUZZTIME ?= 60s

.PHONY: all build run test e2e stress vet lint fuzz bench clean

all: lint test build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/vaultd

# `make run` serves the example vault to AI agents over HTTP on loopback, as
# a team would: a copy in bin/example-vault (made on the first run, so the
# repository's copy stays clean; its state dir is bin/example-vault/.vaultd),
# an access key "local" (read, write) created on the first run, its secret
# kept in bin/example-key (mode 0600) so that every run can print the one
# line to paste into Claude Code or Cursor. Ctrl-C stops the server.
RUN_ADDR  ?= 127.0.0.1:8765
RUN_VAULT := bin/example-vault
RUN_KEY   := bin/example-key

run: build
	@[ -d $(RUN_VAULT) ] || { cp -R example-vault $(RUN_VAULT) && rm -rf $(RUN_VAULT)/.vaultd $(RUN_VAULT)/.trash; }
	@if [ ! -s $(RUN_KEY) ] || ! ./$(BIN) keys list --vault $(RUN_VAULT) | grep -q '^local '; then \
		./$(BIN) keys revoke local --vault $(RUN_VAULT) >/dev/null 2>&1; \
		./$(BIN) keys create local --allow read,write --vault $(RUN_VAULT) --secret-file $(RUN_KEY) >/dev/null || exit 1; \
	fi
	@key=$$(cat $(RUN_KEY)); url=http://$(RUN_ADDR)/mcp; \
	printf '\nvaultd serves %s at %s (access key "local": read,write).\n\n' '$(RUN_VAULT)' "$$url"; \
	printf 'Claude Code:\n  claude mcp add --transport http notes %s --header "Authorization: Bearer %s"\n\n' "$$url" "$$key"; \
	printf 'Cursor (~/.cursor/mcp.json):\n  {"mcpServers": {"notes": {"url": "%s", "headers": {"Authorization": "Bearer %s"}}}}\n\n' "$$url" "$$key"; \
	printf 'Keys: ./$(BIN) keys list --vault $(RUN_VAULT). Stop with Ctrl-C.\n\n'
	./$(BIN) serve --http $(RUN_ADDR) --vault $(RUN_VAULT)

# go test runs each fuzz target's seed corpus (f.Add and testdata/fuzz) as a
# normal test, so the seeds are checked on every `make test`.
test: vet
	$(GO) test ./...

# The end-to-end tests alone: the built binary driven by real MCP clients.
e2e:
	$(GO) test -count=1 ./e2e/...

# The long versions of the data-safety tests (editors saving in place and by
# rename racing appends, 300 SIGKILLs during writes, a full state dir), of
# the HTTP limit tests (8 × 60 MB bodies with peak RSS from
# /proc/PID/status, 1,100 slow connections, a 75 s rogue agent) and of git
# sync (TestStress_GitSyncConverges: a minute of appends on two clones
# served with --git-sync). They log their figures; VAULTD_E2E_BIN=path
# measures another build over HTTP.
stress:
	VAULTD_STRESS=1 $(GO) test -count=1 -timeout 30m -run 'Editors|Crash_Killed|FullStateDir' -v ./vault/
	$(GO) test -tags stress -count=1 -timeout 30m -run Stress -v ./e2e/
	VAULTD_GESETZE=full $(GO) test -count=1 -timeout 30m -run 'TestQuality_Gesetze' -v ./index

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
