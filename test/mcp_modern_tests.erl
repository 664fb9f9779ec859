%% The eras (`era' option): the stateless revision's probe, `_meta', the
%% `-32022' re-probe, `auto''s fallback, and the handshake era unchanged,
%% against `mcp_fake_server' on the in-process channel.
-module(mcp_modern_tests).
-include_lib("eunit/include/eunit.hrl").

-define(V, <<"2026-07-28">>).

discover_result(Versions) ->
    {object, [{<<"resultType">>, {string, <<"complete">>}},
              {<<"supportedVersions">>, {array, [{string, V} || V <- Versions]}},
              {<<"capabilities">>, {object, [{<<"tools">>, {object, []}}]}},
              {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"modern">>}},
                                           {<<"version">>, {string, <<"9">>}}]}}]}.

error_line(Id, Code, Data) ->
    {send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                     {<<"error">>, {object, [{<<"code">>, {int, Code}}, {<<"message">>, {string, <<"no">>}}
                                             | [{<<"data">>, D} || D <- [Data], D =/= none]]}}]}}.

%% A modern server: answers discover, tools/list and tools/call.
modern({request, Id, <<"server/discover">>, _}) -> [{reply, Id, discover_result([?V])}];
modern({request, Id, <<"tools/list">>, _}) ->
    [{reply, Id, mcp_fake_server:tools_page([mcp_fake_server:tool(<<"echo">>)], none)}];
modern({request, Id, <<"tools/call">>, _}) -> [{reply, Id, mcp_fake_server:text_result(<<"ok">>)}];
modern(_) -> [].

%% A handshake-only server: unknown methods are -32601.
handshake_only({request, Id, <<"server/discover">>, _}) -> [error_line(Id, -32601, none)];
handshake_only(Message) -> mcp_fake_server:default(Message).

start(Handler, Era) ->
    flush(),
    mcp_client:start(mcp_fake_server:spec(Handler), #{era => Era, handshake_timeout_ms => 2000}).

%% What earlier tests' servers sent is not this test's.
flush() ->
    receive {fake_server, _, _} -> flush() after 0 -> ok end.

received() ->
    receive {fake_server, _, Message} -> Message after 2000 -> error(nothing_received) end.

meta_of({request, _, _, {object, Members}}) ->
    {_, {object, Meta}} = lists:keyfind(<<"_meta">>, 1, Members),
    Meta.

modern_era_probes_and_sends_meta_on_every_request_test() ->
    {ok, Client, {initialize_result, ?V, {some, _}, {server_info, <<"modern">>, <<"9">>}, none}} = start(fun modern/1, modern),
    Probe = received(),
    ?assertMatch({request, _, <<"server/discover">>, _}, Probe),
    ?assertEqual({string, ?V}, proplists:get_value(<<"io.modelcontextprotocol/protocolVersion">>, meta_of(Probe))),
    ?assertMatch({object, [_, _]}, proplists:get_value(<<"io.modelcontextprotocol/clientInfo">>, meta_of(Probe))),
    ?assertEqual({object, []}, proplists:get_value(<<"io.modelcontextprotocol/clientCapabilities">>, meta_of(Probe))),
    {ok, {call_tool_result, [{text, <<"ok">>}], false, none}} = mcp_client:call_tool(Client, <<"echo">>, {object, []}, 2000),
    %% The call came after a listing (the tools' header maps), both with _meta, and no `initialized'.
    List = received(),
    ?assertMatch({request, _, <<"tools/list">>, _}, List),
    Call = received(),
    ?assertMatch({request, _, <<"tools/call">>, _}, Call),
    ?assertEqual({string, ?V}, proplists:get_value(<<"io.modelcontextprotocol/protocolVersion">>, meta_of(Call))),
    ok = mcp_client:ping(Client, 2000),
    ?assertMatch({request, _, <<"server/discover">>, _}, received()),
    {ok, _} = mcp_client:shutdown(Client, 2000).

handshake_era_is_unchanged_test() ->
    {ok, Client, _} = start(fun mcp_fake_server:default/1, handshake),
    ?assertMatch({request, _, <<"initialize">>, {object, _}}, received()),
    ?assertMatch({notification, <<"notifications/initialized">>, _}, received()),
    {ok, [_]} = mcp_client:list_tools(Client),
    {request, _, <<"tools/list">>, {object, Params}} = received(),
    ?assertEqual(false, lists:keymember(<<"_meta">>, 1, Params)),
    {ok, _} = mcp_client:shutdown(Client, 2000).

auto_falls_back_to_initialize_test() ->
    {ok, Client, {initialize_result, Version, _, _, _}} = start(fun handshake_only/1, auto),
    ?assertNotEqual(?V, Version),
    ?assertMatch({request, _, <<"server/discover">>, _}, received()),
    ?assertMatch({request, _, <<"initialize">>, _}, received()),
    {ok, [_]} = mcp_client:list_tools(Client),
    {ok, _} = mcp_client:shutdown(Client, 2000).

auto_stays_modern_with_a_modern_server_test() ->
    {ok, Client, {initialize_result, ?V, _, _, _}} = start(fun modern/1, auto),
    {ok, [_]} = mcp_client:list_tools(Client),
    {ok, _} = mcp_client:shutdown(Client, 2000).

modern_era_refuses_a_handshake_only_server_test() ->
    ?assertMatch({error, {handshake_failed, {server_error, {rpc_error, -32601, _, _}}}},
                 start(fun handshake_only/1, modern)).

unsupported_version_naming_ours_is_reprobed_once_test() ->
    Counter = counters:new(1, []),
    Supported = {object, [{<<"supported">>, {array, [{string, ?V}]}}, {<<"requested">>, {string, ?V}}]},
    Handler = fun({request, Id, <<"server/discover">>, _} = M) ->
                      counters:add(Counter, 1, 1),
                      case counters:get(Counter, 1) of
                          1 -> [error_line(Id, -32022, Supported)];
                          _ -> modern(M)
                      end;
                 (M) -> modern(M)
              end,
    {ok, Client, {initialize_result, ?V, _, _, _}} = start(Handler, modern),
    ?assertEqual(2, counters:get(Counter, 1)),
    {ok, _} = mcp_client:shutdown(Client, 2000).

unsupported_version_twice_is_version_unsupported_test() ->
    Supported = {object, [{<<"supported">>, {array, [{string, ?V}]}}]},
    Handler = fun({request, Id, <<"server/discover">>, _}) -> [error_line(Id, -32022, Supported)];
                 (M) -> modern(M)
              end,
    ?assertMatch({error, {version_unsupported, ?V, ?V}}, start(Handler, modern)).

unsupported_version_without_ours_is_not_reprobed_test() ->
    Other = {object, [{<<"supported">>, {array, [{string, <<"2099-01-01">>}]}}]},
    Handler = fun({request, Id, <<"server/discover">>, _}) -> [error_line(Id, -32022, Other)];
                 (M) -> modern(M)
              end,
    ?assertMatch({error, {version_unsupported, ?V, <<"2099-01-01">>}}, start(Handler, modern)),
    ?assertMatch({request, _, <<"server/discover">>, _}, received()),
    receive {fake_server, _, {request, _, <<"server/discover">>, _}} -> error(reprobed) after 200 -> ok end.

%% After the connect: a tool call refused with `-32022' naming ours is
%% followed by a probe and sent again, once; `Refusals' is how many of the
%% server's first calls it refuses, `Supported' what its refusals name.
refusing_calls(Refusals, Supported) ->
    Counter = counters:new(1, []),
    fun({request, Id, <<"tools/call">>, _} = M) ->
            counters:add(Counter, 1, 1),
            case counters:get(Counter, 1) =< Refusals of
                true -> [error_line(Id, -32022, {object, [{<<"supported">>, {array, [{string, V} || V <- Supported]}}]})];
                false -> modern(M)
            end;
       (M) -> modern(M)
    end.

calls_seen() ->
    receive
        {fake_server, _, {request, _, Method, _}} -> [Method | calls_seen()]
    after 200 -> []
    end.

a_call_refused_for_its_version_after_connect_is_reprobed_and_sent_again_test() ->
    {ok, Client, _} = start(refusing_calls(1, [?V]), modern),
    _ = calls_seen(),
    ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}},
                 mcp_client:call_tool(Client, <<"echo">>, {object, []}, 2000)),
    ?assertEqual([<<"tools/list">>, <<"tools/call">>, <<"server/discover">>, <<"tools/call">>], calls_seen()),
    {ok, _} = mcp_client:shutdown(Client, 2000).

