# `make run` and `make test` each build .venv when missing. On a machine with no GPU the CPU build of
# torch is installed first (TORCH=...), so pip never pulls a multi-GB CUDA build it cannot use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
TORCH  ?= torch==2.13.0
TRIALS ?= 8
STAMP  := $(VENV)/.kzoo-installed

.PHONY: run test install clean

# .venv takes about 2.5 GB (torch's CPU build, triton, ray); pip needs room to unpack beside it.
NEED_GB ?= 3

$(STAMP): pyproject.toml
	@$(PYTHON) -c "import shutil, sys; free = shutil.disk_usage('.').free / 2**30; \
	sys.exit(0) if free >= $(NEED_GB) or '$(wildcard $(STAMP))' else \
	sys.exit(f'make: .venv needs about $(NEED_GB) GB of free disk; {free:.1f} GB free here. Free some, or set NEED_GB.')"
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
