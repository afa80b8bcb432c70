#!/bin/sh
# Runs the search-index benchmark (bench/main.go) from the repository root.
# ripgrep is needed for the comparison with a plain file scan; it is
# installed with apt-get when missing. Flags are passed on, e.g.
#   sh bench/bench.sh -corpus gesetze -only build,search -runs 1
set -e
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq ripgrep
fi
exec go run ./bench "$@"
