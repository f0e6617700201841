"""A Bolt store's reads awaited on the event loop, through the driver's ``AsyncDriver``.

Inside an awaited run (:func:`kgcore.concurrency.run_awaited`: every ``arun``, ``ainvoke``,
``aretrieve``), :meth:`~kgcore.graph.neo4j_connection.Neo4jConnection.read_named` sends its
query here instead of through the synchronous driver: the same read query, in a managed READ
transaction on a session of its own, with the same server-side timeout, the store's
bookmarks, and the same client-side deadline (``query_timeout``: the read is cancelled, its
connection closed, and :class:`~kgcore.exceptions.GraphStoreError` raised). No thread waits on
it. A cluster's fail-over is the synchronous store's (:mod:`kgcore.graph.failover`): each
member's attempt is awaited in turn.

An ``AsyncDriver`` belongs to the event loop it was made on, so there is one per loop (and per
member URI), made at the loop's first read; :meth:`AsyncReads.aclose` closes the running
loop's.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgcore.graph.neo4j_connection import Neo4jConnection

__all__ = ["AsyncReads"]


class AsyncReads:
    """The awaited reads of one :class:`~kgcore.graph.neo4j_connection.Neo4jConnection`."""

    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        # loop -> (uri, driver): a driver is bound to its loop; a member switch makes a new one.
        self._drivers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[str, Any]] = (
            weakref.WeakKeyDictionary()
        )

    def _driver(self) -> Any:
        conn = self.connection
        loop = asyncio.get_running_loop()
        held = self._drivers.get(loop)
        if held is None or held[0] != conn.uri:
            driver = conn._neo4j.AsyncGraphDatabase.driver(
                conn.uri, auth=conn._auth, **conn._config
            )
            self._drivers[loop] = held = (conn.uri, driver)
        return held[1]

    def _drop(self, driver: Any) -> None:
        """Forget ``driver`` (stalled) and close it in the background."""
        for loop, (_, held) in list(self._drivers.items()):
            if held is driver:
                del self._drivers[loop]
        task = asyncio.get_running_loop().create_task(_close_quietly(driver))
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)

    async def read(self, kind: str, query: str, params: dict[str, Any]) -> list[Any]:
        """The values of the records of the read ``query`` (named ``kind``), within the
        connection's ``query_timeout``."""
        conn = self.connection
        driver = self._driver()
        try:
            return await asyncio.wait_for(
                self._read_now(driver, kind, query, params), conn.query_timeout
            )
        except TimeoutError:
            self._drop(driver)
            raise conn.no_answer(f"query {kind!r}") from None

    async def _read_now(
        self, driver: Any, kind: str, query: str, params: dict[str, Any]
    ) -> list[Any]:
        conn = self.connection
        neo4j = conn._neo4j

        @neo4j.unit_of_work(timeout=conn.query_timeout)
        async def work(tx: Any) -> list[Any]:
            conn.round_trips += 1
            conn.queries[kind] += 1
            result = await tx.run(query, params)
            return [record.values() async for record in result]

        config: dict[str, Any] = {"fetch_size": -1}
        bookmarks = conn.bookmarks()
        if bookmarks:  # reads see the store's own writes
            config["bookmark_manager"] = neo4j.AsyncGraphDatabase.bookmark_manager(
                initial_bookmarks=bookmarks
            )
        try:
            async with driver.session(
                database=conn.database, default_access_mode=neo4j.READ_ACCESS, **config
            ) as session:
                return list(await session.execute_read(work))
        except conn.failures as err:
            raise conn.failed(f"query {kind!r}", err) from err

    async def aclose(self) -> None:
        """Close the running loop's driver."""
        held = self._drivers.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await _close_quietly(held[1])

    def forget(self) -> None:
        """Drop every loop's driver (the connection closes): a driver whose loop still runs is
        closed there; the others are closed with their loop."""
        for loop, (_, driver) in list(self._drivers.items()):
            if loop.is_running() and not loop.is_closed():
                asyncio.run_coroutine_threadsafe(_close_quietly(driver), loop)
        self._drivers.clear()


#: Background closes of stalled drivers (kept referenced until they end).
_CLOSING: set[asyncio.Task[None]] = set()


async def _close_quietly(driver: Any) -> None:
    try:
        await driver.close()
    except Exception:  # noqa: BLE001 - a stalled driver may fail to close; it is dropped anyway
        pass
