"""QA methods written once against the LLM protocol: FastToG, ToG, CGPE, G-Retriever QA and
the prompt-only baselines.

Every method is a :class:`~kgcore.methods.base.StepMethod` built from the shared kernel
(:mod:`kgcore.methods.kernel`, :mod:`kgcore.methods.base`, :mod:`kgcore.methods.result`); a
method's module (``baselines``) or package (``fasttog/``, ``cgpe/``, ``tog/``, ``gretriever/``)
imports nothing from another method. A new method goes in a module or package of its own.
"""
