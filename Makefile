# vaultd: common tasks. CI runs `make test` (see .ci/run).
#
#   make run     serve a copy of the example vault over HTTP on 127.0.0.1:8765
#                and print how to connect Claude Code, Cursor, Codex and Gemini
#   make test    go vet + all tests (fuzz seed corpora run as normal tests)
#   make build   static binary in bin/vaultd, its version stamped from git
#   make install make build, then vaultd into $(PREFIX)/bin (~/.local/bin)
#   make dist    static binaries for linux, darwin, windows × amd64, arm64 in
#                dist/, with SHA256SUMS and the third-party licenses
#   make lint    gofmt check + go vet
#   make fuzz    every fuzz target for FUZZTIME (default 60s) each
#   make bench   benchmarks (./bench)
#   make clients docs/clients.md's setup lines in the real Claude Code, Codex CLI and
#                Gemini CLI (installs about 1.1 GB from npm the first time)
#   make stress  the long-running data-safety, HTTP limit and gesetze search-quality tests (minutes), with figures

GO       ?= go
# go.mod's toolchain line names the Go release every build, test and
# release is made with (a release without the standard library's known,
# called vulnerabilities: make vulncheck). Go fetches it through the module
# proxy the first time (about 70 MB); a machine whose Go is newer uses its
# own. Machines often set GOTOOLCHAIN=local (Go's own go.env does), which
# would ignore the line, so make asks for auto.
export GOTOOLCHAIN := auto
BIN      := bin/vaultd
FUZZTIME ?= 60s

# One version everywhere: `vaultd --version`, `vaultd version` and the MCP
# serverInfo all print mcpserver.Version, stamped here from git (a tag, or
# the commit, "-dirty" with uncommitted changes); outside a git checkout
# "dev", unless VERSION=… is given.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/vaultd/vaultd/mcpserver.Version=$(VERSION)
# $(call xbuild,GOOS,GOARCH,OUT): one static binary.
xbuild    = CGO_ENABLED=0 GOOS=$(1) GOARCH=$(2) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(3) ./cmd/vaultd
DIST_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
HOST_OS   := $(shell $(GO) env GOOS)
HOST_ARCH := $(shell $(GO) env GOARCH)
SHA256    := $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo 'shasum -a 256')

.PHONY: all build install dist dist-smoke run test e2e clients stress vet lint tidy-check vulncheck fuzz bench clean

all: lint test build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/vaultd

# `make install`: bin/vaultd into $(PREFIX)/bin, ~/.local/bin unless
# PREFIX=… says otherwise (no root needed; most Linux shells have it on
# PATH once it exists). The copy is renamed into place, so that a vaultd
# running from there (a client's serve) keeps running. Says when the folder
# is not on PATH, with the line that puts it there.
PREFIX ?= $(HOME)/.local
install: build
	@mkdir -p '$(PREFIX)/bin' && cp $(BIN) '$(PREFIX)/bin/.vaultd.new' && mv -f '$(PREFIX)/bin/.vaultd.new' '$(PREFIX)/bin/vaultd'
	@echo "installed $(PREFIX)/bin/vaultd ($$('$(PREFIX)/bin/vaultd' --version))"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) printf '%s is not on your PATH; add this line to your shell profile (~/.profile, ~/.zshrc):\n  export PATH="%s:$$PATH"\n' '$(PREFIX)/bin' '$(PREFIX)/bin';; esac

# `make dist`: dist/vaultd-OS-ARCH (.exe for windows) for every target,
# SHA256SUMS over them, THIRD_PARTY_LICENSES.txt (the license file of
# every module the binary is built from, from the module cache), LICENSE
# and NOTICE; then the smoke test on the binary this machine can run.
dist:
	rm -rf dist && mkdir -p dist
	@set -e; for t in $(DIST_TARGETS); do os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "dist/vaultd-$$os-$$arch$$ext"; \
		$(call xbuild,$$os,$$arch,dist/vaultd-$$os-$$arch$$ext); \
	done
	cd dist && $(SHA256) vaultd-* > SHA256SUMS
	cp LICENSE NOTICE dist/
	@set -e; $(GO) list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/vaultd | sort -u | \
	while read -r path ver dir; do \
		printf '==== %s %s ====\n\n' "$$path" "$$ver"; \
		for f in "$$dir"/LICENSE* "$$dir"/LICENCE* "$$dir"/COPYING* "$$dir"/NOTICE*; do [ -f "$$f" ] && { cat "$$f"; echo; }; done; \
	done > dist/THIRD_PARTY_LICENSES.txt
	@ls -l dist
	@if [ -x dist/vaultd-$(HOST_OS)-$(HOST_ARCH) ]; then sh .ci/smoke dist/vaultd-$(HOST_OS)-$(HOST_ARCH) '$(VERSION)'; fi

