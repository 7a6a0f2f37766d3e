# The two set-up commands of README.md: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
REFERENCE ?= ../shared/reference
export STRATA_SCHEMA_STORE ?= $(CURDIR)/.tools/schemas

.PHONY: demo test lint-code install tools server-tools linters schemas clean

demo: install tools   # the CRD schemas ship with the packs
	$(BIN)/strata render -f values/realistic.yaml -o out/realistic
	$(BIN)/strata validate out/realistic

test: install tools server-tools linters lint-code
	$(BIN)/python -m pytest -q

lint-code: install   # ruff and mypy (pydantic plugin) on strata's own code; config in pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/mypy

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]' hatchling
	touch $@

tools:
	scripts/install-tools.sh

server-tools:   # etcd + kube-apiserver for `validate --server`: slow once, then cached; not part of demo
	scripts/install-tools.sh server

linters:   # kube-score and checkov, pinned, for tests/test_linters.py
	scripts/install-linters.sh

schemas: install   # optional: the declared CRD sets into the store too (they ship with the packs)
	$(BIN)/strata schemas import --pack-crds $(REFERENCE)/crds

clean:
	rm -rf $(VENV) out
