%% The official MCP conformance suite (npm `@modelcontextprotocol/conformance',
%% pinned in test/conformance/package.json, run by the Node 22 installed
%% beside it) against bin/mcp-gen, driven by test/conformance/client. Each
%% scenario here must pass outright: the suite exits 0, and every check in
%% its checks.json is SUCCESS or INFO (a WARNING, FAILURE or SKIPPED fails
%% the test). The other client scenarios and why they do not pass:
%% docs/conformance.md.
-module(mcp_cli_conformance_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SUITE, "test/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js").
-define(NODE, "test/conformance/node_modules/.bin/node").
%% A hang guard, not a timed assertion.
-define(HANG_GUARD_MS, 180000).

initialize_test_() -> scenario("initialize").
tools_call_test_() -> scenario("tools_call").
sse_retry_test_() -> scenario("sse-retry").

scenario(Name) ->
    {timeout, ?HANG_GUARD_MS div 1000, {Name, fun() -> passes(Name) end}}.

passes(Name) ->
    Out = filename:join(out_root(), Name),
    _ = file:del_dir_r(Out),
    {Status, Log} = run_suite(Name, Out),
    Checks = checks(Out),
    Verdicts = [{Id, Verdict} || {Id, Verdict} <- Checks, Verdict =/= <<"SUCCESS">>, Verdict =/= <<"INFO">>],
    ?assertEqual({Name, 0, []}, {Name, Status, Verdicts}),
    ?assert(lists:keymember(<<"SUCCESS">>, 2, Checks)),
    ?assertEqual(nomatch, binary:match(Log, <<"WARNING">>)).

out_root() ->
    filename:join(filename:basedir(user_cache, "mcp-conformance"), os:getpid()).

installed(Relative) ->
    case filelib:is_regular(Relative) of
        true -> filename:absname(Relative);
        false -> error({conformance_suite_not_installed, Relative, "run scripts/ensure-deps.sh test"})
    end.

run_suite(Name, Out) ->
    Lib = filename:dirname(code:lib_dir(mcp)),
    Port = open_port({spawn_executable, installed(?NODE)},
                     [{args, [installed(?SUITE), "client", "--command", installed("test/conformance/client"),
                              "--scenario", Name, "-o", Out]},
                      {env, [{"MCP_GEN_LIB", Lib}]},
                      binary, exit_status, use_stdio, stderr_to_stdout, hide]),
    collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Bytes}} -> collect(Port, [Acc, Bytes]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(Acc)}
    after ?HANG_GUARD_MS ->
        error({conformance_suite_did_not_exit, iolist_to_binary(Acc)})
    end.

%% `{Id, Status}' of every check the run wrote (one directory per run).
checks(Out) ->
    [Path] = filelib:wildcard(filename:join([Out, "*", "checks.json"])),
    {ok, Bytes} = file:read_file(Path),
    {ok, {array, Items}} = mcp_json:decode(Bytes),
    [{Id, Status} || {object, Members} <- Items,
                     {string, Id} <- [proplists:get_value(<<"id">>, Members)],
                     {string, Status} <- [proplists:get_value(<<"status">>, Members)]].
