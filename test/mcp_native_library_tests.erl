%% A build whose NIF library is missing: the library's beams alone, in a
%% VM of their own, without priv/libmcp_nif.so. Connecting a client fails
%% with `native_library_not_loaded', whose sentence says how to build the
%% library, instead of a transport failure reporting `undef', and every
%% codec call raises one sentence naming the file and the build command.
-module(mcp_native_library_tests).

-include_lib("eunit/include/eunit.hrl").

%% A hang guard, not a timed assertion.
-define(HANG_GUARD_MS, 60000).

connect_without_the_native_library_says_how_to_build_it_test_() ->
    {timeout, 120, fun connect_without_the_native_library_says_how_to_build_it/0}.

connect_without_the_native_library_says_how_to_build_it() ->
    Lib = filename:join(temp_dir(), "mcp"),
    ok = copy_ebin(filename:dirname(code:which(mcp_client)), filename:join(Lib, "ebin")),
    ?assertNot(filelib:is_file(filename:join([Lib, "priv", "libmcp_nif.so"]))),
    Script = "{ok, C} = mcp_client:prepare(#{executable => \"/bin/cat\"}, #{}),"
             " {error, E} = mcp_client:connect(C),"
             " io:format(\"~p~n~ts~n\", [E, mcp_describe:start_error(E)]),"
             " [try mcp_json:decode(<<\"1\">>) catch error:{mcp_nif_not_loaded, S} -> io:format(\"raised: ~ts~n\", [S]) end"
             "  || _ <- [1, 2]], halt().",
    Output = run_erl(["-noshell", "-pa", filename:join(Lib, "ebin"), "-eval", Script]),
    ?assertMatch({match, _}, re:run(Output, "^\\{transport_failed,native_library_not_loaded\\}$", [multiline])),
    ?assertMatch({match, _}, re:run(Output, "^the native library of the mcp application \\(priv/libmcp_nif\\.so\\) "
                                            "is not loaded, so no server can run: build it with `rebar3 compile`",
                                    [multiline])),
    %% every call, not only the first, raises the sentence: the file tried and the build command
    {match, Raised} = re:run(Output, "^raised: (.*)$", [multiline, global, {capture, all_but_first, binary}]),
    ?assertEqual(2, length(Raised)),
    [?assertMatch({match, _}, re:run(Sentence, ["^the mcp package's native library ", Lib,
                                                "/priv/libmcp_nif\\.so did not load \\(.*\\): build it with "
                                                "`rebar3 compile` in the mcp checkout"]))
     || [Sentence] <- Raised],
    ?assertEqual(nomatch, re:run(Output, "undef|bad_transport_spec")),
    ok = file:del_dir_r(filename:dirname(Lib)).

%% The same script in this VM, where the library is loaded, connects: the
%% failure above is the missing library's, not the script's.
connect_with_the_native_library_succeeds_test() ->
    {ok, Client} = mcp_client:prepare(#{executable => "/bin/cat"}, #{handshake_timeout_ms => 200}),
    ?assertMatch({error, {handshake_failed, _}}, mcp_client:connect(Client)),
    {ok, _} = mcp_client:shutdown(Client, 5000).

copy_ebin(From, To) ->
    ok = filelib:ensure_path(To),
    lists:foreach(fun(File) -> {ok, _} = file:copy(File, filename:join(To, filename:basename(File))) end,
                  filelib:wildcard(filename:join(From, "*.{beam,app}"))).

run_erl(Args) ->
    Port = open_port({spawn_executable, os:find_executable("erl")},
                     [{args, Args}, exit_status, binary, stderr_to_stdout]),
    collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Acc, Data]);
        {Port, {exit_status, _}} -> iolist_to_binary(Acc)
    after ?HANG_GUARD_MS ->
        port_close(Port),
        error({hang_guard, iolist_to_binary(Acc)})
    end.

temp_dir() ->
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"), "mcp_native_library_" ++ os:getpid()),
    ok = filelib:ensure_path(Dir),
    Dir.
