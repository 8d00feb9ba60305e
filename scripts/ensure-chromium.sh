#!/usr/bin/env bash
# Makes sure headless Chromium is installed: the web page tests drive
# Debian's chromium over the DevTools protocol. As root it installs
# Debian's chromium; otherwise it says how to.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing: the web page tests need it. Install it with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "Installing Chromium (chromium)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
