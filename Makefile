# `make run` and `make test` each build .venv when missing. On a machine with no GPU the CPU build of
# torch is installed first (TORCH=...), so pip never pulls a multi-GB CUDA build it cannot use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
TORCH  ?= torch==2.13.0
TRIALS ?= 8
STAMP  := $(VENV)/.kzoo-installed

.PHONY: run test install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/kzoo optimize tasks/softmax.py --trials $(TRIALS) --dtype float32

# Two pytest-xdist workers: the tests that start Ray loops run one after another on one of them
# (tests/conftest.py groups them), the in-process tests on the other.
JOBS ?= 2

test: $(STAMP)
	$(PY) -m pytest -q -n $(JOBS) --dist loadgroup

clean:
	rm -rf $(VENV) .kzoo
