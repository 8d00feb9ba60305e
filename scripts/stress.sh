#!/usr/bin/env bash
# Runs the tests of the given packages (default: all of them) with the race
# detector, COUNT times each (default 5), while one busy loop per CPU keeps
# the machine loaded: a test that depends on timing or on goroutine order
# fails here rather than once in a while in `make test`. The busy loops are
# started here and killed on every exit.
#
#   scripts/stress.sh ./kgqa/engine ./kgqa/server
#   COUNT=20 RACE= scripts/stress.sh -run TestImportDumpTruncated ./kgqa/kgdata/fbimport
#
# RACE= turns the race detector off: it slows the code so much that some
# races of timing hide under it.
set -euo pipefail
GO=${GO:-go}
COUNT=${COUNT:-5}
RACE=${RACE--race}
TAGS=${TAGS-nomsgpack}
BURNERS=${BURNERS:-$(nproc)}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

burners=()
stop() {
  for pid in "${burners[@]-}"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM
for _ in $(seq "$BURNERS"); do
  yes >/dev/null &
  burners+=($!)
done
echo "stress: $BURNERS busy loop(s), go test -tags '$TAGS' $RACE -count=$COUNT ${pkgs[*]}" >&2
$GO test -tags "$TAGS" $RACE -count="$COUNT" -timeout "${TIMEOUT:-60m}" "${pkgs[@]}"
