"""A learned relation-path scorer: two small projections over sentence embeddings, trained on
(question, relation path) pairs (``kgqa paths train``, :mod:`kgmodels.path_scorer`), that rank
a question's relation paths by the cosine of the projected question and path.

The path is read as its stored relation names, leg by leg through compound nodes, in the order
the walk takes them ("film.actor.film / film.performance.character" is one compound hop): the
form in which RoG's training paths name Freebase relations. Scoring needs numpy and the
embedder only; torch is for training.

A scorer is a folder: ``path_scorer.safetensors`` (the two projections) and
``path_scorer.json`` (the embedding size, how it was trained). ``"trained"`` names the one
this project trained on WebQSP's training paths (``models/path-scorer-webqsp``).

Example
-------
>>> import numpy as np
>>> from kgcore.paths.walk import Hop, RelationPath
>>> def embed(texts):  # a toy embedder: which of two words a text holds
...     return np.array([[float("born" in t), float("child" in t)] for t in texts])
>>> scorer = LearnedPathScorer(np.eye(2), np.eye(2), embed)
>>> paths = [RelationPath("X", (Hop(r),), {"Y": 1}, {"Y"}, ()) for r in ("born_in", "child")]
>>> [round(s, 2) for s in scorer("where was X born", ["X"], paths)]
[1.0, 0.0]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.compound import relation_legs
from kgcore.paths.walk import Hop, RelationPath

__all__ = [
    "TRAINED_SCORER",
    "LearnedPathScorer",
    "check_scorer_spec",
    "load_path_scorer",
    "path_relations",
    "relations_text",
    "resolve_path_scorer",
    "trained_scorer_dir",
]

#: The folder name of the scorer trained here on WebQSP's training paths.
TRAINED_SCORER = "path-scorer-webqsp"
WEIGHTS_FILE = "path_scorer.safetensors"
CONFIG_FILE = "path_scorer.json"
TRAIN_HINT = "train one with `kgqa paths train` (docs/fasttog.md, 'A trained path scorer')"


def path_relations(hops: Sequence[Hop]) -> list[str]:
    """A path's stored relation names in walking order, compound hops leg by leg (a hop read
    backwards takes its legs last to first).

    >>> path_relations([Hop("film.actor.film / film.performance.character"), Hop("a.b", False)])
    ['film.actor.film', 'film.performance.character', 'a.b']
    """
    names: list[str] = []
    for hop in hops:
        legs = [name for name, _ in relation_legs(hop.relation)]
        names += legs if hop.forward else legs[::-1]
    return names


def relations_text(relations: Sequence[str]) -> str:
    """The text a path is embedded as: its relation names, dots and underscores as spaces,
    joined by ``" ; "``.

    >>> relations_text(["people.person.place_of_birth", "location.location.containedby"])
    'people person place of birth ; location location containedby'
    """
    return " ; ".join(r.replace(".", " ").replace("_", " ").strip() for r in relations)


@dataclass(eq=False)
class LearnedPathScorer:
    """A :data:`~kgcore.paths.ranking.PathScorer` from two projections: ``question`` and
    ``path`` (embedding size x projection size), applied to ``embed``'s sentence embeddings;
    a path's score is the cosine of the two projected vectors."""

    question: np.ndarray
    path: np.ndarray
    embed: Callable[[list[str]], Any]
    name: str = "learned"

    def __call__(
        self, question: str, topic: Sequence[str], paths: Sequence[RelationPath]
    ) -> list[float]:
        if not paths:
            return []
        texts = [relations_text(path_relations(p.hops)) for p in paths]
        rows = np.nan_to_num(np.asarray(self.embed([question, *texts]), dtype=np.float64))
        if rows.shape[1] != self.question.shape[0]:
            raise ConfigurationError(
                f"path scorer {self.name!r} was trained on {self.question.shape[0]}-dimensional "
                f"embeddings, the embedder gives {rows.shape[1]}: use the embedder it names"
            )
        asked = _unit(rows[:1] @ self.question)[0]
        return [float(x) for x in _unit(rows[1:] @ self.path) @ asked]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1)
    norms[norms == 0] = 1.0
    return rows / norms[:, None]


