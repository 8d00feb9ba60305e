#!/usr/bin/env bash
# Makes sure Virtuoso 7 (virtuoso-t and isql-vt) is installed: the tests
# start their own Virtuoso on free ports. As root it installs Debian's
# virtuoso-opensource-7-bin; otherwise it says how to.
set -euo pipefail
if command -v virtuoso-t >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Virtuoso is missing: the tests need virtuoso-t. Install it with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y virtuoso-opensource-7-bin" >&2
  exit 1
fi
echo "Installing Virtuoso (virtuoso-opensource-7-bin)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq virtuoso-opensource-7-bin >/dev/null
command -v virtuoso-t >/dev/null
