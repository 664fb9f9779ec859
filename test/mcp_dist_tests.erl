%% A `client()' used across Erlang distribution: callers on a peer node
%% (OTP `peer') drive a client whose actor and fake server live here, and a
%% custodian on the peer node retires an active client when that node goes.
-module(mcp_dist_tests).

-include_lib("eunit/include/eunit.hrl").

-export([expire_remotely/1]).

-define(TIMEOUT, 5000).

distribution_test_() ->
    {setup, fun start_distribution/0, fun stop_distribution/1,
     fun(Context) ->
             {timeout, 60,
              {inorder,
               [{"remote caller: list, call, ping, a timeout, a clean mailbox",
                 ?_test(remote_caller(Context))},
                {"remote caller of a retired client gets an error value",
                 ?_test(remote_caller_of_a_retired_client(Context))},
                {"custodian on a node that goes away retires the client",
                 ?_test(remote_custodian_lost(Context))}]}}
     end}.

start_distribution() ->
    EpmdStarted = case erl_epmd:names() of
                      {ok, _} -> false;
                      {error, _} -> _ = os:cmd("epmd -daemon"), wait_for_epmd(50), true
                  end,
    KernelStarted = case node() of
                        nonode@nohost ->
                            {ok, _} = net_kernel:start([list_to_atom("mcp_dist_origin_" ++ os:getpid()),
                                                        shortnames]),
                            true;
                        _ ->
                            false
                    end,
    #{epmd_started => EpmdStarted, kernel_started => KernelStarted}.

wait_for_epmd(0) -> error(epmd_not_started);
wait_for_epmd(Tries) ->
    case erl_epmd:names() of
        {ok, _} -> ok;
        {error, _} -> receive after 20 -> wait_for_epmd(Tries - 1) end
    end.

stop_distribution(#{epmd_started := EpmdStarted, kernel_started := KernelStarted}) ->
    _ = KernelStarted andalso net_kernel:stop(),
    _ = EpmdStarted andalso os:cmd("epmd -kill"),
    ok.

%% A peer node with this project's code on its path. (Calls go through
%% `erpc': OTP 25.2's `peer:call/4' over distribution answers `noconnection'.)
peer_node() ->
    Paths = lists:usort([filename:dirname(code:which(M)) || M <- [mcp_client, ?MODULE]]),
    {ok, Peer, Node} = peer:start_link(#{name => peer:random_name(?MODULE),
                                         args => lists:append([["-pa", P] || P <- Paths])}),
    {Peer, Node}.

echo_server() ->
    mcp_fake_server:spec(fun({request, _, <<"tools/call">>, Params}) ->
                                 case mcp_fake_server:field(<<"name">>, Params) of
                                     {string, <<"never">>} -> [];
                                     _ -> default
                                 end;
                            (_) -> default
                         end).

remote_caller(_Context) ->
    {ok, Client, _} = mcp_client:start(echo_server(), #{}),
    {Peer, Node} = peer_node(),
    ?assertEqual(Node, erpc:call(Node, erlang, node, [])),
    Arguments = {object, [{<<"from">>, {string, atom_to_binary(Node)}}]},
    ?assertEqual({ok, {call_tool_result, [{text, mcp_json:encode(Arguments)}], false, none}},
                 erpc:call(Node, mcp_client, call_tool, [Client, <<"echo">>, Arguments, ?TIMEOUT])),
    ?assertMatch({ok, [_]}, erpc:call(Node, mcp_client, list_tools, [Client])),
    ?assertEqual(ok, erpc:call(Node, mcp_client, ping, [Client, ?TIMEOUT])),
    %% A remote caller whose call expires keeps nothing in its mailbox.
    ?assertEqual({call_timed_out_and_clean, []},
                 erpc:call(Node, ?MODULE, expire_remotely, [Client])),
    ?assertMatch({ok, {exited, {peer_down, killed}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    peer:stop(Peer).

%% Runs on the peer node.
expire_remotely(Client) ->
    {error, call_timed_out} = mcp_client:call_tool(Client, <<"never">>, {object, []}, 50),
    {ok, _} = mcp_client:list_tools(Client),
    {messages, Messages} = process_info(self(), messages),
    {call_timed_out_and_clean, Messages}.

remote_caller_of_a_retired_client(_Context) ->
    {ok, Client, _} = mcp_client:start(echo_server(), #{}),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    {Peer, Node} = peer_node(),
    ?assertMatch({error, {unavailable, {client_down, _}}},
                 erpc:call(Node, mcp_client, ping, [Client, ?TIMEOUT])),
    peer:stop(Peer).

remote_custodian_lost(_Context) ->
    {Peer, Node} = peer_node(),
    Custodian = erpc:call(Node, erlang, spawn, [timer, sleep, [infinity]]),
    {ok, Client} = mcp_client:prepare_owned(echo_server(), #{}, Custodian),
    {ok, _} = mcp_client:connect(Client),
    Actor = mcp_client:pid(Client),
    ActorMonitor = erlang:monitor(process, Actor),
    peer:stop(Peer),
    receive {'DOWN', ActorMonitor, process, Actor, Reason} -> ?assertEqual(normal, Reason) end.