def trained_scorer_dir() -> Path:
    """Where ``"trained"`` is found: the checkout's ``models/``, the user's model folder, else
    the copy in the wheel."""
    from kglocal.locations import candidate_paths, packaged_models_dir

    folders = [*candidate_paths(TRAINED_SCORER, None), packaged_models_dir() / TRAINED_SCORER]
    for folder in folders:
        if (folder / WEIGHTS_FILE).is_file():
            return folder
    raise ConfigurationError(f"the trained path scorer {TRAINED_SCORER!r} is missing; {TRAIN_HINT}")


def check_scorer_spec(scorer: object) -> None:
    """Refuse a ``scorer`` option that cannot load, without loading it or an embedder: a
    folder without a scorer's files, ``"trained"`` when it is missing, a value of another
    type. Callers check options at the door with it (``kgqa`` before the graph loads).

    >>> check_scorer_spec("similarity"), check_scorer_spec(None)
    (None, None)
    >>> check_scorer_spec("/no/such/folder")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: no path scorer in '/no/such/folder' (it needs ...
    """
    if scorer is None or scorer == "similarity" or callable(scorer):
        return
    if not isinstance(scorer, (str, Path)):
        raise _not_a_scorer(scorer)
    _scorer_folder(scorer)


def _not_a_scorer(scorer: object) -> ConfigurationError:
    return ConfigurationError(
        "scorer must be 'similarity', 'trained', a scorer folder or a path scorer, "
        f"got {type(scorer).__name__}"
    )


def _scorer_folder(where: str | Path) -> Path:
    """The folder ``where`` names (``"trained"``: :func:`trained_scorer_dir`), refused when it
    does not hold a scorer's two files."""
    folder = trained_scorer_dir() if str(where) == "trained" else Path(where)
    if not (folder / WEIGHTS_FILE).is_file() or not (folder / CONFIG_FILE).is_file():
        raise ConfigurationError(
            f"no path scorer in {str(folder)!r} (it needs {WEIGHTS_FILE} and {CONFIG_FILE}); "
            f"{TRAIN_HINT}"
        )
    return folder


def load_path_scorer(where: str | Path, embed: Callable[[list[str]], Any]) -> LearnedPathScorer:
    """The scorer saved in folder ``where`` (or ``"trained"``), scoring with ``embed`` (the
    embedder it was trained with: its config names it).

    Raises
    ------
    ConfigurationError
        The folder holds no scorer, or its files do not fit together.
    """
    folder = _scorer_folder(where)
    weights, config = folder / WEIGHTS_FILE, folder / CONFIG_FILE
    from safetensors.numpy import load_file

    try:
        tensors = load_file(str(weights))
        meta = json.loads(config.read_text(encoding="utf-8"))
        question, path = tensors["question"], tensors["path"]
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigurationError(f"path scorer in {str(folder)!r} is unreadable: {exc}") from exc
    if question.ndim != 2 or question.shape != path.shape:
        raise ConfigurationError(f"path scorer in {str(folder)!r}: projections do not match")
    if meta.get("dimension") not in (None, question.shape[0]):
        raise ConfigurationError(f"path scorer in {str(folder)!r}: config and weights disagree")
    return LearnedPathScorer(
        question.astype(np.float64), path.astype(np.float64), embed, name=folder.name
    )


def resolve_path_scorer(
    scorer: object, embed: Callable[[list[str]], Any]
) -> Callable[..., Sequence[float]] | None:
    """A method's ``scorer`` argument as a path scorer: ``None`` or ``"similarity"`` (the
    training-free ranking, :func:`~kgcore.paths.ranking.path_scorer`: ``None`` here),
    ``"trained"`` or a scorer folder (loaded now, so a missing one fails at once), or a
    callable :data:`~kgcore.paths.ranking.PathScorer` of the caller's.

    >>> resolve_path_scorer("similarity", lambda texts: []) is None
    True
    >>> resolve_path_scorer(3, lambda texts: [])
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: scorer must be 'similarity', 'trained', a scorer ...
    """
    if scorer is None or scorer == "similarity":
        return None
    if isinstance(scorer, (str, Path)):
        return load_path_scorer(scorer, embed)
    if callable(scorer):
        return scorer
    raise _not_a_scorer(scorer)
