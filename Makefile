# The two commands: `make run` (the end-to-end tour) and `make test` (every test).
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT ?= swift

.PHONY: run strata-full test api-check api-baseline fuzz-sync fuzz-serve simulate format format-check docs bench bench-lmdb-open bench-scale bench-migration bench-postgres bench-peers bench-sync bench-files bench-copy bench-aggregate bench-stream bench-values bench-search roundtrip bootstrap bootstrap-postgresql clean

bootstrap:
	@scripts/bootstrap

# What the tests and the PostgreSQL benchmarks need besides: a PostgreSQL server to start.
bootstrap-postgresql:
	@scripts/bootstrap --with-postgresql

# `strata` is built from the embedded backends only (no NIO, TLS or conformance suite), so that a
# fresh clone's first command is quick; `strata-full` adds PostgreSQL, `serve` and `checks`, and
# `strata` runs it for those when it is built beside it (`make test` builds both).
run: bootstrap
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --product strata
	.build/debug/strata demo

strata-full: bootstrap
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --product strata-full

# The PostgreSQL backend's tests run against a throwaway cluster started here and stopped
# however the tests end (STRATA_POSTGRES_URL tells them where it is).
# Warnings are errors in the package's own targets (Package.swift's strictSettings, when
# STRATA_WARNINGS_AS_ERRORS is set, as `make run` sets it too, so the two share one build);
# dependencies build as they are.
# The README's conformance runner (ReadmeTests.conformance(), verbatim from the README) registers
# SQLite under another scheme; SQLite's own conformance test runs the whole suite on it, so the
# runner runs, as the README shows, with STRATA_CHECKS: the categories that open, reopen and
# dispose of stores through its closures. It runs beside the rest, in a process of its own.
README_RUNNER_CHECKS = CRUD/,Values/,Relationships/,DeleteRules/,Atomicity/,History/,Faults/,Files/
# At most TEST_WIDTH tests (Swift Testing's test functions) run at once. Each conformance suite runs
# its own checks in parallel besides; started all at once (Swift Testing's default), the 357 tests
# took 1,054 s and 1,700 CPU-seconds on the 2-core machine, two at a time 603 s and 923: tests that
# poll, spin or wait on a deadline burn CPU while they wait for the others.
TEST_WIDTH ?= 2
RUNNER_TEST = ReadmeTests\.conformance\(\)
test: bootstrap-postgresql
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --build-tests
	@dir=$$(mktemp -d /tmp/strata-pg-XXXXXX); chmod 755 $$dir; log=$$(mktemp /tmp/strata-runner-XXXXXX.log); \
	trap 'scripts/postgres stop $$dir >/dev/null 2>&1 || true; rm -f $$log' EXIT; \
	url=$$(scripts/postgres start $$dir) || { echo "make test: could not start PostgreSQL" >&2; exit 1; }; \
	bin=$$($(SWIFT) build --show-bin-path); \
	STRATA_CHECKS='$(README_RUNNER_CHECKS)' $$bin/StrataPackageTests.xctest \
		--testing-library swift-testing --filter '$(RUNNER_TEST)' >$$log 2>&1 & runner=$$!; \
	STRATA_WARNINGS_AS_ERRORS=1 STRATA_POSTGRES_URL=$$url $(SWIFT) test --skip-build --disable-xctest \
		--experimental-maximum-parallelization-width $(TEST_WIDTH) --skip '$(RUNNER_TEST)'; status=$$?; \
	wait $$runner; runner_status=$$?; \
	echo "README's conformance runner (STRATA_CHECKS=$(README_RUNNER_CHECKS)):"; cat $$log; \
	test $$status -eq 0 && test $$runner_status -eq 0

# The public API against the last release's (api/baseline): a breaking change fails unless
# CHANGELOG.md's Unreleased section quotes it (CONTRIBUTING.md, "Versions and the changelog").
# Run after `make test`, whose build it reuses. `make api-baseline` writes the baseline of the
# release api/BASELINE names.
api-check: bootstrap
	scripts/api-check

api-baseline: bootstrap
	scripts/api-check --baseline

# The sync request fuzzer at length (the Adversary category's fuzzer, 100,000 requests per run):
# in process on SQLite and on PostgreSQL (a throwaway server), and over loopback HTTP on SQLite.
# STRATA_FUZZ_SEED picks the seed; `make test` runs 5,000 per backend.
FUZZ_REQUESTS ?= 100000
fuzz-sync: bootstrap-postgresql
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --build-tests
	STRATA_FUZZ_REQUESTS=$(FUZZ_REQUESTS) STRATA_CONFORMANCE_DEADLINE=7200 \
		STRATA_CHECKS='Adversary/aSeededRequestFuzzer' scripts/with-postgres $(SWIFT) test --skip-build \
		--disable-xctest --filter 'SQLiteConformanceTests|PostgresConformanceTests|HTTPTransportConformanceTests'

