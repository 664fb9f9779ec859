%% The official MCP conformance suite (npm `@modelcontextprotocol/conformance',
%% pinned in test/conformance/package.json, run by the Node 22 installed
%% beside it) against bin/mcp-gen, driven by test/conformance/client. Each
%% scenario here runs at a revision (`--spec-version') and must pass
%% outright: the suite exits 0, and every check in its checks.json is
%% SUCCESS or INFO (a WARNING or FAILURE fails the test), or SKIPPED and
%% named, with its reason, in `accepted_skips/1' (a skip not listed fails
%% the test, and so does a listed one that no longer happens). The other
%% client scenarios and why they do not pass: docs/conformance.md.
-module(mcp_cli_conformance_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SUITE, "test/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js").
-define(NODE, "test/conformance/node_modules/.bin/node").
%% A hang guard, not a timed assertion.
-define(HANG_GUARD_MS, 180000).

-define(V2025, "2025-11-25").
-define(V2026, "2026-07-28").

%% The non-authorization client scenarios of the suite's
%% requirements/2025-11-25.yaml and requirements/2026-07-28.yaml.
initialize_test_() -> scenario("initialize", ?V2025).
tools_call_2025_test_() -> scenario("tools_call", ?V2025).
sse_retry_test_() -> scenario("sse-retry", ?V2025).
elicitation_defaults_test_() -> scenario("elicitation-sep1034-client-defaults", ?V2025).
schema_preservation_2025_test_() -> scenario("json-schema-2020-12-preservation", ?V2025).
tools_call_2026_test_() -> scenario("tools_call", ?V2026).
request_metadata_test_() -> scenario("request-metadata", ?V2026).
request_state_test_() -> scenario("sep-2322-client-request-state", ?V2026).
standard_headers_test_() -> scenario("http-standard-headers", ?V2026).
custom_headers_test_() -> scenario("http-custom-headers", ?V2026).
invalid_tool_headers_test_() -> scenario("http-invalid-tool-headers", ?V2026).
schema_ref_test_() -> scenario("json-schema-ref-no-deref", ?V2026).
schema_preservation_2026_test_() -> scenario("json-schema-2020-12-preservation", ?V2026).

%% Authorization (docs/authorization.md), driven by
%% test/conformance/auth-client: every auth/* scenario of 2025-11-25 and
%% 2025-03-26, and the authorization extensions' scenarios (run at no
%% particular revision: "any"): client credentials (two), DPoP (with and
%% without nonces), workload identity (the JWT-bearer grant) and
%% enterprise-managed authorization (token exchange, then JWT-bearer).
authorization_test_() ->
    [scenario(Name, ?V2025) || Name <- ["auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2",
                                        "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
                                        "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
                                        "auth/scope-step-up", "auth/scope-retry-limit",
                                        "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
                                        "auth/token-endpoint-auth-none", "auth/pre-registration"]]
    ++ [scenario(Name, "2025-03-26") || Name <- ["auth/2025-03-26-oauth-metadata-backcompat",
                                                 "auth/2025-03-26-oauth-endpoint-fallback"]]
    ++ [scenario(Name, "any") || Name <- ["auth/client-credentials-basic", "auth/client-credentials-jwt",
                                          "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
                                          "auth/enterprise-managed-authorization"]].

%% The authorization scenarios of 2026-07-28, in the auto era: those whose
%% pass is a refusal made before any token is used (a resource, issuer or
%% `iss' that does not match), and those that go on to list the tools.
authorization_2026_test_() ->
    [scenario(Name, ?V2026) || Name <- ["auth/resource-mismatch", "auth/metadata-issuer-mismatch",
                                        "auth/iss-supported-missing", "auth/iss-wrong-issuer",
                                        "auth/iss-unexpected", "auth/iss-normalized",
                                        "auth/offline-access-scope", "auth/offline-access-not-supported",
                                        "auth/iss-supported", "auth/iss-not-advertised",
                                        "auth/authorization-server-migration"]].

%% SKIPPED checks accepted, by description, each for a method or a
%% capability the client deliberately does not use.
accepted_skips("request-metadata") ->
    %% The client declares neither roots nor sampling (only elicitation,
    %% with --elicit defaults).
    [<<"Client declares valid roots capability if present">>,
     <<"Client declares valid sampling capability if present">>];
accepted_skips("http-standard-headers") ->
    %% In the 2026-07-28 era there is no initialize or initialized, and
    %% the client sends no resources or prompts requests.
    [<<"Client sends correct Mcp-Method header on initialize request">>,
     <<"Client sends correct Mcp-Method header on notifications/initialized request">>,
     <<"Client sends correct Mcp-Method header on resources/list request">>,
     <<"Client sends correct Mcp-Method header on resources/read request">>,
     <<"Client sends correct Mcp-Method header on prompts/list request">>,
     <<"Client sends correct Mcp-Method header on prompts/get request">>,
     <<"Client sends correct Mcp-Name header on resources/read request">>,
     <<"Client sends correct Mcp-Name header on prompts/get request">>];
accepted_skips(_) ->
    [].

scenario(Name, Version) ->
    {timeout, ?HANG_GUARD_MS div 1000, {Name ++ " at " ++ Version, fun() -> passes(Name, Version) end}}.

passes(Name, Version) ->
    Out = filename:join(out_root(), lists:flatten(string:replace(Name, "/", "_", all)) ++ "-" ++ Version),
    _ = file:del_dir_r(Out),
    {Status, Log} = run_suite(Name, Version, Out),
    Checks = checks(Out),
    Skipped = lists:sort([Description || {_, <<"SKIPPED">>, Description} <- Checks]),
    ?assertEqual({Name, lists:sort(accepted_skips(Name))}, {Name, Skipped}),
    Verdicts = [{Id, Verdict} || {Id, Verdict, _} <- Checks, not lists:member(Verdict, [<<"SUCCESS">>, <<"INFO">>, <<"SKIPPED">>])],
    ?assertEqual({Name, 0, []}, {Name, Status, Verdicts}),
    ?assert(lists:keymember(<<"SUCCESS">>, 2, Checks)),
    ?assertEqual(nomatch, binary:match(Log, <<"WARNING">>)),
    recorded(result_row(Name, Version, Checks)).

%% The run's counts as a row of docs/conformance.md's table of `make test'
%% results: the table is this run's, row for row (a row that differs fails
%% the test; `MCP_CONFORMANCE_REGENERATE=1' writes the run's rows instead).
result_row(Name, Version, Checks) ->
    Count = fun(Status) -> length([S || {_, S, _} <- Checks, S =:= Status]) end,
    Skipped = case Count(<<"SKIPPED">>) of
                  0 -> "";
                  N -> io_lib:format(", ~b skipped", [N])
              end,
    iolist_to_binary(io_lib:format("| `~ts` | ~ts | ~b/~b~ts |",
                                   [Name, Version, Count(<<"SUCCESS">>),
                                    length(Checks) - Count(<<"SKIPPED">>) - Count(<<"INFO">>), Skipped])).

