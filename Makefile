# The two README commands: `make run` (the main job) and `make test` (every test).
# Both create .venv on first use and install dnnc into it (editable).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lit pytest bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python examples/main_job.py

test: lit pytest

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv test

pytest: $(STAMP)
	$(BIN)/pytest -q

# The peer engines (ONNX Runtime, OpenVINO, PyTorch) and the model table of the README.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,bench]'
	mkdir -p out
	$(BIN)/python bench/models.py --plot out/models.png

clean:
	rm -rf $(VENV) build *.egg-info