# The request fuzzer against `strata serve` processes (SQLite, and PostgreSQL on a throwaway server),
# 100,000 requests each, then a minute of another identity's pulls timed while one fuzzes at its
# rate limit (p50/p99 printed). `make test` runs 400 requests per backend and 3 s of timing.
SERVE_FUZZ_REQUESTS ?= 100000
fuzz-serve: bootstrap-postgresql
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --build-tests
	STRATA_SERVE_FUZZ_REQUESTS=$(SERVE_FUZZ_REQUESTS) STRATA_SERVE_LATENCY_SECONDS=60 \
		scripts/with-postgres $(SWIFT) test --skip-build --disable-xctest --filter 'ServeFuzzTests'

# The sync simulation at length: 10,000 seeds of 200 steps with faults over mixed backends (the
# server's store on SQLite and on PostgreSQL, a throwaway server; the clients' on SQLite, LMDB and
# the JSON file), and the suite's Simulation category on every backend with 100 seeds each. Prints
# one score line per run, which the README's sync section quotes. `make test` runs 8 mixed seeds
# per server and 16 per backend (STRATA_SIMULATION_SEEDS); a failing seed prints its replay.
SIMULATION_SEEDS ?= 10000
simulate: bootstrap-postgresql
	STRATA_WARNINGS_AS_ERRORS=1 $(SWIFT) build --build-tests
	STRATA_SIMULATION_MIXED_SEEDS=$(SIMULATION_SEEDS) STRATA_CONFORMANCE_DEADLINE=36000 \
		scripts/with-postgres $(SWIFT) test --skip-build --disable-xctest --filter 'SimulationRunTests'
	STRATA_SIMULATION_SEEDS=100 STRATA_CHECKS='Simulation/' STRATA_CONFORMANCE_DEADLINE=7200 \
		scripts/with-postgres $(SWIFT) test --skip-build --disable-xctest \
		--filter 'InMemoryConformanceTests|SQLiteConformanceTests|LMDBConformanceTests|JSONFileConformanceTests|PostgresConformanceTests'

# Formatting: swift-format (shipped with the toolchain) at 120 columns, configured by .swift-format.
# `make format` rewrites; `make format-check` (run by .ci/run) fails on any difference. The README's
# and DocC's samples (Tests/ReadmeTests/Samples) are held verbatim and opt out per file.
FORMATTED = Package.swift Sources Backends Tests Examples Benchmarks/Sources Benchmarks/Package.swift

format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

format-check:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)

# The DocC catalogs (Sources/*/*.docc), built by swift-docc-plugin: any DocC
# warning (a broken link, an undocumented parameter) fails it; then every public symbol of every
# library module must have a doc comment (scripts/doc-coverage lists those that do not).
LIBRARY_MODULES = StrataStorage Strata StrataMacros StrataSync StrataSyncServer StrataTools StrataInMemory StrataSQLite StrataLMDB StrataJSONFile StrataPostgres StrataConformance StrataSyncHTTPServer StrataSyncHTTPClient
DOCC_MODULES = StrataStorage Strata StrataMacros StrataSync StrataSyncServer StrataTools StrataConformance StrataSQLite StrataLMDB StrataJSONFile StrataPostgres StrataInMemory
docs: bootstrap
	@for module in $(DOCC_MODULES); do \
		$(SWIFT) package --disable-sandbox generate-documentation --target $$module --warnings-as-errors || exit 1; \
		echo "documentation: .build/plugins/Swift-DocC/outputs/$$module.doccarchive"; \
	done
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	@for module in $(LIBRARY_MODULES); do \
		scripts/doc-coverage .build/x86_64-unknown-linux-gnu/symbolgraph/$$module.symbols.json || exit 1; \
	done

bench: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataRatios
	cd Benchmarks && $(SWIFT) run -c release StrataObservation
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

bench-migration: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataMigration

