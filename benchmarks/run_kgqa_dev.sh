#!/usr/bin/env bash
# Every method on the dev questions of six graphs (the cross-graph report): MetaQA 2-hop and
# 3-hop, PathQuestion PQ-3H and PQL-3H, WebQSP and CWQ (the first N of each, N=50 by default),
# with the local Qwen2.5-1.5B model; writes benchmarks/results/kgqa_dev/kgqa_dev.md (hit@1 with
# its 95% interval, strict and grounded hit@1, LLM calls, prompt tokens, LLM seconds), then
# appends benchmarks/kgqa_dev_notes.md (the papers' figures, the sittings).
#
# The MetaQA rows are the MetaQA report's own traces (benchmarks/run_metaqa.sh writes them to
# benchmarks/results/; they are copied here), so the two reports never disagree. The run resumes
# from the per-question traces under benchmarks/results/kgqa_dev/ (commit them): interrupt at
# any time and run again. Run it alone on the machine: the model's speed halves under load.
#
#   benchmarks/run_kgqa_dev.sh                         # everything
#   METHODS="fasttog tog" DATA="webqsp cwq" benchmarks/run_kgqa_dev.sh   # a slice
#   REPORT_ONLY=1 benchmarks/run_kgqa_dev.sh           # only rewrite the table
#   PRESETS="" benchmarks/run_kgqa_dev.sh               # without the paper's FastToG rows
#   SETS="" benchmarks/run_kgqa_dev.sh                  # without FastToG with Graph2Text
#   METHODS=fasttog PRESETS="" benchmarks/run_kgqa_dev.sh   # only the FastToG rows (finished
#                                                       # ones resume at once): the g2t row
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

N=${N:-50}
LLM=${LLM:-local}
OUT=${OUT:-benchmarks/results/kgqa_dev}
METAQA=${METAQA:-benchmarks/results}
METHODS=${METHODS:-"fasttog tog cgpe gretriever io cot"}
# The graphs besides MetaQA (its rows come from the MetaQA report's traces).
DATA=${DATA:-"pathquestion:PQ-3H pathquestion:PQL-3H webqsp cwq"}
# FastToG with these presets too, one row each (fasttog[preset=paper]: the paper's FastToG as
# written, FastToGConfig.paper(), docs/fasttog.md).
PRESETS=${PRESETS-"paper"}
# FastToG with these settings too, one row each, on every graph MetaQA 2- and 3-hop included
# (the MetaQA report has no such row to copy): fasttog[textualizer=g2t] is FastToG with the
# default Graph2Text model (the fine-tuned SmolLM2 where the g2t extra and its base model are
# installed; each trace record's extra.textualizer_model names the model that wrote).
SETS=${SETS-"textualizer=g2t"}
SET_DATA=${SET_DATA-"metaqa:2hop metaqa:3hop $DATA"}
# FastToG with the path scorer trained on WebQSP's training paths (its own row,
# fasttog[scorer=trained]; docs/fasttog.md, "A trained path scorer") on the Freebase graphs.
SCORER_DATA=${SCORER_DATA-"webqsp cwq"}
# FastToG with the topic entities withheld: linked from the question text alone.
NO_TOPICS_DATA=${NO_TOPICS_DATA-"webqsp-no-topics cwq-no-topics"}
PYTHON=${PYTHON:-.venv/bin/python}
TITLE="Cross-graph dev report: every method on the first ${N} dev questions of six graphs (${LLM} model)"
SUMMARY=kgqa_dev.md

mkdir -p "$OUT"
common=(--llm "$LLM" --out "$OUT" --summary "$SUMMARY" --title "$TITLE" --no-plots)
if [[ -z "${REPORT_ONLY:-}" ]]; then
  for data in $DATA; do
    for method in $METHODS; do
      echo "== $method on $data ($(date -u +%H:%M) UTC)" >&2
      nice "$PYTHON" -m kgqa eval --method "$method" --data "${data}:${N}" "${common[@]}" \
        >/dev/null
    done
    if [[ " $METHODS " == *" fasttog "* ]]; then
      for preset in $PRESETS; do
        echo "== fasttog --preset $preset on $data ($(date -u +%H:%M) UTC)" >&2
        nice "$PYTHON" -m kgqa eval --method fasttog --preset "$preset" --data "${data}:${N}" \
          "${common[@]}" >/dev/null
      done
    fi
  done
  if [[ " $METHODS " == *" fasttog "* ]]; then
    for data in $SCORER_DATA; do
      echo "== fasttog --set scorer=trained on $data ($(date -u +%H:%M) UTC)" >&2
      nice "$PYTHON" -m kgqa eval --method fasttog --set scorer=trained --data "${data}:${N}" \
        "${common[@]}" >/dev/null
    done
    for data in $NO_TOPICS_DATA; do
      echo "== fasttog on $data ($(date -u +%H:%M) UTC)" >&2
      nice "$PYTHON" -m kgqa eval --method fasttog --data "${data}:${N}" "${common[@]}" >/dev/null
    done
    for setting in $SETS; do
      for data in $SET_DATA; do
        echo "== fasttog --set $setting on $data ($(date -u +%H:%M) UTC)" >&2
        nice "$PYTHON" -m kgqa eval --method fasttog --set "$setting" --data "${data}:${N}" \
          "${common[@]}" >/dev/null
      done
    done
  fi
fi
# The MetaQA report's 2-hop and 3-hop traces of the same methods.
for method in $METHODS; do
  for hop in 2hop 3hop; do
    trace="$METAQA/${method}__metaqa-${hop}.jsonl"
    if [[ -f "$trace" ]]; then cp "$trace" "$OUT/"; fi
  done
done
for preset in $PRESETS; do
  for method in fasttog gretriever; do
    for hop in 2hop 3hop; do
      trace="$METAQA/${method}_preset=${preset}___metaqa-${hop}.jsonl"
      if [[ -f "$trace" ]]; then cp "$trace" "$OUT/"; fi
      if [[ -f "${trace%.jsonl}.ids.json" ]]; then cp "${trace%.jsonl}.ids.json" "$OUT/"; fi
    done
  done
done
"$PYTHON" -m kgqa eval --report-only --out "$OUT" --summary "$SUMMARY" --title "$TITLE" \
  --no-plots >/dev/null
cat benchmarks/kgqa_dev_notes.md >> "$OUT/$SUMMARY"
echo "$OUT/$SUMMARY"
