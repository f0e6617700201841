"""Corpus BLEU and chrF (sacrebleu) and ROUGE-L (rouge-score) against several references.

Example
-------
>>> scores = corpus_scores(["the cat sat on the mat"], [["the cat sat on the mat", "a cat"]])
>>> round(scores["bleu"]), round(scores["chrf"]), round(scores["rougeL"])
(100, 100, 100)
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.exceptions import ConfigurationError, MissingDependencyError


def corpus_scores(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]]
) -> dict[str, float]:
    """BLEU, chrF and ROUGE-L F1 (all 0-100) of ``hypotheses`` against per-item references.

    Items may have different numbers of references (sacrebleu takes ``None`` for a missing
    one); ROUGE-L takes the best reference per item, then the mean.
    """
    if len(hypotheses) != len(references):
        raise ConfigurationError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists"
        )
    if any(not refs for refs in references):
        raise ConfigurationError("every item needs at least one reference text")
    try:
        import sacrebleu
        from rouge_score import rouge_scorer
    except ImportError as err:
        raise MissingDependencyError("sacrebleu and rouge-score", "g2t") from err
    width = max((len(r) for r in references), default=0)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    bleu = sacrebleu.corpus_bleu(list(hypotheses), streams).score  # type: ignore[arg-type]
    chrf = sacrebleu.corpus_chrf(list(hypotheses), streams).score  # type: ignore[arg-type]
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rouge = [
        max(scorer.score(ref, hyp)["rougeL"].fmeasure for ref in refs)
        for hyp, refs in zip(hypotheses, references, strict=True)
    ]
    return {
        "bleu": float(bleu),
        "chrf": float(chrf),
        "rougeL": 100.0 * sum(rouge) / max(len(rouge), 1),
    }
