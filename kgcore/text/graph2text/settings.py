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

SETTINGS_FILE = "g2t_config.json"


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
    """

    delexicalize: bool = False
    prefix: str = ""
    max_source_tokens: int = 256
    max_target_tokens: int = 128

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

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
