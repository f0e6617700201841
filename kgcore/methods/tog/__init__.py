"""Think-on-Graph (ToG, Sun et al. 2024), the node-level n-d 1-w baseline: the LLM prunes
relations and scores entities hop by hop (see :mod:`kgcore.methods.tog.engine` for the
algorithm).

- :mod:`~kgcore.methods.tog.prompts`: the prompt templates, system prompts and reminders;
- :mod:`~kgcore.methods.tog.config`: :class:`ToGConfig`, every setting, checked;
- :mod:`~kgcore.methods.tog.parsing`: scored letters and the reasoning verdict, read;
- :mod:`~kgcore.methods.tog.engine`: :class:`ToG`, the step generator, one method per phase.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> ToG(InMemoryGraphStore.from_triples([("a", "r", "b")])).max_depth
3
"""

from kgcore.methods.kernel import parse_graph_answer
from kgcore.methods.tog.config import ToGConfig
from kgcore.methods.tog.engine import ToG
from kgcore.methods.tog.parsing import parse_scores, parse_sufficiency

__all__ = ["ToG", "ToGConfig", "parse_graph_answer", "parse_scores", "parse_sufficiency"]