%% While a probe's answer is awaited the actor decodes (traced) no other
%% line: notifications of `max_whole_line_bytes()' bytes and one more
%% before it are not decoded, the answer is. A probe's answer of that
%% length is read; one a byte longer is unbuilt and taken as no answer (the
%% refused call then answers the refusal).
probe_answers_are_read_up_to_the_bound_test_() ->
    Max = mcp_client_actor:max_whole_line_bytes(),
    Notice = fun(Length) ->
                     Line = fun(Pad) -> mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                                                                  {<<"method">>, {string, <<"notifications/message">>}},
                                                                  {<<"params">>, {object, [{<<"pad">>, {string, binary:copy(<<"p">>, Pad)}}]}}]})
                            end,
                     Padded = Line(Length - byte_size(Line(0))),
                     Length = byte_size(Padded),
                     [Padded, $\n]
             end,
    %% The discover result padded so that its line to `Id' takes `Length'.
    Answer = fun(Id, Length) ->
                     {object, Members} = discover_result([?V]),
                     Result = fun(Pad) -> {object, Members ++ [{<<"pad">>, {string, binary:copy(<<"p">>, Pad)}}]} end,
                     Bare = byte_size(mcp_fake_server:response_line(Id, Result(0))) - 1,
                     [{reply, Id, Result(Length - Bare)}]
             end,
    Run = fun(Length) ->
                  Discovers = counters:new(1, []),
                  Refusing = refusing_calls(1, [?V]),
                  Handler = fun({request, Id, <<"server/discover">>, _} = M) ->
                                    counters:add(Discovers, 1, 1),
                                    case counters:get(Discovers, 1) of
                                        1 -> modern(M);
                                        _ -> [{raw, Notice(Max)}, {raw, Notice(Max + 1)} | Answer(Id, Length)]
                                    end;
                               (M) -> Refusing(M)
                            end,
                  {ok, Client, _} = start(Handler, modern),
                  _ = calls_seen(),
                  Decoded = mcp_traced:calls(mcp_client:pid(Client), {mcp_jsonrpc, decode, 1},
                                             fun() -> put(called, mcp_client:call_tool(Client, <<"echo">>, {object, []}, 2000)) end),
                  _ = calls_seen(),
                  {ok, _} = mcp_client:shutdown(Client, 2000),
                  {erase(called), [byte_size(Line) || [Line] <- Decoded]}
          end,
    [{timeout, 30, fun() ->
         ?assertEqual({{ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, [Max]}, Run(Max))
     end},
     {timeout, 30, fun() ->
         ?assertMatch({{error, {server_error, {rpc_error, -32022, _, _}}}, []}, Run(Max + 1))
     end}].

%% A listing whose next page was refused with `-32022' waits for the
%% re-probe holding its pages: they count against the budget the listings
%% in progress share. While the first listing holds `Max - 1500' bytes, a
%% second listing's page of 1,501 bytes is not read (and one of 1,500 is).
a_listing_waiting_for_a_reprobe_holds_its_pages_in_the_budget_test_() ->
    Max = mcp_client:max_listing_bytes(),
    Refusal = {object, [{<<"supported">>, {array, [{string, ?V}]}}]},
    {timeout, 30,
     fun() ->
             [begin
                  Counts = counters:new(2, []),
                  Handler = fun({request, _, <<"server/discover">>, _} = M) ->
                                    counters:add(Counts, 1, 1),
                                    case counters:get(Counts, 1) of
                                        1 -> modern(M);
                                        _ -> []
                                    end;
                               ({request, Id, <<"tools/list">>, Params}) ->
                                    case mcp_fake_server:field(<<"cursor">>, Params) of
                                        {string, <<"held">>} -> [error_line(Id, -32022, Refusal)];
                                        _ ->
                                            counters:add(Counts, 2, 1),
                                            case counters:get(Counts, 2) of
                                                1 -> [{reply, Id, mcp_fake_server:sized_tools_page(Id, Max - 1500, {some, <<"held">>})}];
                                                _ -> [{reply, Id, mcp_fake_server:sized_tools_page(Id, Second, none)}]
                                            end
                                    end;
                               (M) -> modern(M)
                            end,
                  {ok, Client, _} = start(Handler, modern),
                  Self = self(),
                  First = spawn(fun() -> Self ! {first, self(), mcp_client:list_tools(Client, 10000)} end),
                  reprobed(),
                  ?assertEqual(Expected, case mcp_client:list_tools(Client, 5000) of
                                             {ok, [_]} -> read;
                                             Other -> Other
                                         end),
                  {ok, _} = mcp_client:shutdown(Client, 2000),
                  receive {first, First, _} -> ok end,
                  flush()
              end
              || {Second, Expected} <- [{1500, read}, {1501, {error, {listing_too_large, Max}}}]]
     end}.

%% Waits for the second `server/discover' (the re-probe).
reprobed() ->
    receive
        {fake_server, _, {request, _, <<"server/discover">>, _}} -> reprobed(1)
    after 5000 -> error(no_probe)
    end.

reprobed(1) ->
    receive
        {fake_server, _, {request, _, <<"server/discover">>, _}} -> ok;
        {fake_server, _, _} -> reprobed(1)
    after 5000 -> error(no_reprobe)
    end.

a_call_refused_for_its_version_twice_answers_the_refusal_test() ->
    {ok, Client, _} = start(refusing_calls(2, [?V]), modern),
    _ = calls_seen(),
    ?assertMatch({error, {server_error, {rpc_error, -32022, _, _}}},
                 mcp_client:call_tool(Client, <<"echo">>, {object, []}, 2000)),
    ?assertEqual([<<"tools/list">>, <<"tools/call">>, <<"server/discover">>, <<"tools/call">>], calls_seen()),
    {ok, _} = mcp_client:shutdown(Client, 2000).

a_call_refused_without_our_version_is_not_sent_again_test() ->
    {ok, Client, _} = start(refusing_calls(1, [<<"2099-01-01">>]), modern),
    _ = calls_seen(),
    ?assertMatch({error, {server_error, {rpc_error, -32022, _, _}}},
                 mcp_client:call_tool(Client, <<"echo">>, {object, []}, 2000)),
    ?assertEqual([<<"tools/list">>, <<"tools/call">>], calls_seen()),
    {ok, _} = mcp_client:shutdown(Client, 2000).

auto_falls_back_when_the_probe_is_never_answered_test() ->
    Silent = fun({request, _, <<"server/discover">>, _}) -> [];
                (M) -> mcp_fake_server:default(M)
             end,
    {ok, Client, {initialize_result, Version, _, _, _}} = start(Silent, auto),
    ?assertNotEqual(?V, Version),
    {ok, _} = mcp_client:shutdown(Client, 2000).

a_discover_result_without_our_version_is_not_modern_test() ->
    Old = fun({request, Id, <<"server/discover">>, _}) -> [{reply, Id, discover_result([<<"2099-01-01">>])}];
             (M) -> mcp_fake_server:default(M)
          end,
    ?assertMatch({error, {version_unsupported, ?V, <<"2099-01-01">>}}, start(Old, modern)),
    {ok, Client, {initialize_result, Version, _, _, _}} = start(Old, auto),
    ?assertNotEqual(?V, Version),
    {ok, _} = mcp_client:shutdown(Client, 2000).

era_must_be_one_of_three_test() ->
    %% Built at run time: the type checker would otherwise refuse the call.
    Unknown = list_to_atom("stateless"),
    ?assertError(badarg, mcp_client:prepare(mcp_fake_server:spec(fun modern/1), #{era => Unknown})).
