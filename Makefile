# The two commands a newcomer runs: `make test` and `make run`.
# Both install what is missing first (scripts/ensure-deps.sh).

.PHONY: test static run bench deps compile readme-check fuzz

deps:
	sh scripts/ensure-deps.sh test

compile: deps
	rebar3 compile

## Static analysis, 0 warnings: cargo clippy over the Rust workspace, xref
## and dialyzer over both OTP applications and their tests (scripts/static-checks.sh; the
## first run builds the dialyzer PLT, offline, and caches it).
static: deps
	sh scripts/static-checks.sh

## The static checks, then every test suite: the pure Rust core, EUnit/PropEr
## through the NIF, then the Gleam suites (scripts/gleam-tests.sh) when a
## Gleam compiler is available: MCP_GLEAM_HOME (an offline Gleam toolchain:
## bin/gleam, packages/, offline-deps; CI passes one) or gleam on PATH.
## Without one, the Gleam-dependent checks say loudly that they did not run;
## everything else still runs.
test: deps static
	@if [ -z "$$MCP_GLEAM_HOME" ] && ! command -v gleam >/dev/null 2>&1; then \
	  echo "*** no Gleam compiler: the gleam format oracle test is skipped (set MCP_GLEAM_HOME to an offline Gleam toolchain) ***"; \
	  MCP_GLEAM_FORMAT_CHECK=skip; export MCP_GLEAM_FORMAT_CHECK; \
	fi; cargo test --release -p mcp_core -p mcp_os
	sh scripts/eunit.sh
	sh scripts/gleam-tests.sh

## The main job: bin/mcp-gen generates the typed Gleam module of the example
## MCP server shipped in examples/ (it builds first when a source changed;
## needs only the base deps). Only the module goes to stdout, so
## `make run > example.gleam` writes a Gleam file; progress is on stderr.
## Any other stdio server: bin/mcp-gen generate -- COMMAND ARGS...
run:
	@sh scripts/ensure-deps.sh base >&2
	@sh bin/mcp-gen generate

## The README's commands on a fresh clone of this checkout's HEAD: `make test`
## there runs cli/test/mcp_cli_readme_tests.erl, which runs every other command
## of the README's quick start as written (network needed for the npm and
## PyPI test servers).
README_CHECK_DIR = /tmp/mcp-readme-check
readme-check:
	rm -rf $(README_CHECK_DIR)
	git clone -q $(CURDIR) $(README_CHECK_DIR)
	$(MAKE) -C $(README_CHECK_DIR) test

## Benchmarks (ratios against peers, measured side by side in one run), then
## the churn soak (bench/churn_bench.erl, CHURN_SECONDS, default 240), which
## runs the churn test's driver (test/mcp_churn_tests.erl) for minutes.
BENCH_OUT = bench/_build
bench:
	sh scripts/ensure-deps.sh bench
	rebar3 compile
	mkdir -p $(BENCH_OUT)
	erlc -o $(BENCH_OUT) bench/*.erl
	cargo build --release -q --example parse_ceiling -p mcp_core
	erl -noshell -pa _build/default/lib/mcp/ebin $(BENCH_OUT) -eval 'bench_payloads:write_all("$(BENCH_OUT)/payloads"), halt().'
	./target/release/examples/parse_ceiling $(BENCH_OUT)/payloads/*.json > $(BENCH_OUT)/ceiling.txt
	erl -noshell -pa _build/default/lib/mcp/ebin $(BENCH_OUT) -eval 'memory_bench:run(), client_memory_bench:run(), halt().'
	erl -noshell -pa _build/default/lib/mcp/ebin $(BENCH_OUT) -eval 'json_bench:run(["$(BENCH_OUT)/payloads", "$(BENCH_OUT)/ceiling.txt"]), sched_bench:run(), client_bench:run(["$(CURDIR)"]), http_bench:run(["$(CURDIR)"]), jail_bench:run(["$(CURDIR)"]), halt().'
	erlc -o $(BENCH_OUT) test/mcp_churn_tests.erl test/mcp_http_peer.erl test/mcp_e2e_tests.erl
	erl -noshell -pa _build/default/lib/mcp/ebin $(BENCH_OUT) -eval 'churn_bench:run(["$(CURDIR)"]), halt().'

## libFuzzer over every target of fuzz/Cargo.toml, FUZZ_SECONDS each (default
## 180), one at a time; the minimised corpora land in fuzz/corpus/<target>/,
## which `make test` replays (native/mcp_core/tests/fuzz_corpus.rs). Installs
## cargo-fuzz when missing. One target: `make fuzz TARGETS=json_parse`.
fuzz:
	sh scripts/fuzz.sh $(TARGETS)
