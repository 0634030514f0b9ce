# streamsql developer and CI entry points. `make help` lists the targets.

GO             ?= go
FUZZTIME       ?= 60s
ORACLE_CASES   ?= 20000
TOOLS_BIN      := $(CURDIR)/.tools/bin
GOLANGCI_VERSION := v2.15.0
GOLANGCI_LINT  := $(TOOLS_BIN)/golangci-lint
# Packages whose datadriven golden files `make rewrite` regenerates.
REWRITE_PKGS   ?= ./parser/... ./catalog/... ./planner/... ./docs

.DEFAULT_GOAL := build

.PHONY: help build test vet lint fmt-check golangci-lint rewrite fuzz bench bench-latency bench-scale bench-go tidy-check oracle crash

help: ## List targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

build: ## Build the streamsql binary into ./streamsql.
	$(GO) build -o streamsql ./cmd/streamsql

test: ## Run every test once (no cache), then go vet.
	$(GO) test -count=1 ./...
	$(GO) vet ./...
	@# go test hides a passing package's output: say it here when the
	@# PostgreSQL oracle was skipped for want of a database.
	@$(GO) test -count=1 -run '^TestOracle$$' -v ./oracle -args -oracle.probe 2>&1 | grep -E '^[*]{3}' || true

vet: ## go vet only.
	$(GO) vet ./...

# Both checks always run, so one report shows every finding; either failing fails lint.
lint: $(GOLANGCI_LINT) ## golangci-lint (pinned, see .golangci.yml) and a gofmt -l check.
	@rc=0; \
	$(GOLANGCI_LINT) run ./... || rc=1; \
	$(MAKE) --no-print-directory fmt-check || rc=1; \
	exit $$rc

fmt-check: ## Fail if any Go file is not gofmt-formatted.
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then \
		echo "gofmt: these files need formatting (run gofmt -w):"; echo "$$out"; exit 1; fi

# Installed from the Go module proxy into ./.tools/bin; reinstalled when the
# binary is missing or reports a version other than the pinned one.
$(GOLANGCI_LINT): FORCE
	@if [ "$$($(GOLANGCI_LINT) version --short 2>/dev/null)" != "$(GOLANGCI_VERSION:v%=%)" ]; then \
		echo "installing golangci-lint $(GOLANGCI_VERSION) into $(TOOLS_BIN)"; \
		GOBIN=$(TOOLS_BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION); \
	fi

golangci-lint: $(GOLANGCI_LINT) ## Install the pinned golangci-lint only.

rewrite: ## Regenerate datadriven golden files (-rewrite); review the diff like code.
	$(GO) test -count=1 $(REWRITE_PKGS) -args -rewrite

# The PostgreSQL oracle (oracle/doc.go): `make test` runs a short fixed set of
# its cases; this runs ORACLE_CASES from a fresh seed (printed, reusable with
# -oracle.seed). Needs PostgreSQL at 127.0.0.1:5432 (or ORACLE_PG).
# The fault-injection tests (cmd/streamsql/crash_test.go and crashmore_test.go:
# files; kafkacrash_test.go: Kafka exactly-once and upsert-kafka) with
# CRASH_KILLS SIGKILLs each, per scenario, at random moments (make test runs 4
# and 2).
CRASH_KILLS    ?= 20
crash: ## Kill checkpointed jobs CRASH_KILLS (20) times per scenario at random; their output must be the clean run's.
	STREAMSQL_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -count=1 -timeout 0 -v -run 'TestCrashResumeExactlyOnce$$|TestCrashScenarios$$|TestKafkaExactlyOnceCrash$$|TestUpsertKafkaCrash$$' ./cmd/streamsql

oracle: ## Compare streamsql with PostgreSQL on ORACLE_CASES (20000) random queries.
	ORACLE_CASES=$(ORACLE_CASES) $(GO) test -count=1 -timeout 0 -v -run 'TestOracle$$' ./oracle

# Every `func FuzzXxx` in a test file of the module is a target: the front
# end (planner), the row decoders and encoders (format, the filesystem
# source's framing), eval, state. Each runs for FUZZTIME, one after the
# other; FUZZ=REGEXP picks targets by name (`make fuzz FUZZ=CSV`), and
# FUZZFLAGS adds flags (`FUZZFLAGS=-parallel=1` on a shared machine). No test
# timeout: go test's default (10m) would kill a FUZZTIME=10m run. A
# failing input lands in the package's testdata/fuzz/, which `make test` runs.
FUZZ           ?= .
FUZZFLAGS      ?=
fuzz: ## Run every fuzz target for FUZZTIME each (default 60s); FUZZ=REGEXP picks some.
	@set -e; targets="$$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . \
		| sed 's|^\./||; s|/[^/]*:func | |' | grep -E " [^ ]*($(FUZZ))" | sort)"; \
	if [ -z "$$targets" ]; then echo "fuzz: no target matches FUZZ=$(FUZZ)"; exit 1; fi; \
	echo "$$targets" | while read -r dir name; do \
		echo "== fuzz ./$$dir $$name for $(FUZZTIME)"; \
		$(GO) test ./$$dir -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s -timeout=0 $(FUZZFLAGS); \
	done

# End to end: builds streamsql, generates the input files, runs each query
# through `streamsql run` (BENCH_RUNS times, median) and prints a Markdown
# table; the JSON goes to bench/results/latest.json. Sizes and the rest come
# from BENCH_* variables (see bench/main.go), e.g. `make bench BENCH_EVENTS=1000000`.
bench: ## End-to-end benchmarks (Nexmark q0 q3 q8 q9 q20, orders ⋈ shipments, --http's cost): table on stdout, JSON in bench/results/.
	$(GO) run ./bench

bench-latency: ## End-to-end latency through the development Kafka broker at fixed rates (BENCH_LAT_* in bench/latency.go).
	$(GO) run ./bench latency

# The scaling table of issue #18: the 4-hour interval join and the regular
# join of orders ⋈ shipments at 1M, 4M and 10M keys (BENCH_SCALE_KEYS), added
# to whatever BENCH_QUERIES selects (nothing else by default here). It makes
# ~2.3 GB of input under bench/results/data and runs for tens of minutes.
bench-scale: ## The scaling table: 4-hour interval join and regular join at 1M, 4M, 10M keys (long; see docs/performance.md).
	BENCH_SCALE=1 BENCH_QUERIES=$${BENCH_QUERIES:-none} $(GO) run ./bench

bench-go: ## Go micro-benchmarks of every package, with allocation counts.
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# `go mod tidy -diff` prints what tidy would change and fails without touching
# go.mod/go.sum (a plain `go mod tidy` here would rewrite files other people
# may be editing). The git diff then fails on uncommitted go.mod/go.sum edits,
# so on a clean CI checkout this is exactly "tidy leaves the tree clean".
tidy-check: ## Fail if go.mod/go.sum are not tidy or not committed.
	$(GO) mod tidy -diff
	git diff --exit-code -- go.mod go.sum

.PHONY: FORCE
FORCE:
