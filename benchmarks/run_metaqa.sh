#!/usr/bin/env bash
# Every method on the same MetaQA dev questions (the first N of each hop, N=50 by default: 150
# questions, enough for a Wilson interval of about +-7 points) with the local Qwen2.5-1.5B model;
# writes benchmarks/results/metaqa_dev.md (hit@1 with its 95% interval, strict and grounded
# hit@1, calls, prompt tokens, wall time).
#
# The run resumes from the per-question traces under benchmarks/results/ (commit them), so the
# report can be completed over several sittings: interrupt at any time and run again. A full run
# takes hours on two CPU cores (the model reads ~85 and writes ~14 tokens a second).
#
#   benchmarks/run_metaqa.sh                      # everything
#   METHODS="io cgpe" N=3 benchmarks/run_metaqa.sh  # a slice
#   SIZES="2 8" benchmarks/run_metaqa.sh          # FastToG at other community sizes too
#   DEPTHS="2" benchmarks/run_metaqa.sh           # FastToG at other D_max too
#   PRESETS="" benchmarks/run_metaqa.sh           # without the paper's FastToG row
#   RETRY_ERRORS=1 benchmarks/run_metaqa.sh       # re-run questions whose trace is an error
#   REPORT_ONLY=1 benchmarks/run_metaqa.sh        # only rewrite the table and plots
set -euo pipefail
cd "$(dirname "$0")/.."
# This checkout's code, not whichever one the venv's kgqa script was installed from.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

N=${N:-50}
LLM=${LLM:-local}
OUT=${OUT:-benchmarks/results}
HOPS=${HOPS:-"1hop 2hop 3hop"}
# FastToG and ToG first: the comparison the report is for.
METHODS=${METHODS:-"fasttog tog cgpe gretriever io cot"}
# FastToG with these maximum community sizes too (M=1 is fasttog-node, M=4 the default):
# the points of the depth/accuracy-against-community-size plot.
SIZES=${SIZES:-""}
# FastToG with these maximum depths D_max too (the paper's 5 is the default): with the local
# 1.5B model, questions that reach depth 3 or more scored nothing on dev 2-hop and took half of
# FastToG's LLM time, so the report shows what stopping earlier costs and saves.
DEPTHS=${DEPTHS:-""}
# FastToG with these presets too, one row each (fasttog[preset=paper]: the paper's FastToG as
# written, FastToGConfig.paper(), docs/fasttog.md).
PRESETS=${PRESETS-"paper"}
PYTHON=${PYTHON:-.venv/bin/python}
TITLE="MetaQA dev: every method on the same ${N} questions per hop (${LLM} model)"

data=()
for hop in $HOPS; do data+=(--data "metaqa:${hop}:${N}"); done
common=(--llm "$LLM" --out "$OUT" --summary metaqa_dev.md --title "$TITLE" --no-plots)
if [[ -n "${RETRY_ERRORS:-}" ]]; then common+=(--retry-errors); fi

if [[ -z "${REPORT_ONLY:-}" ]]; then
  for method in $METHODS; do
    echo "== $method" >&2
    nice "$PYTHON" -m kgqa eval --method "$method" "${data[@]}" "${common[@]}" >/dev/null
  done
  if [[ " $METHODS " == *" fasttog "* ]]; then
    # One FastToG run per extra setting: the community sizes, then the depths.
    settings=()
    for size in $SIZES; do settings+=("max_community_size=${size}"); done
    for depth in $DEPTHS; do settings+=("max_depth=${depth}"); done
    for setting in "${settings[@]}"; do
      echo "== fasttog, $setting" >&2
      nice "$PYTHON" -m kgqa eval --method fasttog --set "$setting" "${data[@]}" \
        "${common[@]}" >/dev/null
    done
    for preset in $PRESETS; do
      echo "== fasttog, --preset $preset" >&2
      nice "$PYTHON" -m kgqa eval --method fasttog --preset "$preset" "${data[@]}" \
        "${common[@]}" >/dev/null
    done
  fi
fi
"$PYTHON" -m kgqa eval --report-only --out "$OUT" --summary metaqa_dev.md --title "$TITLE"
