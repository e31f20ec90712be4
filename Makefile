# The two README commands: `make run` (the main job) and `make test` (every test).
# Both create .venv on first use and install dnnc into it (editable).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint lit pytest test-avx2 bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python examples/main_job.py

test: lint lit pytest test-avx2

# ruff (lint and format) on everything, mypy on the package and dnnc_testing; configured in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv test

# One pytest worker per core (pytest-xdist): most of a test's time is single-threaded Python
# (import, passes, lowering), so two workers on two cores halve the suite's wall time
# (measured on a loaded 2-core VM: 8 min 20 s -> 4 min 40 s, the same 3,644 tests passing).
pytest: $(STAMP)
	$(BIN)/pytest -q -n auto

# The next machine may have AVX2 only: where oneDNN finds more, every suite runs again with
# oneDNN held to AVX2 (ONEDNN_MAX_CPU_ISA), so that one machine proves both paths.
test-avx2: $(STAMP)
	@isa=$$($(BIN)/python -c 'from dnnc.target import target_info; print(target_info().isa)'); \
	if [ "$$isa" = avx2 ]; then \
		echo "test-avx2: the effective ISA is avx2 already: nothing more to run"; \
	else \
		echo "test-avx2: effective ISA $$isa; running the suites again under ONEDNN_MAX_CPU_ISA=AVX2"; \
		ONEDNN_MAX_CPU_ISA=AVX2 $(MAKE) --no-print-directory lit pytest; \
	fi

# The peer engines (ONNX Runtime, OpenVINO, PyTorch) and the model table of the README.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,bench]'
	mkdir -p out
	$(BIN)/python bench/models.py --plot out/models.png

clean:
	rm -rf $(VENV) build *.egg-info
