# The two commands a newcomer runs: `make test` and `make run`.
# Both install what is missing first (scripts/ensure-deps.sh).

.PHONY: test run bench deps compile

deps:
	sh scripts/ensure-deps.sh test

compile: deps
	rebar3 compile

## Every test suite: the pure Rust core, then EUnit/PropEr through the NIF.
test: deps
	cargo test --release -p mcp_core
	rebar3 eunit

## The main job.
run: deps
	rebar3 compile
	erl -noshell -pa _build/default/lib/mcp/ebin -eval 'io:format("mcp_nif ~s loaded~n", [mcp_nif:nif_version()]), halt().'
