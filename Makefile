# The two set-up commands of README.md: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
REFERENCE ?= ../shared/reference
export STRATA_SCHEMA_STORE ?= $(CURDIR)/.tools/schemas
# The CRD sets the built-in packs' output needs (pack.yaml `crds`). The DRA driver ships its
# own copy of the ComputeDomain CRD; the GPU Operator's copy is the one imported here.
CRD_SETS := karpenter-1.14.1 gpu-operator-26.7.0 argo-workflows-4.1.2 kuberay-1.7.0

.PHONY: demo test install tools schemas clean

demo: install tools schemas
	$(BIN)/strata render -f values/realistic.yaml -o out/realistic
	$(BIN)/strata validate out/realistic

test: install tools
	$(BIN)/python -m pytest -q

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]' hatchling
	touch $@

tools:
	scripts/install-tools.sh

schemas: install
	$(BIN)/strata schemas import $(addprefix $(REFERENCE)/crds/,$(CRD_SETS))

clean:
	rm -rf $(VENV) out
