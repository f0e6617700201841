"""Where the offline models live on disk: the local chat models (Qwen2.5-Coder-1.5B and
SmolLM2-135M GGUF files), the all-MiniLM-L6-v2 embedding model, the shipped Graph2Text models,
FastToG's trained path scorer, and the user's model and cache folders.

Nothing here runs a model or downloads one; :mod:`kglocal.locations` only finds files (putting
them in place is :mod:`kgmodels.install`'s). The core's defaults, both adapters, the command line
and the training code read the same order from here, so it is said once. This package imports
nothing of the project but :mod:`kgcore.exceptions`.
"""
