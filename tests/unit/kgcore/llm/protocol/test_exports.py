"""``kgcore.llm.protocol`` exports every public name of its modules, each from one home."""

from __future__ import annotations

import kgcore.llm
import kgcore.llm.protocol as protocol
from kgcore.llm.protocol import driver, retry, types, workers

MODULES = (types, retry, driver, workers)


def test_the_package_exports_each_modules_names_and_nothing_else() -> None:
    homes = {name: module for module in MODULES for name in module.__all__}
    assert sum(len(module.__all__) for module in MODULES) == len(homes)  # one home each
    assert sorted(protocol.__all__) == sorted(homes)
    for name, module in homes.items():
        assert getattr(protocol, name) is getattr(module, name)


def test_kgcore_llm_reexports_the_protocol_names_unchanged() -> None:
    shared = set(kgcore.llm.__all__) & set(protocol.__all__)
    assert {"LLMRequest", "LLMReply", "run_steps", "arun_steps", "UsageMeter"} <= shared
    for name in shared:
        assert getattr(kgcore.llm, name) is getattr(protocol, name)
