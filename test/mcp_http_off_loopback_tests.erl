%% The HTTP transport against a server off the loopback, over plain
%% `http': a network namespace this test makes (`ip netns', a veth pair on
%% 10.213.N.0/30), with test/e2e/plain_http_mcp.py listening inside it.
%% Traffic goes only into that namespace. Needs root (CI runs as root).
%%
%% With authorization on (as the command line always has it), such a server
%% is reached when it asks for no token; a token held is never sent to it
%% (shown sent when plaintext is allowed), and its challenge ends the
%% connection with
%% `{authorization_failed, {plaintext_headers, Host}}'.
-module(mcp_http_off_loopback_tests).

-include_lib("eunit/include/eunit.hrl").

off_loopback_test_() ->
    {setup, fun namespace/0, fun remove/1,
     fun(Net) ->
             [{timeout, 60, {"a server that asks for no token is reached; no token goes to it",
                             fun() -> reached_without_token(Net) end}},
              {timeout, 60, {"with plaintext allowed, the held token is sent",
                             fun() -> token_sent_when_allowed(Net) end}},
              {timeout, 60, {"a challenge over plaintext ends the connection",
                             fun() -> challenge_refused(Net) end}}]
     end}.

%% A record holding a token, as a token store hands it back.
held_token() ->
    {callback, fun(_) -> {ok, #{<<"access_token">> => <<"held-token">>, <<"client_id">> => <<"c">>}} end,
     fun(_, _) -> ok end}.

reached_without_token(Net) ->
    {Url, Log} = serve(Net, "open", 8080),
    {ok, Client, _} = mcp_client:start(#{url => Url, oauth => #{store => held_token()}}, #{}),
    ?assertMatch({ok, [_]}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    ?assertEqual([<<"-">>], lists:usort(log_lines(Log))).

token_sent_when_allowed(Net) ->
    {Url, Log} = serve(Net, "open", 8081),
    {ok, Client, _} = mcp_client:start(#{url => Url, oauth => #{store => held_token()},
                                        allow_plaintext_headers => true}, #{}),
    ?assertMatch({ok, [_]}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    ?assertEqual([<<"Bearer held-token">>], lists:usort(log_lines(Log))).

challenge_refused(#{server := Server} = Net) ->
    {Url, Log} = serve(Net, "challenge", 8082),
    ?assertEqual({error, {handshake_failed, {unavailable, {authorization_failed, {plaintext_headers, list_to_binary(Server)}}}}},
                 mcp_client:start(#{url => Url, oauth => #{store => held_token()}}, #{})),
    ?assertEqual([<<"-">>], lists:usort(log_lines(Log))).

%%% ------------------------------------------------------------ the net

sh(Command) ->
    Out = os:cmd(Command ++ " 2>&1; echo \"exit=$?\""),
    case string:split(string:trim(Out), "exit=", trailing) of
        [Text, "0"] -> string:trim(Text);
        _ -> error({command_failed, Command, Out})
    end.

namespace() ->
    "0" =:= sh("id -u") orelse error("this suite makes a network namespace: it needs root (CI runs as root)"),
    N = erlang:phash2(os:getpid(), 200) + 20,
    Name = "mcpt" ++ integer_to_list(N),
    Ours = "mcpa" ++ integer_to_list(N),
    Theirs = "mcpb" ++ integer_to_list(N),
    Host = "10.213." ++ integer_to_list(N) ++ ".1",
    Server = "10.213." ++ integer_to_list(N) ++ ".2",
    _ = os:cmd("ip netns del " ++ Name ++ " 2>/dev/null; ip link del " ++ Ours ++ " 2>/dev/null"),
    _ = sh("ip netns add " ++ Name),
    _ = sh("ip link add " ++ Ours ++ " type veth peer name " ++ Theirs),
    _ = sh("ip link set " ++ Theirs ++ " netns " ++ Name),
    _ = sh("ip addr add " ++ Host ++ "/30 dev " ++ Ours),
    _ = sh("ip link set " ++ Ours ++ " up"),
    _ = sh("ip netns exec " ++ Name ++ " ip addr add " ++ Server ++ "/30 dev " ++ Theirs),
    _ = sh("ip netns exec " ++ Name ++ " ip link set " ++ Theirs ++ " up"),
    _ = sh("ip netns exec " ++ Name ++ " ip link set lo up"),
    #{name => Name, link => Ours, server => Server, servers => ets:new(servers, [public, bag])}.

remove(#{name := Name, link := Link, servers := Servers}) ->
    _ = [os:cmd("kill " ++ integer_to_list(OsPid)) || {_, OsPid} <- ets:tab2list(Servers)],
    _ = os:cmd("ip netns del " ++ Name ++ "; ip link del " ++ Link ++ " 2>/dev/null"),
    ok.

%% The server inside the namespace, in `Mode', on `Port'; its URL and the
%% file its requests' Authorization headers are logged to.
serve(#{name := Name, server := Server, servers := Servers}, Mode, Port) ->
    Log = filename:join(filename:basedir(user_cache, "mcp-tests"), "plain-http-" ++ os:getpid() ++ "-" ++ Mode),
    ok = filelib:ensure_dir(Log),
    _ = file:delete(Log),
    Python = os:find_executable("python3"),
    Script = filename:absname("test/e2e/plain_http_mcp.py"),
    Process = open_port({spawn_executable, os:find_executable("ip")},
                        [{args, ["netns", "exec", Name, Python, Script, Server, integer_to_list(Port), Mode]},
                         {env, [{"PLAIN_HTTP_MCP_LOG", Log}]}, exit_status, hide]),
    {os_pid, OsPid} = erlang:port_info(Process, os_pid),
    true = ets:insert(Servers, {Mode, OsPid}),
    ok = listening(Server, Port, 100),
    {"http://" ++ Server ++ ":" ++ integer_to_list(Port) ++ "/mcp", Log}.

listening(_Server, _Port, 0) ->
    error(plain_http_server_not_listening);
listening(Server, Port, Tries) ->
    {ok, Address} = inet:parse_address(Server),
    case gen_tcp:connect(Address, Port, [], 200) of
        {ok, Socket} -> gen_tcp:close(Socket);
        {error, _} -> timer:sleep(50), listening(Server, Port, Tries - 1)
    end.

log_lines(Log) ->
    case file:read_file(Log) of
        {ok, Bytes} -> binary:split(Bytes, <<"\n">>, [global, trim_all]);
        {error, enoent} -> []
    end.
