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

%% Authorization (docs/authorization.md): every auth/* scenario of the
%% 2025-11-25 and 2025-03-26 revisions, and the client-credentials
%% extension's two, driven by test/conformance/auth-client.
authorization_test_() ->
    [scenario(Name) || Name <- ["auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2",
                                "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
                                "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
                                "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
                                "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
                                "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
                                "auth/2025-03-26-oauth-endpoint-fallback", "auth/client-credentials-basic",
                                "auth/client-credentials-jwt"]].

%% The 2026-07-28 authorization scenarios whose pass is a refusal made
%% before any token is used: a resource, issuer or `iss' that does not match.
authorization_refusals_test_() ->
    [scenario(Name) || Name <- ["auth/resource-mismatch", "auth/metadata-issuer-mismatch", "auth/iss-supported-missing",
                                "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized"]].

scenario(Name) ->
    {timeout, ?HANG_GUARD_MS div 1000, {Name, fun() -> passes(Name) end}}.

passes(Name) ->
    Out = filename:join(out_root(), lists:flatten(string:replace(Name, "/", "_", all))),
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
    %% `auth/NAME' runs write under `Out/auth/'.
    [Path] = filelib:wildcard(filename:join([Out, "*", "checks.json"]))
        ++ filelib:wildcard(filename:join([Out, "*", "*", "checks.json"])),
    {ok, Bytes} = file:read_file(Path),
    {ok, {array, Items}} = mcp_json:decode(Bytes),
    [{Id, Status} || {object, Members} <- Items,
                     {string, Id} <- [proplists:get_value(<<"id">>, Members)],
                     {string, Status} <- [proplists:get_value(<<"status">>, Members)]].
