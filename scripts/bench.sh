#!/usr/bin/env bash
# Runs the benchmark set and records it (make bench):
#   - BenchmarkLoad (kgqa/server): parog serve under 1, 50 and 200 clients,
#     and BenchmarkLoadFloor, the same levels against a server that only
#     makes the question's model calls (the floor under parog serve's CPU);
#   - the oracle benchmark on the FB15k-237 slice (parog bench oracle, the
#     perfect oracle only): Hits@1, LLM calls, tokens, critical path;
#   - the KG primitive benchmarks (kgqa/kg: relations, neighbours through a
#     mediator, a hub's incoming neighbours; embedded store and Virtuoso);
#   - the results-parsing benchmark (kgqa/kg/endpoint).
# It writes one benchstat-compatible file, out/bench/<UTC time>-<commit>.txt,
# compares it with the previous one (go tool benchstat), and appends a dated
# summary row to docs/performance.md. It is not part of make test.
#
# Settings (environment): BENCH_LOAD_DURATION (per load level, default 5s),
# BENCH_ORACLE_LIMIT (slice questions, default 100), BENCH_KG_TIME
# (-benchtime of the KG benchmarks, default 100x), BENCH_KG (their -bench
# pattern, default one caller; '(Relations|Neighbors)' runs 16 callers too),
# BENCH_OUT (default out/bench), BENCH_DOC (default docs/performance.md;
# "-" appends nothing).
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
out=${BENCH_OUT:-out/bench}
doc=${BENCH_DOC:-docs/performance.md}
load_dur=${BENCH_LOAD_DURATION:-5s}
oracle_limit=${BENCH_ORACLE_LIMIT:-100}
kg_time=${BENCH_KG_TIME:-100x}
kg_bench=${BENCH_KG:-'(Relations|Neighbors)/.*/.*/callers=1$'}
data=${PAROG_DATA:-data} # where parog data get writes
[[ -n ${PAROG_DATA:-} || -f $data/fb15k237/FB15k-237.tar.gz ]] || data=../shared/data