# PostgreSQL beside raw postgres-nio, on a throwaway server started and stopped here.
bench-postgres: bootstrap-postgresql
	cd Benchmarks && $(SWIFT) build -c release --product StrataPostgresBench
	@dir=$$(mktemp -d /tmp/strata-pg-XXXXXX); chmod 755 $$dir; \
	trap 'scripts/postgres stop $$dir >/dev/null 2>&1 || true' EXIT; \
	url=$$(scripts/postgres start $$dir) || exit 1; \
	STRATA_POSTGRES_URL=$$url Benchmarks/.build/release/StrataPostgresBench

# Full-text search: indexing cost on SQLite, LMDB and PostgreSQL, and the top 20 of a two-term query
# over 1M documents (STRATA_SEARCH_DOCS) beside raw FTS5 through GRDB, on a throwaway server.
bench-search: bootstrap-postgresql
	cd Benchmarks && $(SWIFT) build -c release --product StrataSearchBench
	@dir=$$(mktemp -d /tmp/strata-pg-XXXXXX); chmod 755 $$dir; \
	trap 'scripts/postgres stop $$dir >/dev/null 2>&1 || true' EXIT; \
	url=$$(scripts/postgres start $$dir) || exit 1; \
	STRATA_POSTGRES_URL=$$url Benchmarks/.build/release/StrataSearchBench

# The peer table: SQLite beside GRDB's records and FluentKit, PostgreSQL beside FluentKit on a throwaway server.
bench-peers: bootstrap-postgresql
	cd Benchmarks && $(SWIFT) build -c release --product StrataPeers
	@dir=$$(mktemp -d /tmp/strata-pg-XXXXXX); chmod 755 $$dir; \
	trap 'scripts/postgres stop $$dir >/dev/null 2>&1 || true' EXIT; \
	url=$$(scripts/postgres start $$dir) || exit 1; \
	STRATA_POSTGRES_URL=$$url Benchmarks/.build/release/StrataPeers

# Sync over loopback HTTP beside the in-process transport: drain, pull, initial syncs (the change feed, a subscription), long-poll wake latency.
bench-sync: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataSyncHTTPBench

bench-files: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataFileBench

# `strata copy` of 1M records SQLite → LMDB beside a raw copy: records/s and peak RSS (STRATA_COPY_RECORDS).
# Aggregates pushed down to SQLite beside the same GROUP BY through GRDB, and the engine's.
bench-aggregate: bootstrap
	cd Benchmarks && $(SWIFT) build -c release --product StrataAggregateBench && .build/release/StrataAggregateBench

# A save of 100k records with a decimal and a 5-element array beside the same save with a double
# and a text, on memory, SQLite and LMDB (STRATA_VALUES_RECORDS).
bench-values: bootstrap
	cd Benchmarks && $(SWIFT) build -c release --product StrataValuesBench && .build/release/StrataValuesBench

bench-copy: bootstrap
	cd Benchmarks && $(SWIFT) build -c release --product StrataCopyBench && .build/release/StrataCopyBench

# A store of 1M records (STRATA_ROUNDTRIP_RECORDS) imported into SQLite, copied SQLite → LMDB →
# JSON file → SQLite by a release build of the tool, compared by digests (make test runs the same
# test at 20,000 records with the debug build).
roundtrip: bootstrap
	$(SWIFT) build -c release --product strata
	$(SWIFT) build --build-tests
	STRATA_TOOL=$$(pwd)/.build/release/strata STRATA_ROUNDTRIP_RECORDS=$${STRATA_ROUNDTRIP_RECORDS:-1000000} \
		$(SWIFT) test --skip-build --disable-xctest --filter RoundTripTests

# A streamed read of 1M records (STRATA_STREAM_RECORDS) beside one array: time and peak memory on
# SQLite, LMDB and PostgreSQL (a throwaway server started and stopped here).
bench-stream: bootstrap-postgresql
	cd Benchmarks && $(SWIFT) build -c release --product StrataStreamBench
	@dir=$$(mktemp -d /tmp/strata-pg-XXXXXX); chmod 755 $$dir; \
	trap 'scripts/postgres stop $$dir >/dev/null 2>&1 || true' EXIT; \
	url=$$(scripts/postgres start $$dir) || exit 1; \
	STRATA_POSTGRES_URL=$$url Benchmarks/.build/release/StrataStreamBench

# What the LMDB backend's default structural walk costs at open, on a store of 1M records (STRATA_OPEN_RECORDS).
bench-lmdb-open: bootstrap
	cd Benchmarks && $(SWIFT) build -c release --product StrataLMDBOpenBench && .build/release/StrataLMDBOpenBench

bench-scale: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataScale

clean:
	rm -rf .build Benchmarks/.build
