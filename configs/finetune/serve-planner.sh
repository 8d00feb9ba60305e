#!/usr/bin/env bash
# Serves the fine-tuned planner with vLLM, constrained to the Plan JSON
# schema through guided decoding (see vllm-planner.yaml), then checks it.
#   configs/finetune/serve-planner.sh [MODEL_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
model="${1:-saves/parog-planner-llama3.1-8b-full}"
exec vllm serve "$model" --config "$here/vllm-planner.yaml"
