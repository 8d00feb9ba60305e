#!/usr/bin/env bash
# Makes sure the servers the tests start are installed: Virtuoso 7, Redis
# and headless Chromium, from Debian's packages. The tests start their own
# instances on free ports; nothing needs to be running. As root it installs
# whatever is missing in one apt-get run; otherwise it says what to install.
# With --bench it also makes sure of jq, which make bench reads reports with.
set -euo pipefail
# command -> Debian package
declare -A need=(
  [virtuoso-t]=virtuoso-opensource-7-bin
  [isql-vt]=virtuoso-opensource-7-bin
  [redis-server]=redis-server
  [chromium]=chromium
)
if [[ ${1-} == --bench ]]; then
  need[jq]=jq
fi
missing=()
for cmd in "${!need[@]}"; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    pkg=${need[$cmd]}
    [[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need Debian packages that are missing. Install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]}..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
for cmd in "${!need[@]}"; do
  command -v "$cmd" >/dev/null || { echo "ensure-packages: $cmd still missing after installing ${need[$cmd]}" >&2; exit 1; }
done
