#!/bin/sh
# Runs the search-index benchmark (bench/main.go) from the repository root.
# ripgrep is needed for the comparison with a plain file scan; it is
# installed with apt-get when missing. Flags are passed on, e.g.
#   sh bench/bench.sh -corpus gesetze -only build,search -runs 1
#   sh bench/bench.sh -corpus gesetze -runs 1 -growth   # + gesetze 1×/2×/4×
#
# The build, search and stdio figures are printed side by side with those
# of a reference commit (VAULTD_BENCH_BASELINE, default 8dc906a: the index
# with one document per note, before section-level search), measured in
# the same run. VAULTD_BENCH_BASELINE= (empty) measures this tree alone.
set -e
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq ripgrep
fi
baseline=${VAULTD_BENCH_BASELINE-8dc906aac1a0e35ff2ec3491512b8240277c7655}
if [ -n "$baseline" ]; then
	exec go run ./bench -baseline "$baseline" "$@"
fi
exec go run ./bench "$@"
