#!/bin/sh
# Installs Debian's chromium for the browser test when it is missing. The
# test drives it with playwright-core (never a Playwright browser download).
set -e
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
test -x /usr/bin/chromium