# The smoke test of a dist binary, on linux/amd64 (the CI machine), as part
# of `make test`: built as `make dist` builds it (only this one target, as
# the six take minutes), then `--version`, `version`, MCP serverInfo and
# `overview` on a copy of the example vault.
dist-smoke:
	@if [ "$(HOST_OS)/$(HOST_ARCH)" != linux/amd64 ]; then \
		echo "dist-smoke: SKIPPED: it tests the linux/amd64 binary, and this machine is $(HOST_OS)/$(HOST_ARCH)"; \
	else \
		mkdir -p bin/smoke && $(call xbuild,linux,amd64,bin/smoke/vaultd-linux-amd64) && \
		sh .ci/smoke bin/smoke/vaultd-linux-amd64 '$(VERSION)'; \
	fi

# go.mod and go.sum must be what `go mod tidy` makes of them.
tidy-check:
	@$(GO) mod tidy -diff || { echo "tidy-check: go.mod/go.sum differ from what 'go mod tidy' makes (diff above); run: go mod tidy"; exit 1; }

# govulncheck from the module proxy, with the Go vulnerability database
# from the module proxy too (.ci/vulncheck says what it does and when it
# skips, loudly).
vulncheck:
	$(GO) run ./.ci/vulncheck

# `make run` serves the example vault to AI agents over HTTP on loopback, as
# a team would: a copy in bin/example-vault (made on the first run, so the
# repository's copy stays clean; its state dir is bin/example-vault/.vaultd),
# an access key "local" (read, write) created on the first run, its secret
# kept in bin/example-key (mode 0600) so that every run can print the one
# lines to paste into Claude Code, Cursor, Codex and Gemini (vaultd
# connect). Ctrl-C stops the server.
RUN_ADDR  ?= 127.0.0.1:8765
RUN_VAULT := bin/example-vault
RUN_KEY   := bin/example-key

run: build
	@[ -d $(RUN_VAULT) ] || { cp -R example-vault $(RUN_VAULT) && rm -rf $(RUN_VAULT)/.vaultd $(RUN_VAULT)/.trash; }
	@if [ ! -s $(RUN_KEY) ] || ! ./$(BIN) keys list --vault $(RUN_VAULT) | grep -q '^local '; then \
		./$(BIN) keys revoke local --vault $(RUN_VAULT) >/dev/null 2>&1; \
		./$(BIN) keys create local --allow read,write --vault $(RUN_VAULT) --secret-file $(RUN_KEY) >/dev/null || exit 1; \
	fi
	@echo; ./$(BIN) connect --vault $(RUN_VAULT) --url http://$(RUN_ADDR)/mcp --secret-file $(RUN_KEY) && \
	printf '\nThe key is "local" (read,write); keys: ./$(BIN) keys list --vault $(RUN_VAULT). Stop with Ctrl-C.\n\n'
	./$(BIN) serve --http $(RUN_ADDR) --vault $(RUN_VAULT)

# go test runs each fuzz target's seed corpus (f.Add and testdata/fuzz) as a
# normal test, so the seeds are checked on every `make test`.
test: vet tidy-check vulncheck dist-smoke
	$(GO) test -timeout 30m ./...

# The end-to-end tests alone: the built binary driven by real MCP clients.
e2e:
	$(GO) test -count=1 ./e2e/...

# docs/clients.md's setup lines run in the real clients' CLIs (e2e/clients,
# about 1.1 GB in node_modules, so not part of `make test`).
clients:
	VAULTD_CLIENTS=1 $(GO) test -count=1 -run TestClients -v ./e2e/

# The long versions of the data-safety tests (editors saving in place and by
# rename racing appends, 300 SIGKILLs during writes, a full state dir), of
# the HTTP limit tests (8 × 60 MB bodies with peak RSS from
# /proc/PID/status, 1,100 slow connections, a 75 s rogue agent), of git
# sync (TestStress_GitSyncConverges: a minute of appends on two clones
# served with --git-sync) and of the gesetze questions and budgeted agent on
# all 6,636 laws. They log their figures; VAULTD_E2E_BIN=path measures
# another build over HTTP. Every step runs, also after one fails; the last
# line names the steps that failed.
stress:
	@failed=; \
	VAULTD_STRESS=1 $(GO) test -count=1 -timeout 30m -run 'Editors|Crash_Killed|FullStateDir' -v ./vault/ || failed="$$failed vault"; \
	$(GO) test -tags stress -count=1 -timeout 30m -run Stress -v ./e2e/ || failed="$$failed e2e-stress"; \
	VAULTD_CLIENTS=1 $(GO) test -count=1 -run TestClients -v ./e2e/ || failed="$$failed clients"; \
	VAULTD_GESETZE=full $(GO) test -count=1 -timeout 30m -run 'TestQuality_Gesetze' -v ./index || failed="$$failed gesetze-quality"; \
	VAULTD_GESETZE=full $(GO) test -count=1 -timeout 30m -run 'TestBudgetedAgent_Gesetze' -v ./e2e/ || failed="$$failed gesetze-agent"; \
	if [ -n "$$failed" ]; then echo "make stress: failed:$$failed"; exit 1; fi; \
	echo "make stress: every step passed"

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
	rm -rf bin dist
