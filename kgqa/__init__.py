"""``kgqa``: the command line of kg-retrievers (``ask``, ``eval``, ``load``, ...).

It drives the core methods and the adapters; nothing in ``kgcore`` or the adapters imports it.
Run ``kgqa --help`` (or ``python -m kgqa --help``) for the subcommands.
"""