command -v jq >/dev/null || { echo "bench: jq is needed to read the oracle report (apt-get install jq)" >&2; exit 1; }
mkdir -p "$out"
rev=$(git rev-parse --short HEAD)
dirty=""
git diff --quiet HEAD -- . ':!docs/performance.md' || dirty="+dirty"
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
file="$out/$stamp-$rev$dirty.txt"
prev=$(ls "$out"/*.txt 2>/dev/null | sort | tail -1 || true)

# Configuration lines (key: value) head the file; benchstat keeps them.
{
	echo "commit: $rev$dirty"
	echo "date: $stamp"
	echo "loadavg-start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "cpus: $(nproc)"
} >"$file"

step() { echo "bench: $*" >&2; }

step "load benchmarks ($load_dur per level)"
PAROG_LOAD_DURATION=$load_dur $GO test -tags "${TAGS:-nomsgpack}" -run '^$' -bench 'Load(Floor)?$' -benchtime 1x -timeout 10m ./kgqa/server | tee -a "$file" >&2

step "KG primitives ($kg_time)"
$GO test -tags "${TAGS:-nomsgpack}" -run '^$' -bench "$kg_bench" -benchtime "$kg_time" -timeout 15m ./kgqa/kg | tee -a "$file" >&2

step "results parsing"
$GO test -tags "${TAGS:-nomsgpack}" -run '^$' -bench 'ParseResults' -benchtime 20x -count 3 ./kgqa/kg/endpoint | tee -a "$file" >&2

step "oracle benchmark on the slice ($oracle_limit questions)"
$GO build -buildvcs=auto -o bin/parog ./cmd/parog
slice=out/fb15k237.nt.gz
questions=out/webqsp_train_fb15k237.json
if [[ ! -f $slice ]]; then
	[[ -f $data/fb15k237/FB15k-237.tar.gz ]] || { echo "bench: $data/fb15k237/FB15k-237.tar.gz missing (bin/parog data get fb15k237 webqsp, or set PAROG_DATA)" >&2; exit 1; }
	bin/parog kg import fb15k237 --in "$data/fb15k237/FB15k-237.tar.gz" --names "$data/fb15k237/FB15k_mid2name.txt" --out "$slice" >&2
fi
if [[ ! -f $questions ]]; then
	bin/parog dataset answerable --config configs/fb15k237.yaml --format webqsp --keep exact \
		--input "$data/webqsp/WebQSP.train.json" --out "$questions" >&2
fi
odir="$out/oracle-$stamp"
bin/parog bench oracle --config configs/fb15k237.yaml --format webqsp --input "$questions" \
	--limit "$oracle_limit" --noise 0 --seeds 1 --demo=false --out "$odir" >/dev/null
rdir="$odir/$(basename "$questions" .json)"
# One benchstat line: the perfect oracle's Hits@1 and the mean cost per
# question (critical path: the longest chain of dependent LLM calls).
jq -r --slurpfile rows <(jq -c '.trace.usage.critical_path_calls // 0' "$rdir/ceiling.jsonl") \
	'"BenchmarkOracleSlice 1 \(.ceiling.hits1 * 100) hits@1_% \(.cost[0].llm_calls) calls/q \(.cost[0].prompt_tokens + .cost[0].completion_tokens) tokens/q \(($rows | add) / ($rows | length)) critical_path_calls/q \(.cost[0].sparql_queries) sparql/q"' \
	"$rdir/report.json" | tee -a "$file" >&2
echo "loadavg-end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$file"

step "written $file"
if [[ -n $prev && $prev != "$file" ]]; then
	$GO tool benchstat "$prev" "$file" || true
else
	$GO tool benchstat "$file" || true
fi

[[ $doc == "-" ]] && exit 0
# metric NAME-REGEX UNIT: the value of UNIT on the first line of NAME.
metric() {
	awk -v re="$1" -v unit="$2" '$1 ~ re { for (i = 3; i < NF; i++) if ($(i+1) == unit) { print $i; exit } }' "$file"
}
fmt() { [[ -n $1 ]] && printf '%.*f' "$2" "$1" || printf -- '-'; }
row="| ${stamp:0:10} | $rev$dirty | $(cut -d' ' -f1 /proc/loadavg)"
for c in 1 50 200; do row+=" | $(fmt "$(metric "^BenchmarkLoad/clients=$c-" server_cpu_ms/req)" 2)"; done
row+=" | $(fmt "$(metric '^BenchmarkLoad/clients=1-' p50_ms)" 0) / $(fmt "$(metric '^BenchmarkLoad/clients=200-' p99_ms)" 0)"
row+=" | $(fmt "$(metric '^BenchmarkLoad/clients=200-' req/s)" 0)"
row+=" | $(fmt "$(metric '^BenchmarkOracleSlice' hits@1_%)" 1) | $(fmt "$(metric '^BenchmarkOracleSlice' calls/q)" 2)"
row+=" | $(fmt "$(metric '^BenchmarkOracleSlice' tokens/q)" 0) | $(fmt "$(metric '^BenchmarkOracleSlice' critical_path_calls/q)" 2)"
row+=" | $(fmt "$(metric '^BenchmarkRelations/embedded/cached/callers=1-' ns/op)" 0)"
row+=" | $(fmt "$(metric '^BenchmarkRelations/virtuoso/cold/callers=1-' ns/op)" 0)"
row+=" | $(fmt "$(metric '^BenchmarkParseResults' MB/s)" 0)"
row+=" | $(fmt "$(metric '^BenchmarkLoadFloor/clients=1-' server_cpu_ms/req)" 2) / $(fmt "$(metric '^BenchmarkLoadFloor/clients=50-' server_cpu_ms/req)" 2) / $(fmt "$(metric '^BenchmarkLoadFloor/clients=200-' server_cpu_ms/req)" 2) |"
echo "$row" >>"$doc"
step "appended to $doc: $row"
