"""A Unigram tokenizer trained here (``tokenizers``), wrapped for ``transformers``.

For ``scratch:*`` models there are no pretrained T5 weights, so the vocabulary is learnt from
the training texts with the ``tokenizers`` library's SentencePiece-style Unigram trainer and
wrapped as a :class:`transformers.PreTrainedTokenizerFast` (saved as ``tokenizer.json``, loaded
back by ``AutoTokenizer``). The linearisation markers and the delexicalisation placeholders are
whole tokens, never split and kept when decoding.

Example
-------
>>> tok = train_unigram_tokenizer(["<H> ENT0 <R> city served <T> ENT1", "ENT0 serves ENT1."] * 4,
...                               vocab_size=60)
>>> [t for t in tok.convert_ids_to_tokens(tok("<H> ENT0 <R> x")["input_ids"]) if t != "▁"][:3]
['<H>', 'ENT0', '<R>']
>>> tok.decode(tok("ENT0 serves ENT1")["input_ids"], skip_special_tokens=True)
'ENT0 serves ENT1'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgcore.exceptions import MissingDependencyError
from kgcore.text.graph2text.delex import PLACEHOLDERS
from kgcore.text.graph2text.linearize import MARKERS

PAD, EOS, UNK = "<pad>", "</s>", "<unk>"


def graph_tokens() -> list[str]:
    """Tokens every Graph2Text tokenizer must hold whole: markers then placeholders."""
    return [*MARKERS, *PLACEHOLDERS]


def train_unigram_tokenizer(texts: Iterable[str], vocab_size: int = 4000) -> Any:
    """Learn a Unigram vocabulary from ``texts`` (ids: pad 0, eos 1, unk 2, as in T5).

    Returns a ``transformers.PreTrainedTokenizerFast`` that appends ``</s>`` to every input.
    """
    try:
        from tokenizers import AddedToken, processors
        from tokenizers.implementations import SentencePieceUnigramTokenizer
        from transformers import PreTrainedTokenizerFast
    except ImportError as err:  # pragma: no cover - both come with the [local] extra
        raise MissingDependencyError("transformers", "g2t") from err

    base = SentencePieceUnigramTokenizer()
    base.train_from_iterator(
        iter(list(texts)),
        vocab_size=vocab_size,
        special_tokens=[PAD, EOS, UNK],
        unk_token=UNK,
        show_progress=False,
    )
    # Whole, non-special tokens: decoding with skip_special_tokens keeps the placeholders.
    base.add_tokens([AddedToken(t, single_word=False, normalized=False) for t in graph_tokens()])
    eos_id = base.token_to_id(EOS)
    base.post_processor = processors.TemplateProcessing(
        single=f"$A {EOS}", special_tokens=[(EOS, eos_id)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=base._tokenizer,
        pad_token=PAD,
        eos_token=EOS,
        unk_token=UNK,
        model_max_length=512,
    )
