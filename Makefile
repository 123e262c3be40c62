# Every target creates .venv and installs the project on first use, so a fresh
# clone needs nothing but python3 (>= 3.10) with venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
STACK ?= dev

.PHONY: install plan lint format test docs docs-site clean scan

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(STAMP)

## make plan [STACK=prod]: the offline plan of a stack (no cloud account, no Pulumi CLI)
plan: $(STAMP)
	$(BIN)/mlplatform plan $(STACK)

## make lint: ruff (lint and format check) and the architecture's import contracts (import-linter)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

## make format: apply ruff's fixes and formatting
format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## make test: lint, then the whole test suite
test: lint
	$(BIN)/python -m pytest -q -n 2

## make test-core: the core tier alone (tests/core, marker `core`), in a process where Pulumi and the tooling cannot
## be imported (tests/tiers_blocker): the functional core's tests need neither (docs/development.md, "Test tiers")
.PHONY: test-core
test-core: $(STAMP)
	PYTHONPATH=tests/tiers_blocker $(BIN)/python -m pytest -q -n 2 -m core tests/core

## make rehearse: the deploy rehearsal: moto's server on loopback (AWS's managed policies loaded) and every AWS
## resource of every shipped stack, example and partition variant replayed through boto3 (docs/rehearsal.md)
.PHONY: rehearse
rehearse: $(STAMP)
	$(BIN)/python -m pytest -q -m rehearse -n 2 tests/rehearse

## make test-scheduler: `place` against a real kube-apiserver and kube-scheduler v1.20 (opt-in; the first run
## builds them from Debian's kubernetes source package into KUBE_BIN_DIR, outside the repo: 6-15 min, needs root)
KUBE_BIN_DIR ?= $(HOME)/.cache/ml-platform-eks/kube-v1.20.2/bin
.PHONY: test-scheduler
test-scheduler: $(STAMP)
	scripts/build_kube.sh $(KUBE_BIN_DIR)
	KUBE_BIN_DIR=$(KUBE_BIN_DIR) $(BIN)/python -m pytest -q -m scheduler tests/scheduler

## make docs: regenerate every generated page and table (the policy rules, the add-ons) and every command output
## shown in README.md and docs/ (scripts/docs/generate_docs.py), and the data table of docs/development.md
docs: $(STAMP)
	$(BIN)/python scripts/regenerate.py --docs-only

## make generate [FETCH=1] [REF=main]: every generator, data and docs (scripts/regenerate.py): the data generators
## from the pinned upstream inputs a --fetch run cached (each one without them is listed as "needs --fetch");
## FETCH=1 downloads the pinned inputs, REF=main reads upstream's newest to refresh the data; then `make docs`
## and the data table of docs/development.md
.PHONY: generate generate-check
GENERATE_ARGS := $(if $(FETCH),--fetch,) $(if $(REF),--ref $(REF),)
generate: $(STAMP)
	$(BIN)/python scripts/regenerate.py $(GENERATE_ARGS)

## make generate-check: make generate, then fail when the committed output differs (git diff --exit-code)
generate-check: $(STAMP)
	$(BIN)/python scripts/regenerate.py --check $(GENERATE_ARGS)

## make docs-site: build the documentation site (MkDocs, Material) into site/, failing on any warning
docs-site: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

## make check: the policy pack's rules on every stack in stacks/, offline (policies/config/<stack>.json applies),
## all in one process (the SDK imports are paid once); exit code the worst stack's
.PHONY: check
check: $(STAMP)
	$(BIN)/mlplatform check --all

## make scan [STACKS="a b"]: checkov over every Kubernetes object and rendered chart of the stacks (default: every
## stack in stacks/ and the GPU examples in examples/stacks); fails on a finding scan/skips.yaml does not list with a reason. checkov gets a venv of its own.
SCAN_EXAMPLES := --config-file examples/stacks/Pulumi.training.yaml --config-file examples/stacks/Pulumi.shared-gpus.yaml
SCAN_VENV := .venv-scan
SCAN_STAMP := $(SCAN_VENV)/.installed-stamp
CHECKOV_VERSION := 3.3.30

$(SCAN_STAMP):
	$(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(SCAN_VENV)/bin/python -m pip install --quiet 'checkov==$(CHECKOV_VERSION)'
	touch $(SCAN_STAMP)

scan: $(STAMP) $(SCAN_STAMP)
	rm -rf build/scan && mkdir -p build/scan
	$(BIN)/mlplatform manifests $(if $(STACKS),$(STACKS),--all $(SCAN_EXAMPLES)) --out build/scan/manifests
	$(SCAN_VENV)/bin/checkov -d build/scan/manifests --framework kubernetes --skip-download --quiet -o json > build/scan/checkov.json || true
	$(BIN)/python scan/gate.py build/scan/checkov.json $(if $(STACKS),--allow-unused,)

clean:
	rm -rf $(VENV) $(SCAN_VENV) build site .pytest_cache .hypothesis .ruff_cache .import_linter_cache *.egg-info
