%% The listing that follows the server (`mcp_client:tools/1',
%% `subscribe/1'): a server that declared `tools.listChanged' and says its
%% tools changed is listed again, the listing's generation grows, and
%% subscribers hear of it; a burst of notices costs at most two listings; a
%% server that declared nothing is not listed again; calls go on meanwhile.
-module(mcp_tools_changed_tests).

-include_lib("eunit/include/eunit.hrl").

-import(mcp_fake_server, [tool/1, tools_page/2, text_result/1]).

-define(TIMEOUT, 5000).
-define(NOTICE, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                          {<<"method">>, {string, <<"notifications/tools/list_changed">>}}]}).

%% A fake server whose tools are the names an ETS table of the test holds,
%% declaring `tools.listChanged' when `Declared'.
server(Table, Declared) ->
    Capabilities = [{<<"tools">>, {object, [{<<"listChanged">>, {bool, true}} || Declared]}}],
    fun({request, Id, <<"initialize">>, _}) ->
            [{reply, Id, mcp_fake_server:initialize_result(<<"2025-06-18">>, Capabilities)}];
       ({request, Id, <<"tools/list">>, _}) ->
            [{names, Names}] = ets:lookup(Table, names),
            [{reply, Id, tools_page([tool(Name) || Name <- Names], none)}];
       ({request, Id, <<"tools/call">>, _}) ->
            [{reply, Id, text_result(<<"ok">>)}];
       (_) ->
            default
    end.

start(Names, Declared) ->
    Table = ets:new(?MODULE, [public]),
    true = ets:insert(Table, {names, Names}),
    flush(),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(server(Table, Declared)), #{}),
    Peer = receive {fake_server, Pid, {request, _, <<"initialize">>, _}} -> Pid after ?TIMEOUT -> error(no_server) end,
    {Client, Peer, Table}.

flush() -> receive {fake_server, _, _} -> flush() after 0 -> ok end.

names({ok, {Generation, Tools}}) -> {Generation, [element(2, Tool) || Tool <- Tools]}.

listings_seen() ->
    receive
        {fake_server, _, {request, _, <<"tools/list">>, _}} -> 1 + listings_seen();
        {fake_server, _, _} -> listings_seen()
    after 0 -> 0
    end.

a_changed_listing_is_a_new_generation_test() ->
    {Client, Peer, Table} = start([<<"a">>], true),
    ?assertEqual({1, [<<"a">>]}, names(mcp_client:tools(Client))),
    ok = mcp_client:subscribe(Client),
    true = ets:insert(Table, {names, [<<"a">>, <<"b">>]}),
    Peer ! {perform, [{send, ?NOTICE}]},
    Pid = mcp_client:pid(Client),
    receive {mcp_tools_changed, Pid, Generation} -> ?assertEqual(2, Generation) after ?TIMEOUT -> error(no_notice) end,
    ?assertEqual({2, [<<"a">>, <<"b">>]}, names(mcp_client:tools(Client))),
    %% A listing that did not change is no new generation.
    ?assertMatch({ok, [_, _]}, mcp_client:list_tools(Client)),
    ?assertEqual({2, [<<"a">>, <<"b">>]}, names(mcp_client:tools(Client))),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table).