-define(RESULTS, "docs/conformance.md").
-define(BEGIN, <<"<!-- the rows below are written by cli/test/mcp_cli_conformance_tests.erl -->\n">>).
-define(END, <<"<!-- end of the rows written by the tests -->\n">>).

recorded(Row) ->
    {ok, Doc} = file:read_file(?RESULTS),
    [Before, Rest] = binary:split(Doc, ?BEGIN),
    [Table, After] = binary:split(Rest, ?END),
    Rows = [R || R <- binary:split(Table, <<"\n">>, [global]), R =/= <<>>],
    [Key | _] = binary:split(Row, <<" | ">>, [global]),
    Version = lists:nth(2, binary:split(Row, <<" | ">>, [global])),
    Same = fun(R) -> case binary:split(R, <<" | ">>, [global]) of
                         [Key, Version | _] -> true;
                         _ -> false
                     end
           end,
    case os:getenv("MCP_CONFORMANCE_REGENERATE") of
        "1" ->
            Kept = lists:sort([Row | [R || R <- Rows, not Same(R)]]),
            ok = file:write_file(?RESULTS, [Before, ?BEGIN, [[R, $\n] || R <- Kept], ?END, After]);
        _ ->
            ?assertEqual([Row], [R || R <- Rows, Same(R)])
    end.

out_root() ->
    filename:join(filename:basedir(user_cache, "mcp-conformance"), os:getpid()).

installed(Relative) ->
    case filelib:is_regular(Relative) of
        true -> filename:absname(Relative);
        false -> error({conformance_suite_not_installed, Relative, "run scripts/ensure-deps.sh test"})
    end.

run_suite(Name, Version, Out) ->
    Lib = filename:dirname(code:lib_dir(mcp)),
    Port = open_port({spawn_executable, installed(?NODE)},
                     [{args, [installed(?SUITE), "client", "--command", installed("test/conformance/client"),
                              "--scenario", Name | spec_version(Version)] ++ ["-o", Out]},
                      {env, [{"MCP_GEN_LIB", Lib}]},
                      binary, exit_status, use_stdio, stderr_to_stdout, hide]),
    collect(Port, []).

spec_version("any") -> [];
spec_version(Version) -> ["--spec-version", Version].

collect(Port, Acc) ->
    receive
        {Port, {data, Bytes}} -> collect(Port, [Acc, Bytes]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(Acc)}
    after ?HANG_GUARD_MS ->
        error({conformance_suite_did_not_exit, iolist_to_binary(Acc)})
    end.

%% `{Id, Status, Description}' of every check the run wrote (one directory per run).
checks(Out) ->
    %% `auth/NAME' runs write under `Out/auth/'.
    [Path] = filelib:wildcard(filename:join([Out, "*", "checks.json"]))
        ++ filelib:wildcard(filename:join([Out, "*", "*", "checks.json"])),
    {ok, Bytes} = file:read_file(Path),
    {ok, {array, Items}} = mcp_json:decode(Bytes),
    [{Id, Status, Description} || {object, Members} <- Items,
                                  {string, Id} <- [proplists:get_value(<<"id">>, Members)],
                                  {string, Status} <- [proplists:get_value(<<"status">>, Members)],
                                  {string, Description} <- [proplists:get_value(<<"description">>, Members, {string, <<>>})]].
