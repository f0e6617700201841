"""``path_answer``: the answer a reply's names give through the followed paths."""

from __future__ import annotations

from kgcore.paths.reading import path_answer
from kgcore.paths.walk import FollowedPath, Hop
from kgcore.validation import MAX_ANSWER_CHARS

FILMS = [f"Film number {i:02d} of a long series" for i in range(40)]
DIRECTED = FollowedPath("Cleopatra", (Hop("directed by"), Hop("directed by of")), FILMS, [], False)


def test_every_node_the_model_names_on_the_path_comes_first_and_survives_the_cut() -> None:
    late = [FILMS[35], "Not a node", FILMS[38]]
    answer, path = path_answer(late, [DIRECTED], max_answers=50) or ("", None)
    names = answer.split("; ")
    assert path is DIRECTED
    assert names[:2] == [FILMS[35], FILMS[38]]  # both named, in the reply's order
    assert "Not a node" not in names and len(answer) <= MAX_ANSWER_CHARS
    assert names[2:] == [f for f in FILMS if f not in late][: len(names) - 2]


def test_a_path_with_too_many_nodes_answers_the_first_named_node_alone() -> None:
    answer, _ = path_answer([FILMS[3], FILMS[1]], [DIRECTED], max_answers=10) or ("", None)
    assert answer == FILMS[3]


def test_names_no_path_reaches_give_no_answer() -> None:
    assert path_answer(["Zelig", ""], [DIRECTED], max_answers=50) is None
