"""Synthetic pairs: guarded LLM texts in WebNLG format, usable as training data."""

from __future__ import annotations

import json

from kgcore.llm import ScriptedLLM
from kgmodels.graph2text.data import read_webnlg
from kgmodels.graph2text.synth import synthesize


def test_only_guarded_texts_are_kept_and_the_file_reads_as_webnlg(movie_store, tmp_path) -> None:
    def reply(request) -> str:
        facts = [
            line[2:].split(" | ")
            for line in request.messages[-1].content.splitlines()
            if line.startswith("- ")
        ]
        names = sorted({f[0] for f in facts} | {f[2] for f in facts})
        if "Shane" in names:
            return "Invented Person made it."  # fails the guard
        if "Giant" in names:
            return "; ".join(names) + "."  # every name but no fact: fails the facts check
        return " ".join(f"{h} {r} {t}." for h, r, t in facts)

    llm = ScriptedLLM(reply)
    rows = synthesize(movie_store, ["Cleopatra", "Giant", "Nope"], llm, n=5, seed=1)
    assert rows and all(r["category"] == "MetaQA" for r in rows)
    path = tmp_path / "synth.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    entries = read_webnlg(path)
    assert [e.texts for e in entries] == [r["texts"] for r in rows]
    assert len(llm.requests) > len(rows)  # the Shane community was asked for and dropped
    assert all("Invented" not in t for e in entries for t in e.texts)
    assert all(";" not in t for e in entries for t in e.texts)
