"""FastToG as a LangChain Runnable: question in, the whole result out as a dict.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.methods.fasttog import FastToGConfig
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> chain = FastToGChain(graph=store, llm=FakeListChatModel(responses=["{All About Eve}"]),
...                      config=FastToGConfig(max_community_size=2))
>>> chain.invoke({"question": "which films share the director of [Cleopatra]"})["answer"]
'All About Eve'
"""

from __future__ import annotations

from langchain_fasttog.base import KGMethodChain
from langchain_fasttog.fasttog_fields import FastToGFields


class FastToGChain(FastToGFields, KGMethodChain):
    """FastToG question answering as a Runnable (``invoke``, ``batch``, ``ainvoke``, ``abatch``).

    The input is a question string or ``{"question": ..., "topic_entities": [...]}``; the output is
    :meth:`FastToGResult.to_dict` (answer, chains, depth, LLM calls, tokens, fallback, timings).

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model.
    config : FastToGConfig
        Width, depth, community size, algorithm, seed, ... (this project's defaults).
    preset : str, optional
        ``"paper"``: the paper's FastToG as written (``FastToGConfig.paper()``, its
        temperatures and token caps sent with every call); ``"metaqa"``: the movie
        demonstrations. Not with ``config``; fields given directly override it.
    textualizer : CommunityTextualizer, optional
        Community-to-text conversion (Triple2Text by default).
    embeddings : langchain_core.embeddings.Embeddings, optional
        Ranks communities and topic facts by similarity (the default ``first_choice="auto"``,
        no LLM call); without it, the offline all-MiniLM-L6-v2 does when the ``embeddings``
        extra is installed, as in ``kgqa``, else the LLM chooses (one warning says so).
    """