%% The re-listing runs in a process of its own, whose copy of the listing
%% never comes back: its end, which the actor is told of, names nothing of
%% it (traced: the `DOWN' the actor receives; its reason had carried the
%% listing, a second copy in the actor's heap beside the one it keeps:
%% 392-559 MB instead of 212 MB for a dense 4 MiB page).
a_relisting_copies_nothing_back_test() ->
    {Client, Peer, Table} = start([<<"a">>], true),
    ?assertEqual({1, [<<"a">>]}, names(mcp_client:tools(Client))),
    ok = mcp_client:subscribe(Client),
    true = ets:insert(Table, {names, [<<"a">>, <<"b">>]}),
    Pid = mcp_client:pid(Client),
    Self = self(),
    Tracer = spawn(fun() -> traced_downs(Self, []) end),
    erlang:trace(Pid, true, ['receive', {tracer, Tracer}]),
    Peer ! {perform, [{send, ?NOTICE}]},
    receive {mcp_tools_changed, Pid, 2} -> ok after ?TIMEOUT -> error(no_notice) end,
    ?assertEqual(ok, settled(Client, 100)),
    erlang:trace(Pid, false, ['receive']),
    Delivered = erlang:trace_delivered(Pid),
    receive {trace_delivered, _, Delivered} -> ok end,
    Tracer ! {done, Self},
    Downs = receive {downs, Tracer, D} -> D end,
    ?assertEqual([relisted], lists:usort(Downs)),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table).

traced_downs(Owner, Downs) ->
    receive
        {trace, _, 'receive', {'DOWN', _, process, _, Reason}} -> traced_downs(Owner, [Reason | Downs]);
        {trace, _, 'receive', _} -> traced_downs(Owner, Downs);
        {done, Owner} -> Owner ! {downs, self(), lists:reverse(Downs)}
    end.

%% Fifty notices at once: one listing at once, one more after it, and the
%% actor is then quiet (nothing running, nothing asked); calls answered
%% meanwhile.
a_burst_of_notices_is_two_listings_test() ->
    {Client, Peer, Table} = start([<<"a">>], true),
    {ok, _} = mcp_client:tools(Client),
    _ = listings_seen(),
    Peer ! {perform, [{send, ?NOTICE} || _ <- lists:seq(1, 50)]},
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"a">>, {object, []}, ?TIMEOUT)),
    ?assertEqual(ok, settled(Client, 100)),
    ?assertEqual(2, listings_seen()),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table).

%% A server that says its tools changed 30 ms after each listing (once
%% the listing is over): the listings start at least a second apart (over
%% 2.5 s: the first, one after a second, one after two), not one per round
%% trip.
notices_after_each_listing_cost_one_listing_a_second_test() ->
    Table = ets:new(?MODULE, [public]),
    true = ets:insert(Table, {names, [<<"a">>]}),
    Listed = server(Table, true),
    Echoing = fun({request, _, <<"tools/list">>, _} = Request) ->
                      Server = self(),
                      spawn(fun() -> timer:sleep(30), Server ! {perform, [{send, ?NOTICE}]} end),
                      Listed(Request);
                 (Message) -> Listed(Message)
              end,
    flush(),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(Echoing), #{}),
    {ok, _} = mcp_client:tools(Client),
    timer:sleep(2500),
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"a">>, {object, []}, ?TIMEOUT)),
    Seen = listings_seen(),
    ?assert(Seen >= 3 andalso Seen =< 4, {listings, Seen}),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table).

%% A notice is read for its method on a line of at most 4,096 bytes: one of
%% 4,097 bytes (its `_meta' padded) is dropped as any notification is, one
%% of 4,096 bytes is listed again.
a_notice_is_read_on_a_line_of_at_most_4096_bytes_test() ->
    {Client, Peer, Table} = start([<<"a">>], true),
    {ok, _} = mcp_client:tools(Client),
    _ = listings_seen(),
    Peer ! {perform, [{send, padded_notice(4097)}]},
    %% A call after the notice: the notice was read before its answer.
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"a">>, {object, []}, ?TIMEOUT)),
    ?assertEqual(ok, settled(Client, 100)),
    ?assertEqual(0, listings_seen()),
    Peer ! {perform, [{send, padded_notice(4096)}]},
    receive {fake_server, _, {request, _, <<"tools/list">>, _}} -> ok after ?TIMEOUT -> error(not_listed) end,
    ?assertEqual(ok, settled(Client, 100)),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    flush(),
    ets:delete(Table).

%% A notice whose method is written with escapes (`\/', as PHP's
%% `json_encode' writes it) is a notice: the client lists again.
an_escaped_notice_is_a_notice_test() ->
    {Client, Peer, Table} = start([<<"a">>], true),
    {ok, _} = mcp_client:tools(Client),
    _ = listings_seen(),
    Peer ! {perform, [{raw, <<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications\\/tools\\/list_changed\"}\n">>}]},
    receive {fake_server, _, {request, _, <<"tools/list">>, _}} -> ok after ?TIMEOUT -> error(not_listed) end,
    ?assertEqual(ok, settled(Client, 100)),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    flush(),
    ets:delete(Table).

%% The notice, its `_meta' padded so that its line is `Bytes' long.
padded_notice(Bytes) ->
    Notice = fun(Pad) -> {object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                                   {<<"method">>, {string, <<"notifications/tools/list_changed">>}},
                                   {<<"params">>, {object, [{<<"_meta">>, {object, [{<<"pad">>, {string, Pad}}]}}]}}]}
             end,
    Padded = Notice(binary:copy(<<"a">>, Bytes - byte_size(mcp_json:encode(Notice(<<>>))))),
    Bytes = byte_size(mcp_json:encode(Padded)),
    Padded.

%% A server that did not declare `tools.listChanged' is not listed again.
an_undeclared_notice_is_ignored_test() ->
    {Client, Peer, Table} = start([<<"a">>], false),
    {ok, _} = mcp_client:tools(Client),
    _ = listings_seen(),
    Peer ! {perform, [{send, ?NOTICE}]},
    %% A call after the notice: the notice was read before its answer.
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"a">>, {object, []}, ?TIMEOUT)),
    ?assertEqual(ok, settled(Client, 100)),
    ?assertEqual(0, listings_seen()),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table).

%% Waits (a hang guard, not a timed assertion) until the actor's
%% re-listing is idle with nothing asked for.
settled(_Client, 0) ->
    not_settled;
settled(Client, Tries) ->
    {active, Data} = sys:get_state(mcp_client:pid(Client)),
    case mcp_client_actor:relisting(Data) of
        idle -> ok;
        _ -> timer:sleep(50), settled(Client, Tries - 1)
    end.
