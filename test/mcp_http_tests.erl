%% The HTTP transport against a scriptable server (`mcp_http_stub'):
%% secrets never shown, the spec's checks, and hostile servers, each of
%% which must end in a typed error in bounded time with nothing left behind
%% (the transport's `httpc' manager and its connections gone).
-module(mcp_http_tests).

-include_lib("eunit/include/eunit.hrl").

-export([log/2]).

-define(SECRET, "s3cr3t-value").

%%% ------------------------------------------------------------ a server

%% A minimal MCP server: JSON answers, a session id, 202 for notifications;
%% `Override(Method, Request)' may answer instead (`default' otherwise).
mcp(Override) ->
    fun(#{method := 'DELETE'}) -> {reply, 200, [], <<>>};
       (#{method := 'GET'}) -> {reply, 405, [], <<>>};
       (#{body := Body} = Request) ->
            {ok, {object, Members}} = mcp_json:decode(Body),
            Method = case proplists:get_value(<<"method">>, Members) of
                         {string, M} -> M;
                         _ -> response
                     end,
            case Override(Method, Request) of
                default -> default(Method, proplists:get_value(<<"id">>, Members));
                Answer -> Answer
            end
    end.

default(<<"initialize">>, Id) ->
    json(Id, <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
               "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>, [{"mcp-session-id", "session-1"}]);
default(<<"tools/call">>, Id) ->
    json(Id, <<"{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}">>, []);
default(_Other, undefined) ->
    {reply, 202, [], <<>>};
default(_Other, Id) ->
    json(Id, <<"{}">>, []).

json({int, Id}, Result, Headers) ->
    {reply, 200, [{"content-type", "application/json"} | Headers],
     [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(Id), <<",\"result\":">>, Result, <<"}">>]}.

call(Client) -> mcp_client:call_tool(Client, <<"t">>, {object, []}, 2000).

%% The client's actor and everything it linked (the `httpc' manager) are
%% gone once it is shut down.
shut_down_leaving_nothing(Client) ->
    Pid = mcp_client:pid(Client),
    {links, Linked} = process_info(Pid, links),
    _ = mcp_client:shutdown(Client, 5000),
    ?assertEqual([], [P || P <- [Pid | Linked], is_pid(P), is_process_alive(P)]).

with_stub(Override, Test) ->
    Stub = mcp_http_stub:start(mcp(Override)),
    try Test(mcp_http_stub:url(Stub)) after mcp_http_stub:stop(Stub), forget_requests(Stub) end.

%% The stub's reports must not outlive the test in this process's mailbox
%% (eunit runs later tests in it).
forget_requests(#{pid := Pid} = Stub) ->
    receive {stub_request, Pid, _} -> forget_requests(Stub) after 0 -> ok end.

%%% ------------------------------------------------------- the happy path

session_and_headers_test() ->
    os:putenv("MCP_HTTP_TEST_TOKEN", ?SECRET),
    with_stub(fun(_, _) -> default end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url, headers => [{"Authorization", "Bearer ${MCP_HTTP_TEST_TOKEN}"}]}, #{}),
        ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
        %% The header reached the server, resolved; after the handshake
        %% the session and the negotiated version went with every request.
        Requests = requests(),
        [?assertEqual(<<"Bearer ", ?SECRET>>, proplists:get_value(<<"authorization">>, H)) || #{headers := H} <- Requests],
        [#{headers := First} | Later] = Requests,
        ?assertEqual(undefined, proplists:get_value(<<"mcp-session-id">>, First)),
        [?assertEqual({<<"session-1">>, <<"2025-11-25">>},
                      {proplists:get_value(<<"mcp-session-id">>, H), proplists:get_value(<<"mcp-protocol-version">>, H)})
         || #{headers := H} <- Later],
        shut_down_leaving_nothing(Client),
        ?assertMatch([#{method := 'DELETE'}], requests())
    end).

requests() ->
    receive {stub_request, _, Request} -> [Request | requests()] after 200 -> [] end.

%%% ------------------------------------------------------------ managers

%% Managers take the profile names of a fixed pool: 256 live at once (N),
%% the next is refused (N + 1), and a name freed is taken again.
the_manager_pool_holds_256_test_() ->
    {timeout, 60, fun() ->
        ?assertEqual(256, length(lists:usort(mcp_httpc_profiles:all()))),
        Held = length([P || P <- mcp_httpc_profiles:all(), mcp_httpc_profiles:held(P)]),
        Managers = take_managers([]),
        try
            ?assertEqual({error, too_many_clients}, mcp_httpc_profiles:start_manager()),
            ?assertEqual(256, Held + length(Managers)),
            [Last | _] = Managers,
            stop_manager(Last),
            {ok, Again, _} = mcp_httpc_profiles:start_manager(),
            stop_manager(Again)
        after
            lists:foreach(fun stop_manager/1, tl(Managers))
        end
    end}.

take_managers(Taken) ->
    case mcp_httpc_profiles:start_manager() of
        {ok, Manager, _Profile} -> take_managers([Manager | Taken]);
        {error, too_many_clients} -> Taken
    end.

stop_manager(Manager) ->
    unlink(Manager),
    Monitor = monitor(process, Manager),
    exit(Manager, shutdown),
    receive {'DOWN', Monitor, process, Manager, _} -> ok end.

%%% -------------------------------------------------- standalone stream

%% The stub's MCP server, with `Get' answering the GETs.
with_get(Get, Test) ->
    Mcp = mcp(fun(_, _) -> default end),
    Stub = mcp_http_stub:start(fun(#{method := 'GET'} = Request) -> Get(Request); (Request) -> Mcp(Request) end),
    try Test(mcp_http_stub:url(Stub)) after mcp_http_stub:stop(Stub), forget_requests(Stub) end.

accept_note(_) -> {accept, {object, [{<<"note">>, {string, <<"yes">>}}]}}.

elicitation_on_the_standalone_stream() ->
    Request = <<"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\","
                "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"note\":{\"type\":\"string\"}}}}}">>,
    {sse_forever, [{"content-type", "text/event-stream"}], [<<"data: ", Request/binary, "\n\n">>], 100}.

%% A client that can be asked (an input handler: elicitation declared)
%% opens the standalone stream after the handshake, with the session; its
%% next request waits for that stream's answer; a server request on it is
%% answered by a POST.
a_client_that_can_be_asked_listens_on_the_standalone_stream_test() ->
    with_get(fun(_) -> elicitation_on_the_standalone_stream() end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{input_handler => fun accept_note/1}),
        ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
        timer:sleep(300),
        Requests = requests(),
        Methods = [{Method, rpc_method(Body)} || #{method := Method, body := Body} <- Requests],
        ?assertMatch([{'POST', <<"initialize">>}, {'POST', <<"notifications/initialized">>}, {'GET', none},
                      {'POST', <<"tools/call">>} | _], Methods),
        [#{headers := GetHeaders}] = [R || #{method := 'GET'} = R <- Requests],
        ?assertEqual({<<"text/event-stream">>, <<"session-1">>},
                     {proplists:get_value(<<"accept">>, GetHeaders), proplists:get_value(<<"mcp-session-id">>, GetHeaders)}),
        Answers = [Body || #{method := 'POST', body := Body} <- Requests, rpc_method(Body) =:= response],
        ?assertEqual([<<"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"action\":\"accept\",\"content\":{\"note\":\"yes\"}}}">>],
                     Answers),
        shut_down_leaving_nothing(Client)
    end).

%% GETs answered in turn by `Answers' (the last for every GET past them),
%% and the count of GETs so far.
in_turn(Answers) ->
    Gets = counters:new(1, []),
    Get = fun(_) ->
                  counters:add(Gets, 1, 1),
                  Answer = lists:nth(min(counters:get(Gets, 1), length(Answers)), Answers),
                  Answer()
          end,
    {Get, Gets}.

%% An event stream that ends at once, asking to be reopened after 50 ms.
ends_at_once() -> {sse, [{"content-type", "text/event-stream"}], [<<"retry: 50\n\n">>]}.

%% A standalone stream that ends is opened again: here the first ends at
%% once, and the server asks on the second.
a_standalone_stream_that_ends_is_opened_again_test() ->
    {Get, _Gets} = in_turn([fun ends_at_once/0, fun elicitation_on_the_standalone_stream/0]),
    with_get(Get, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{input_handler => fun accept_note/1}),
        timer:sleep(500),
        Requests = requests(),
        ?assertEqual(2, length([R || #{method := 'GET'} = R <- Requests])),
        ?assertMatch([_], [Body || #{method := 'POST', body := Body} <- Requests, rpc_method(Body) =:= response]),
        shut_down_leaving_nothing(Client)
    end).

%% A standalone stream that keeps ending with nothing on it is opened
%% again at most `mcp_http_session:max_resumptions()' times, and the client goes
%% on without it.
a_standalone_stream_that_keeps_ending_is_given_up_test() ->
    with_get(fun(_) -> ends_at_once() end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{input_handler => fun accept_note/1}),
        timer:sleep(800),
        ?assertEqual(1 + mcp_http_session:max_resumptions(), length([R || #{method := 'GET'} = R <- requests()])),
        ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
        shut_down_leaving_nothing(Client)
    end).

%% A standalone stream reopened into a 404 (the server restarted and
%% forgot the session while no request was in flight): a new session is
%% started, and the stream opened again in it.
a_standalone_stream_reopened_into_a_404_starts_a_new_session_test() ->
    {Get, Gets} = in_turn([fun ends_at_once/0, fun() -> {reply, 404, [], <<>>} end,
                           fun elicitation_on_the_standalone_stream/0]),
    with_get(Get, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{input_handler => fun accept_note/1}),
        timer:sleep(600),
        Methods = [{Method, rpc_method(Body)} || #{method := Method, body := Body} <- requests()],
        ?assertEqual(2, length([I || {'POST', <<"initialize">>} = I <- Methods])),
        ?assertEqual(3, counters:get(Gets, 1)),
        ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
        shut_down_leaving_nothing(Client)
    end).

%% A server that declared `tools.listChanged' is listened to on the
%% standalone stream (a client that declared nothing a server asks through)
%% and its notice there is a new listing: the generation follows the
%% server's tools.
a_server_whose_tools_change_is_listened_to_test() ->
    Listings = counters:new(1, []),
    Override = fun(<<"initialize">>, #{body := Body}) ->
                       {ok, {object, Members}} = mcp_json:decode(Body),
                       json(proplists:get_value(<<"id">>, Members),
                            <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                              "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>, [{"mcp-session-id", "session-1"}]);
                  (<<"tools/list">>, #{body := Body}) ->
                       {ok, {object, Members}} = mcp_json:decode(Body),
                       counters:add(Listings, 1, 1),
                       Tools = [[<<"{\"name\":\"t">>, integer_to_binary(N), <<"\",\"inputSchema\":{\"type\":\"object\"}}">>]
                                || N <- lists:seq(1, counters:get(Listings, 1))],
                       json(proplists:get_value(<<"id">>, Members),
                            [<<"{\"tools\":[">>, lists:join(<<",">>, Tools), <<"]}">>], []);
                  (_, _) ->
                       default
               end,
    Notice = <<"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n">>,
    Mcp = mcp(Override),
    Gets = counters:new(1, []),
    %% The first standalone stream ends at once; the notice comes on the
    %% second, opened again after `retry:', once the test listed.
    Handler = fun(#{method := 'GET'}) ->
                      counters:add(Gets, 1, 1),
                      case counters:get(Gets, 1) of
                          1 -> {sse, [{"content-type", "text/event-stream"}], [<<"retry: 300\n\n">>]};
                          _ -> {sse_forever, [{"content-type", "text/event-stream"}], [Notice], 100}
                      end;
                 (Request) ->
                      Mcp(Request)
              end,
    with_stub_handler(Handler, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
        ok = mcp_client:subscribe(Client),
        ?assertMatch({ok, {1, [_]}}, mcp_client:tools(Client)),
        Pid = mcp_client:pid(Client),
        receive {mcp_tools_changed, Pid, 2} -> ok after 5000 -> error(no_new_generation) end,
        ?assertMatch({ok, {2, [_, _]}}, mcp_client:tools(Client)),
        ?assertEqual(2, counters:get(Gets, 1)),
        shut_down_leaving_nothing(Client)
    end).

%% A client no server can ask opens no standalone stream.
a_client_that_cannot_be_asked_does_not_listen_test() ->
    with_get(fun(_) -> elicitation_on_the_standalone_stream() end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
        ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
        ?assertEqual([], [R || #{method := 'GET'} = R <- requests()]),
        shut_down_leaving_nothing(Client)
    end).

%% A server that offers no standalone stream (405), or never answers the
%% GET, delays nothing beyond that answer, or beyond the wait's bound.
a_standalone_stream_refused_or_unanswered_delays_the_requests_only_so_long_test_() ->
    [{timeout, 30, fun() ->
        with_get(Get, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url}, #{input_handler => fun accept_note/1}),
            ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}},
                         mcp_client:call_tool(Client, <<"t">>, {object, []}, 10000)),
            ?assertMatch([_], [R || #{method := 'GET'} = R <- requests()]),
            shut_down_leaving_nothing(Client)
        end)
    end} || Get <- [fun(_) -> {reply, 405, [], <<>>} end, fun(_) -> hold end]].

rpc_method(<<>>) -> none;
rpc_method(Body) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    case proplists:get_value(<<"method">>, Members) of
        {string, Method} -> Method;
        undefined -> response
    end.

%%% ---------------------------------------------------------- cancellation

%% A server whose tools/call never answers (an event stream that only
%% pings); in the modern era it answers server/discover.
slow_server(Method, #{body := Body}) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    Id = proplists:get_value(<<"id">>, Members),
    case Method of
        <<"server/discover">> ->
            json(Id, <<"{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
                       "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>, []);
        <<"tools/list">> ->
            json(Id, <<"{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}">>, []);
        <<"tools/call">> ->
            {sse_forever, [{"content-type", "text/event-stream"}], [], 100};
        _ ->
            default
    end.

%% A call given up: in the handshake era the notice is POSTed; in the
%% stateless revision closing the stream is the cancellation, and nothing
%% is POSTed.
a_call_given_up_is_noticed_only_in_the_handshake_era_test_() ->
    [{timeout, 30, fun() ->
        with_stub(fun slow_server/2, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url}, #{era => Era}),
            ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 300)),
            timer:sleep(300),
            Cancelled = [R || #{body := Body} = R <- requests(), rpc_method(Body) =:= <<"notifications/cancelled">>],
            ?assertEqual({Era, Noticed}, {Era, length(Cancelled)}),
            shut_down_leaving_nothing(Client)
        end)
    end} || {Era, Noticed} <- [{handshake, 1}, {modern, 0}]].

%%% ---------------------------------------------- a server that stops answering

%% A remote server that accepts and never answers (with a reconnect
%% policy): a call's deadline passes after `unresponsive_ms' of silence,
%% the ping goes unanswered as long, and the connection ends
%% `{unresponsive, SilentMs}'; the policy reaches the server again with a
%% new handshake, and calls are answered once it answers again.
a_remote_server_that_stops_answering_is_reached_again_test_() ->
    {timeout, 30, fun() ->
        Hung = atomics:new(1, []),
        with_stub(holding(Hung), fun(Url) ->
            {Client, Reconnecting} = after_a_hang(Url, #{attempts => 2, backoff_ms => 100}, Hung),
            Pid = mcp_client:pid(Client),
            {mcp_reconnecting, Pid, 1, {unresponsive, SilentMs}} = Reconnecting,
            ?assert(SilentMs >= 600),
            atomics:put(Hung, 1, 0),
            receive {mcp_reconnected, Pid, 1} -> ok after 5000 -> error(no_reconnected) end,
            ?assertMatch({ok, {call_tool_result, [{text, <<"ok">>}], false, none}}, call(Client)),
            Methods = [rpc_method(Body) || #{body := Body} <- requests()],
            ?assertEqual(2, length([M || M <- Methods, M =:= <<"initialize">>])),
            ?assertEqual(1, length([M || M <- Methods, M =:= <<"ping">>])),
            shut_down_leaving_nothing(Client)
        end)
    end}.

%% A remote server writing one long answer slowly is heard while it
%% writes: with `unresponsive_ms' 500, after a silence, a call whose
%% deadline passes sends the probe (which the server never answers) while
%% another call's answer, 1 MB in one event, arrives in pieces 150 ms
%% apart: ten equal ones, or twelve each cut just before a `:' of the
%% text, so that every piece but the first starts as a comment line would
%% (the call whose deadline passes is then made 700 ms after the answer
%% began: the pieces since are all such, and heard, so no probe is sent);
%% the pieces keep the connection (no whole message arrives before the
%% probe's deadline), and the long answer is read. The same holds for an
%% event written with an `event:' line first and its lines ended by CR
%% (each piece after the first continues its `data:' line).
a_remote_server_writing_a_long_answer_is_heard_test_() ->
    Tenths = fun(Event) ->
                     Piece = byte_size(Event) div 10 + 1,
                     [binary:part(Event, N * Piece, min(Piece, byte_size(Event) - N * Piece)) || N <- lists:seq(0, 9)]
             end,
    AtColons = fun(Event) ->
                       Cuts = [Colon || N <- lists:seq(1, 11),
                                        {Colon, 1} <- [binary:match(Event, <<":">>, [{scope, {byte_size(Event) * N div 12, byte_size(Event) * (12 - N) div 12}}])]],
                       [binary:part(Event, From, To - From) || {From, To} <- lists:zip([0 | Cuts], Cuts ++ [byte_size(Event)])]
               end,
    Lf = fun(Json) -> [<<"data: ">>, Json, <<"\n\n">>] end,
    Cr = fun(Json) -> [<<"event: message\rdata: ">>, Json, <<"\r\r">>] end,
    [{timeout, 30, fun() -> long_answer_heard(<<"x">>, Lf, Tenths, 0, 1) end},
     {timeout, 30, fun() -> long_answer_heard(<<"x">>, Cr, Tenths, 0, 1) end},
     {timeout, 30, fun() -> long_answer_heard(<<"xxxx:">>, Lf, AtColons, 700, 0) end}].

long_answer_heard(Unit, Framed, Cut, Delay, Probes) ->
    begin
        Text = binary:copy(Unit, 1000000 div byte_size(Unit)),
        Slow = fun(<<"tools/call">>, #{body := Body}) ->
                       case binary:match(Body, <<"\"slow\"">>) of
                           nomatch ->
                               hold;
                           _ ->
                               {ok, {object, Members}} = mcp_json:decode(Body),
                               {int, Id} = proplists:get_value(<<"id">>, Members),
                               Event = iolist_to_binary(
                                         Framed([<<"{\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(Id),
                                                 <<",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"">>, Text,
                                                 <<"\"}]}}">>])),
                               {sse_slow, [], Cut(Event), 150}
                       end;
                  (<<"ping">>, _) ->
                       hold;
                  (_, _) ->
                       default
               end,
        with_stub(Slow, fun(Url) ->
            {Client, Pid, Long} = long_call_after_a_silence(Url, 500, <<"slow">>, Delay),
            ?assertEqual({ok, {call_tool_result, [{text, Text}], false, none}}, long_answer(Long)),
            ?assertEqual(none, receive {mcp_reconnecting, Pid, _, _} = E -> E after 500 -> none end),
            Methods = [rpc_method(Body) || #{body := Body} <- requests()],
            ?assertEqual(Probes, length([M || M <- Methods, M =:= <<"ping">>])),
            shut_down_leaving_nothing(Client)
        end)
    end.

%% The stream of a request resumed by a GET with `Last-Event-ID' is the
%% server answering as its POST's is: a server whose call's stream ended
%% after an event id (`retry: 100') writes the 1 MB answer on the
%% resumption in ten pieces 150 ms apart, while a call's deadline passes
%% and the probe goes unanswered (`unresponsive_ms' 500): the connection
%% is kept and the answer read.
a_resumed_answer_is_heard_test_() ->
    {timeout, 40, fun() ->
        Text = binary:copy(<<"x">>, 1000000),
        Pending = atomics:new(1, []),
        Post = mcp(fun(<<"tools/call">>, #{body := Body}) ->
                           case binary:match(Body, <<"\"slow\"">>) of
                               nomatch -> hold;
                               _ ->
                                   {int, Id} = id_of(Body),
                                   atomics:put(Pending, 1, Id),
                                   {sse, [], [<<"retry: 100\nid: ev-1\n\n">>]}
                           end;
                      (<<"ping">>, _) -> hold;
                      (_, _) -> default
                   end),
        Handler = fun(#{method := 'GET', headers := Headers} = Request) ->
                          case proplists:get_value(<<"last-event-id">>, Headers) of
                              undefined -> Post(Request);
                              _ ->
                                  Event = iolist_to_binary(
                                            [<<"data: {\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(atomics:get(Pending, 1)),
                                             <<",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"">>, Text,
                                             <<"\"}]}}\n\n">>]),
                                  Piece = byte_size(Event) div 10 + 1,
                                  {sse_slow, [{"content-type", "text/event-stream"}],
                                   [binary:part(Event, N * Piece, min(Piece, byte_size(Event) - N * Piece))
                                    || N <- lists:seq(0, 9)], 150}
                          end;
                     (Request) ->
                          Post(Request)
                  end,
        with_stub_handler(Handler, fun(Url) ->
            {Client, Pid, Long} = long_call_after_a_silence(Url, 500, <<"slow">>, 0),
            ?assertEqual({ok, {call_tool_result, [{text, Text}], false, none}}, long_answer(Long)),
            ?assertEqual(none, receive {mcp_reconnecting, Pid, _, _} = E -> E after 500 -> none end),
            ?assertMatch([_ | _], [R || #{method := 'GET'} = R <- requests()]),
            shut_down_leaving_nothing(Client)
        end)
    end}.

%% Keep-alives are not the server answering: a remote server whose HTTP
%% layer sends `: ping' comments, `event: ping' with an empty `data:' or
%% with data (an event of another type is no message; lines ended by LF,
%% CR LF or CR), or lines of fields the stream ignores (`ping', `data :'),
%% every 100 ms on one call's stream while nothing answers that call,
%% another, or the probe is found unresponsive; so is one whose
%% keep-alives come cut within a field's name (`ev', then `ent: ping' and
%% the next one's `ev' 100 ms later).
keep_alives_are_not_the_server_answering_test_() ->
    [{timeout, 30, fun() -> found_unresponsive(First, KeepAlive) end}
     || {First, KeepAlive} <- [{[], <<": ping\n">>}, {[], <<"event: ping\ndata:\n\n">>},
                               {[], <<"event: ping\r\ndata: \r\n\r\n">>}, {[], <<"event: ping\rdata:\r\r">>},
                               {[], <<"event: ping\ndata: 2026-12-07 01:00:00.000000\n\n">>},
                               {[], <<"event: ping\r\ndata: 1\r\n\r\n">>},
                               {[], <<"ping\n\n">>}, {[], <<"data : ping\n\n">>},
                               {[<<"ev">>], <<"ent: ping\ndata:\n\nev">>}]].

%% A chunk of keep-alives is read without building a term per line: a
%% hung server writing 256 KiB of blank lines (CR) every 20 ms on a call's
%% stream is found unresponsive, the actor's memory below 2 MiB meanwhile,
%% as for one comment line of that size (the transport had split each
%% chunk into its lines to hear it: a red team saw the actor at 43-53 MB).
keep_alives_in_bulk_cost_the_actor_no_term_per_line_test_() ->
    [{timeout, 60, fun() -> ?assert(found_unresponsive([], KeepAlive, 20) < 2 * 1024 * 1024) end}
     || KeepAlive <- [binary:copy(<<"\r">>, 262144), <<": ", (binary:copy(<<"p">>, 262141))/binary, "\n">>]].

%% An event id is kept only up to the echo cap: a hung server writing an
%% event whose id is 16 MiB, then 2,000 blank lines every 100 ms, is found
%% unresponsive and shut down leaving nothing (every push had handed the
%% 16 MiB id back and every blank line compared it: a red team's actor was
%% never found, its shutdown timed out, and it and its manager were left).
a_hung_server_with_a_huge_event_id_is_found_test_() ->
    Id = binary:copy(<<"i">>, mcp_event_stream:max_event_bytes() - 64),
    {timeout, 60, fun() -> found_unresponsive([<<"id: ", Id/binary, "\n\n">>], binary:copy(<<"\n">>, 2000)) end}.

found_unresponsive(First, KeepAlive) ->
    found_unresponsive(First, KeepAlive, 100).

%% The same, keep-alives every `Every' ms: the most memory the actor took
%% meanwhile (sampled every 10 ms).
found_unresponsive(First, KeepAlive, Every) ->
        Stuck = fun(<<"tools/call">>, #{body := Body}) ->
                        case binary:match(Body, <<"\"commenting\"">>) of
                            nomatch -> hold;
                            _ -> {sse_forever, [], First, Every, KeepAlive}
                        end;
                   (<<"ping">>, _) -> hold;
                   (_, _) -> default
                end,
        with_stub(Stuck, fun(Url) ->
            {Client, Pid, Long} = long_call_after_a_silence(Url, 300, <<"commenting">>, 0),
            Sampler = spawn_link(fun() -> most_memory(Pid, 0) end),
            ?assertMatch({mcp_reconnecting, Pid, 1, {unresponsive, _}},
                         receive {mcp_reconnecting, Pid, _, _} = E -> E after 5000 -> no_reconnecting end),
            Sampler ! {stop, self()},
            Most = receive {most_memory, Sampler, Bytes} -> Bytes end,
            ?assertMatch({error, {unavailable, _}}, long_answer(Long)),
            shut_down_leaving_nothing(Client),
            Most
        end).

%% The most memory process `Pid' held, sampled every 10 ms until asked.
most_memory(Pid, Most) ->
    receive
        {stop, Asker} -> Asker ! {most_memory, self(), Most}
    after 10 ->
        case process_info(Pid, memory) of
            {memory, Bytes} -> most_memory(Pid, max(Bytes, Most));
            undefined -> most_memory(Pid, Most)
        end
    end.

%% Nor is what comes on the standalone stream: a remote server that
%% declares `tools.listChanged' (the client opens the stream) and sends a
%% `ping' request on it every 100 ms (each answered and acknowledged),
%% while nothing answers a call or the probe, is found unresponsive; as is
%% one sending `: ping' comments there.
standalone_stream_keep_alives_are_not_the_server_answering_test_() ->
    [{timeout, 30, fun() -> found_unresponsive_by_its_standalone_stream(KeepAlive) end}
     || KeepAlive <- [<<"data: {\"jsonrpc\":\"2.0\",\"id\":\"keep-alive\",\"method\":\"ping\"}\n\n">>,
                      <<": ping\n\n">>]].

found_unresponsive_by_its_standalone_stream(KeepAlive) ->
    Stuck = atomics:new(1, []),
    Opened = atomics:new(1, []),
    Server = mcp(fun(<<"initialize">>, #{body := Body}) ->
                         {ok, {object, Members}} = mcp_json:decode(Body),
                         json(proplists:get_value(<<"id">>, Members),
                              <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                                "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>,
                              [{"mcp-session-id", "session-1"}]);
                    (<<"tools/list">>, #{body := Body}) ->
                         {ok, {object, Members}} = mcp_json:decode(Body),
                         json(proplists:get_value(<<"id">>, Members), <<"{\"tools\":[]}">>, []);
                    (response, _) ->
                         {reply, 202, [], <<>>};
                    (Method, Request) ->
                         (holding(Stuck))(Method, Request)
                 end),
    Handler = fun(#{method := 'GET'}) ->
                      atomics:put(Opened, 1, 1),
                      {sse_forever, [{"content-type", "text/event-stream"}], [], 100, KeepAlive};
                 (Request) ->
                      Server(Request)
              end,
    with_stub_handler(Handler, fun(Url) ->
        {Client, Reconnecting} = after_a_hang(Url, #{attempts => 1, backoff_ms => 0}, Stuck),
        ?assertEqual(1, atomics:get(Opened, 1)),
        Pid = mcp_client:pid(Client),
        ?assertMatch({mcp_reconnecting, Pid, 1, {unresponsive, _}}, Reconnecting),
        shut_down_leaving_nothing(Client)
    end).

%% The `with_stub' override of a server that holds calls and pings once
%% `Hung' is set.
holding(Hung) ->
    fun(Method, _) when Method =:= <<"tools/call">>; Method =:= <<"ping">> ->
            case atomics:get(Hung, 1) of
                1 -> hold;
                0 -> default
            end;
       (_, _) ->
            default
    end.

%% A client of `Url' (reconnect policy `Reconnect', `unresponsive_ms' 300)
%% whose server then hangs (`Hung' set, `holding/1'): a call's deadline
%% passes; the client, and its next `mcp_reconnecting' (or
%% `no_reconnecting' within 5 s).
after_a_hang(Url, Reconnect, Hung) ->
    {ok, Client, _} = mcp_client:start(#{url => Url}, #{reconnect => Reconnect#{unresponsive_ms => 300}}),
    ok = mcp_client:subscribe(Client),
    atomics:put(Hung, 1, 1),
    timer:sleep(400),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 100)),
    {Client, receive {mcp_reconnecting, _, _, _} = E -> E after 5000 -> no_reconnecting end}.

%% A client with a reconnect policy (`unresponsive_ms' `Silence'), silent
%% for longer than that, then a call of tool `Tool' (10 s, in a process of
%% its own), and `Delay' ms later another (100 ms, its stub holds it) whose
%% deadline passes: the client, its actor and the long call's process.
long_call_after_a_silence(Url, Silence, Tool, Delay) ->
    {ok, Client, _} = mcp_client:start(#{url => Url}, #{reconnect => #{attempts => 1, backoff_ms => 0,
                                                                       unresponsive_ms => Silence}}),
    ok = mcp_client:subscribe(Client),
    timer:sleep(Silence + 100),
    Self = self(),
    Long = spawn_link(fun() -> Self ! {long, self(), mcp_client:call_tool(Client, Tool, {object, []}, 10000)} end),
    timer:sleep(Delay),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 100)),
    {Client, mcp_client:pid(Client), Long}.

long_answer(Long) ->
    receive {long, Long, Answer} -> Answer after 10000 -> no_answer end.

%%% ------------------------------------------------------------ secrets

%% The attack: printing a spec, or the actor's status, shows what it holds.
%% The defence: the spec's headers are sealed, and the actor's status
%% shows its spec without them.
a_header_value_is_never_shown_test() ->
    Spec = #{url => "http://127.0.0.1:1/mcp", headers => [{"Authorization", ?SECRET}]},
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Spec]), ?SECRET)),
    ?assertEqual(nomatch, string:find(io_lib:format("~p", [mcp_http:seal(Spec)]), ?SECRET)),
    with_stub(fun(_, _) -> default end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url, headers => [{"Authorization", ?SECRET}]}, #{}),
        Status = sys:get_status(mcp_client:pid(Client)),
        ?assertEqual(nomatch, string:find(io_lib:format("~p", [Status]), ?SECRET)),
        ?assertEqual(nomatch, string:find(io_lib:format("~p", [sys:get_state(mcp_client:pid(Client))]), ?SECRET)),
        shut_down_leaving_nothing(Client)
    end).

%% Nor is a token in the URL's query: the actor's status (what
%% `sys:get_status' and a crash report show) has the URL without its query
%% and not its connection; the raw state (`sys:get_state') holds it.
a_url_query_is_never_shown_test() ->
    with_stub(fun(_, _) -> default end, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => unicode:characters_to_list([Url, "?key=", ?SECRET])}, #{}),
        Pid = mcp_client:pid(Client),
        ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [sys:get_state(Pid)]), ?SECRET)),
        ?assertEqual(nomatch, string:find(io_lib:format("~p", [sys:get_status(Pid)]), ?SECRET)),
        shut_down_leaving_nothing(Client)
    end).

%% A server's bytes stay out of the shutdown's evidence too: a server that
%% answers the session's DELETE with bytes that are not HTTP has the
%% evidence name the read's size, not quote it (a caller prints it:
%% `mcp_describe').
a_deletes_unparsable_answer_is_not_quoted_in_the_evidence_test_() ->
    {timeout, 30, fun() ->
        Garbage = <<"NOT-HTTP ", ?SECRET, " ", (binary:copy(<<"y">>, 65536))/binary, "\r\n\r\n">>,
        Server = mcp(fun(_, _) -> default end),
        Handler = fun(#{method := 'DELETE'}) -> {raw, Garbage};
                     (Request) -> Server(Request)
                  end,
        with_stub_handler(Handler, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
            {ok, Evidence} = mcp_client:shutdown(Client, 5000),
            ?assertMatch({exited, {peer_down, {http_session, {failed, {could_not_parse_as_http, _}}}}}, Evidence),
            ?assertEqual(nomatch, binary:match(term_to_binary(Evidence), <<?SECRET>>)),
            ?assert(byte_size(term_to_binary(Evidence)) < 1024)
        end)
    end}.

start_errors_name_no_value_test_() ->
    os:unsetenv("MCP_HTTP_TEST_UNSET"),
    Start = fun(Spec) -> mcp_client:start(Spec, #{}) end,
    [?_assertEqual({error, {transport_failed, {header_variable_unset, <<"MCP_HTTP_TEST_UNSET">>}}},
                   Start(#{url => "http://127.0.0.1:1/mcp", headers => [{"X", "a ${MCP_HTTP_TEST_UNSET}"}]})),
     ?_assertEqual({error, {transport_failed, {bad_header, <<"X">>}}},
                   Start(#{url => "http://127.0.0.1:1/mcp", headers => [{"X", ?SECRET "\r\nInjected: 1"}]})),
     ?_assertEqual({error, {transport_failed, {bad_header, <<"Bad Name">>}}},
                   Start(#{url => "http://127.0.0.1:1/mcp", headers => [{"Bad Name", "v"}]})),
     %% Plaintext to another host: refused before any connection.
     ?_assertEqual({error, {transport_failed, {plaintext_headers, <<"192.0.2.1">>}}},
                   Start(#{url => "http://192.0.2.1/mcp", headers => [{"Authorization", ?SECRET}]})),
     ?_assertEqual({error, {transport_failed, {not_for_http, [jail, env]}}},
                   Start(#{url => "http://127.0.0.1:1/mcp", jail => true, env => []})),
     ?_assertEqual({error, {transport_failed, {bad_url, userinfo_not_allowed}}},
                   Start(#{url => "http://user:" ?SECRET "@127.0.0.1:1/mcp"})),
     ?_assertEqual({error, {transport_failed, {bad_url, unsupported_scheme}}},
                   Start(#{url => "ftp://127.0.0.1/mcp"}))].

%%% ---------------------------------------------------- hostile servers

%% Each case: the error, within the hang guard, and nothing left behind.
hostile_test_() ->
    Big = binary:copy(<<"x">>, 2048),
    Cases =
        [{"redirect to another origin", fun(_, _) -> {reply, 307, [{"location", "http://127.0.0.2:9/mcp"}], <<>>} end,
          {handshake, {unavailable, {http_status, 307}}}},
         {"HTML", fun(_, _) -> {reply, 200, [{"content-type", "text/html"}], <<"<html></html>">>} end,
          {handshake, {unavailable, {content_type, <<"text/html">>}}}},
         {"garbage body", fun(_, _) -> {reply, 200, [{"content-type", "application/json"}], <<"%%%">>} end,
          {handshake, {unavailable, {malformed_message, {corruption_report, 0, any}}}}},
         {"not HTTP", fun(_, _) -> {raw, <<"SSH-2.0-OpenSSH\r\n\r\n">>} end,
          {handshake, {unavailable, {http_failed, any}}}},
         {"giant body", fun(_, _) -> {reply, 200, [{"content-type", "application/json"}], Big} end,
          {handshake, {unavailable, {line_too_long, any}}}},
         {"giant event", fun(_, _) -> {sse, [], [<<"data: ">>, Big, <<"\n\n">>]} end,
          {handshake, {unavailable, {event_too_long, any}}}},
         {"slow headers", fun(_, _) -> hold end, {handshake, call_timed_out}},
         {"endless stream", fun(<<"tools/call">>, _) -> {sse_forever, [], [], 5}; (_, _) -> default end,
          {call, call_timed_out}},
         {"wrong id", fun(<<"tools/call">>, _) -> json({int, 999}, <<"{}">>, []); (_, _) -> default end,
          {call, call_timed_out}},
         {"expiring session", fun(<<"tools/call">>, _) -> {reply, 404, [], <<"gone">>}; (_, _) -> default end,
          {call, {unavailable, session_expired}}},
         {"stream ends without the response or an id", fun(<<"tools/call">>, _) -> {sse, [], [<<": nothing\n\n">>]};
                                                          (_, _) -> default end,
          {call, {unavailable, {stream_lost, ended}}}},
         {"server error status", fun(<<"tools/call">>, _) -> {reply, 500, [], <<"oops">>}; (_, _) -> default end,
          {call, {unavailable, {http_status, 500}}}},
         {"endless error body", fun(_, _) -> {endless_body, 500} end,
          {handshake, {unavailable, {response_too_large, any}}}},
         {"endless headers", fun(_, _) -> endless_headers end,
          {handshake, {unavailable, {response_too_large, any}}}},
         {"endless error body to a call", fun(<<"tools/call">>, _) -> {endless_body, 503}; (_, _) -> default end,
          {call, {unavailable, {response_too_large, any}}}},
         %% After the headers of a 200: httpc's chunked decoder reads a size
         %% line without end (without the watch: the call times out while
         %% the handler grows by what the network delivers).
         {"endless chunk size to a call", fun(<<"tools/call">>, _) -> {endless_chunk_size, []}; (_, _) -> default end,
          {call, {unavailable, {response_too_large, any}}}}],
    [{Name, {timeout, 30, fun() -> hostile(Override, Expected) end}} || {Name, Override, Expected} <- Cases].

hostile(Override, {Stage, Expected}) ->
    Other = mcp_http_stub:start(fun(_) -> {reply, 200, [], <<>>} end, {127, 0, 0, 2}),
    try
        _ = with_stub(Override, fun(Url) ->
            Spec = #{url => Url, headers => [{"Authorization", ?SECRET}], max_line_bytes => 1024},
            {ok, Client} = mcp_client:prepare(Spec, #{handshake_timeout_ms => 1000}),
            Handshake = mcp_client:connect(Client),
            Outcome = case Stage of
                          handshake -> Handshake;
                          call -> {ok, _} = Handshake, call(Client)
                      end,
            ?assert(matches({error, Stage, Expected}, {error, Stage, outcome(Stage, Outcome)})),
            shut_down_leaving_nothing(Client)
        end),
        %% The other origin never saw a request (nor a header).
        ?assertEqual([], [R || {stub_request, Stub, R} <- flush(), Stub =:= maps:get(pid, Other)])
    after
        mcp_http_stub:stop(Other),
        forget_requests(Other)
    end.

outcome(handshake, {error, {handshake_failed, Why}}) -> Why;
outcome(call, {error, Why}) -> Why;
outcome(_, Other) -> {unexpected, Other}.

flush() -> receive M -> [M | flush()] after 0 -> [] end.

%% `any' in the expected term matches anything.
matches(any, _) -> true;
matches(Expected, Got) when is_tuple(Expected), is_tuple(Got), tuple_size(Expected) =:= tuple_size(Got) ->
    lists:all(fun({E, G}) -> matches(E, G) end, lists:zip(tuple_to_list(Expected), tuple_to_list(Got)));
matches(Same, Same) -> true;
matches(Expected, Got) -> ?debugFmt("expected ~p, got ~p", [Expected, Got]), false.

%% An answer `httpc' cannot parse is quoted whole in its reason; the
%% death reason keeps only its size, so a server's bytes (here a marker
%% and 64 KiB) never reach the caller, a log or a crash report.
a_server_that_does_not_speak_http_is_not_quoted_test_() ->
    {timeout, 30, fun() ->
        Garbage = <<"NOT-HTTP leaked-marker ", (binary:copy(<<"y">>, 65536))/binary, "\r\n\r\n">>,
        %% Without the transport: httpc's own reason carries the bytes.
        Stub = mcp_http_stub:start(fun(_) -> {raw, Garbage} end),
        try
            {error, Raw} = httpc:request(post, {mcp_http_stub:url(Stub), [], "application/json", <<"{}">>}, [], []),
            ?assertNotEqual(nomatch, binary:match(term_to_binary(Raw), <<"leaked-marker">>))
        after
            mcp_http_stub:stop(Stub)
        end,
        with_stub(fun(_, _) -> {raw, Garbage} end, fun(Url) ->
            {ok, Client} = mcp_client:prepare(#{url => Url}, #{handshake_timeout_ms => 5000}),
            {error, {handshake_failed, {unavailable, {http_failed, Reason}}}} = mcp_client:connect(Client),
            ?assertMatch({could_not_parse_as_http, Size} when is_integer(Size), Reason),
            ?assertEqual(nomatch, binary:match(term_to_binary(Reason), <<"leaked-marker">>)),
            shut_down_leaving_nothing(Client)
        end)
    end}.

%% A server's bytes in a media type or a broken chunk-size line never reach
%% the death reason whole: the type is cut to 64 bytes, httpc's quoted
%% chunk-size line is left out (it carried terminal controls here).
server_bytes_stay_out_of_death_reasons_test_() ->
    {timeout, 30, fun() ->
        LongType = "text/" ++ lists:duplicate(100000, $x),
        _ = with_stub(fun(_, _) -> {reply, 200, [{"content-type", LongType}], <<"{}">>} end, fun(Url) ->
            {ok, Client} = mcp_client:prepare(#{url => Url}, #{}),
            {error, {handshake_failed, {unavailable, {content_type, Type}}}} = mcp_client:connect(Client),
            ?assertEqual(64, byte_size(Type))
        end),
        Broken = <<"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
                   "\e[2J\e[31mRED\r\n">>,
        with_stub(fun(_, _) -> {raw, Broken} end, fun(Url) ->
            {ok, Client} = mcp_client:prepare(#{url => Url}, #{}),
            {error, {handshake_failed, {unavailable, Reason}}} = mcp_client:connect(Client),
            ?assertEqual(nomatch, binary:match(term_to_binary(Reason), [<<"\e">>, <<"RED">>]))
        end)
    end}.

%% What the transport guards against: `httpc' alone keeps reading an
%% answer it does not stream (any status but 200) into its handler, with
%% no limit, for as long as the request lives.
httpc_alone_holds_an_endless_body_test_() ->
    {timeout, 30, fun() ->
        Stub = mcp_http_stub:start(fun(_) -> {endless_body, 500} end),
        {ok, Manager} = inets:start(httpc, [{profile, mcp_http_tests_profile}], stand_alone),
        try
            {ok, RequestId} = httpc:request(post, {mcp_http_stub:url(Stub), [], "application/json", <<"{}">>}, [],
                                            [{sync, false}, {stream, {self, once}}, {body_format, binary}], Manager),
            Table = mcp_http_watch:handler_table(mcp_http_tests_profile),
            Holds = fun() ->
                            {ok, Held} = mcp_http_watch:held_bytes(Table, RequestId),
                            Held > 8 * 1048576
                    end,
            ?assertEqual(ok, settles(Holds, 500)),
            ok = httpc:cancel_request(RequestId, Manager)
        after
            inets:stop(httpc, Manager),
            mcp_http_stub:stop(Stub),
            forget_requests(Stub)
        end
    end}.

%%% ---------------------------------------------------------------- TLS

%% A TLS server whose certificate no system CA signed. The attack: a
%% client that does not verify completes the handshake with it. The
%% defence: `mcp_http' verifies against the system's CA store, so the
%% handshake fails, typed, before any request (or header) is written.
tls_verifies_the_server_test_() ->
    {timeout, 60, fun() ->
        {ok, _} = application:ensure_all_started(ssl),
        Key = [{key, {namedCurve, {1, 2, 840, 10045, 3, 1, 7}}}],   % secp256r1
        #{server_config := ServerConfig} =
            public_key:pkix_test_data(#{server_chain => #{root => Key, intermediates => [], peer => Key},
                                        client_chain => #{root => Key, intermediates => [], peer => Key}}),
        {ok, Listen} = ssl:listen(0, [binary, {active, false}, {reuseaddr, true}, {ip, {127, 0, 0, 1}}
                                      | proplists:delete(cacerts, ServerConfig)]),
        {ok, {_, Port}} = ssl:sockname(Listen),
        Self = self(),
        Acceptor = spawn_link(fun() -> tls_accept(Listen, Self) end),
        try
            {ok, Unverified} = ssl:connect({127, 0, 0, 1}, Port, [{verify, verify_none}, {active, false}], 5000),
            ok = ssl:close(Unverified),
            Url = "https://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp",
            {ok, Client} = mcp_client:prepare(#{url => Url, headers => [{"Authorization", ?SECRET}]}, #{}),
            ?assertMatch({error, {handshake_failed, {unavailable, {http_failed, _}}}}, mcp_client:connect(Client)),
            shut_down_leaving_nothing(Client),
            %% The server never read a byte of HTTP.
            ?assertEqual([], [Bytes || {tls_request_bytes, Bytes} <- flush()])
        after
            unlink(Acceptor), exit(Acceptor, kill), ssl:close(Listen)
        end
    end}.

%% A TLS server that corrupts its stream once it has read a request: the
%% client's `httpc' handler stops on the TLS error, and OTP logs its
%% crash with its state, whose request holds the headers we sent. The
%% transport's logger filter withholds a handler's state and last message
%% (for this package's managers): no logged event holds the
%% `Authorization' value.
a_handler_crash_logs_no_header_value_test_() ->
    {timeout, 60, fun() ->
        {ok, _} = application:ensure_all_started(ssl),
        Key = [{key, {namedCurve, {1, 2, 840, 10045, 3, 1, 7}}}],   % secp256r1
        %% The server's certificate names 127.0.0.1.
        Named = [{extensions, [{'Extension', {2, 5, 29, 17}, false, [{dNSName, "127.0.0.1"}, {iPAddress, <<127, 0, 0, 1>>}]}]}
                 | Key],
        #{server_config := ServerConfig, client_config := ClientConfig} =
            public_key:pkix_test_data(#{server_chain => #{root => Key, intermediates => [], peer => Named},
                                        client_chain => #{root => Key, intermediates => [], peer => Key}}),
        CaFile = filename:join(scratch_dir(), "ca.pem"),
        ok = file:write_file(CaFile, public_key:pem_encode([{'Certificate', Der, not_encrypted}
                                                            || Der <- proplists:get_value(cacerts, ClientConfig)])),
        {ok, Listen} = gen_tcp:listen(0, [binary, {active, false}, {reuseaddr, true}, {ip, {127, 0, 0, 1}}]),
        {ok, Port} = inet:port(Listen),
        Acceptor = spawn_link(fun() -> corrupting_accept(Listen, proplists:delete(cacerts, ServerConfig)) end),
        ok = logger:add_handler(mcp_http_tests_reports, mcp_http_tests, #{config => self(), level => all}),
        try
            Url = "https://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp",
            {ok, Client} = mcp_client:prepare(#{url => Url, cacertfile => CaFile,
                                                headers => [{"Authorization", ?SECRET}]}, #{}),
            ?assertMatch({error, {handshake_failed, {unavailable, _}}}, mcp_client:connect(Client)),
            shut_down_leaving_nothing(Client),
            timer:sleep(500),
            Logged = [iolist_to_binary(io_lib:format("~tp", [Msg])) || {logged, {_, Msg}} <- flush_all()],
            ?assertNotEqual([], [L || L <- Logged, binary:match(L, <<"httpc_handler">>) =/= nomatch]),
            ?assertEqual([], [L || L <- Logged, binary:match(L, list_to_binary(?SECRET)) =/= nomatch])
        after
            _ = logger:remove_handler(mcp_http_tests_reports),
            unlink(Acceptor), exit(Acceptor, kill), gen_tcp:close(Listen)
        end
    end}.

corrupting_accept(Listen, ServerConfig) ->
    {ok, Tcp} = gen_tcp:accept(Listen),
    {ok, Tls} = ssl:handshake(Tcp, ServerConfig, 5000),
    {ok, _Request} = ssl:recv(Tls, 0, 5000),
    ok = ssl:send(Tls, <<"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n">>),
    timer:sleep(100),
    %% A record the client cannot decrypt, under the TLS layer.
    ok = gen_tcp:send(Tcp, <<23, 3, 3, 0, 64, (binary:copy(<<"x">>, 64))/binary>>),
    timer:sleep(2000).

scratch_dir() ->
    Dir = filename:join(["/tmp", "mcp_http_tests-" ++ os:getpid()]),
    ok = filelib:ensure_dir(filename:join(Dir, "file")),
    Dir.

tls_accept(Listen, Owner) ->
    case ssl:transport_accept(Listen) of
        {ok, Socket} ->
            case ssl:handshake(Socket, 5000) of
                {ok, Tls} ->
                    case ssl:recv(Tls, 0, 2000) of
                        {ok, Bytes} -> Owner ! {tls_request_bytes, Bytes}, ok;
                        _ -> ok
                    end;
                _ ->
                    ok
            end,
            tls_accept(Listen, Owner);
        _ ->
            ok
    end.

%%% ---------------------------------------------------- session renewal

%% A 404 to a request sent in the session: a new session is started (the
%% actor's initialize and initialized sent again) and the request, never
%% processed, is sent again in it: the caller gets its answer. Later
%% requests carry the new session; a session that expires again after a
%% message came in it is renewed again; a request refused twice ends the
%% connection.
session_renewal_test() ->
    Sessions = counters:new(1, []),
    Expire = counters:new(1, []),
    Override = fun(<<"initialize">>, #{body := Body}) ->
                       counters:add(Sessions, 1, 1),
                       Session = "session-" ++ integer_to_list(counters:get(Sessions, 1)),
                       {ok, {object, Members}} = mcp_json:decode(Body),
                       {reply, 200, Headers, Json} = default(<<"initialize">>, proplists:get_value(<<"id">>, Members)),
                       {reply, 200, lists:keystore("mcp-session-id", 1, Headers, {"mcp-session-id", Session}), Json};
                  (<<"tools/call">>, _) ->
                       case counters:get(Expire, 1) of
                           0 -> default;
                           _ -> counters:sub(Expire, 1, 1), {reply, 404, [], <<>>}
                       end;
                  (<<"tools/list">>, #{body := Body}) ->
                       json(id_of(Body), <<"{\"tools\":[]}">>, []);
                  (_, _) ->
                       default
               end,
    with_stub(Override, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
        {ok, {1, []}} = mcp_client:tools(Client),
        _ = requests(),
        counters:put(Expire, 1, 1),
        ?assertMatch({ok, _}, call(Client)),
        %% The call met the 404 in session-1, then went again in session-2
        %% after the new handshake: the same request (one id), twice.
        Sent = requests(),
        Calls = [{proplists:get_value(<<"mcp-session-id">>, H), id_of(B)}
                 || #{headers := H, body := B} <- Sent, rpc_method(B) =:= <<"tools/call">>],
        ?assertMatch([{<<"session-1">>, Id}, {<<"session-2">>, Id}], Calls),
        %% The new session's handshake, and (something was listed) the
        %% listing again: the server may have changed with its session.
        %% The notice and the listing go on separate connections, so the
        %% stub may see them in either order.
        [First | Then] = [rpc_method(B) || #{body := B} <- Sent, rpc_method(B) =/= <<"tools/call">>],
        ?assertEqual({<<"initialize">>, [<<"notifications/initialized">>, <<"tools/list">>]}, {First, lists:sort(Then)}),
        ?assertMatch({ok, _}, call(Client)),
        [#{headers := Headers}] = requests(),
        ?assertEqual(<<"session-2">>, proplists:get_value(<<"mcp-session-id">>, Headers)),
        %% Expired again after a message came in session-2: renewed again.
        counters:put(Expire, 1, 1),
        ?assertMatch({ok, _}, call(Client)),
        _ = requests(),
        %% A request refused twice (in session-3, then again in session-4).
        counters:put(Expire, 1, 2),
        ?assertEqual({error, {unavailable, session_expired}}, call(Client)),
        shut_down_leaving_nothing(Client)
    end).

id_of(Body) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    proplists:get_value(<<"id">>, Members).

%% What the standalone stream brings is no progress in a session: a server
%% that, in every new session, writes a notification there, ends the
%% stream (`retry: 1') and answers its reopening with 404 (the session is
%% gone) had the client renew its session for as long as it lived, with
%% no call made (31 sessions in 4 s): the second 404 ends the connection
%% (`session_expired').
the_standalone_stream_drives_no_renewals_test_() ->
    {timeout, 30, fun() ->
        Initializes = counters:new(1, []),
        Gets = counters:new(1, []),
        Note = <<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}">>,
        Server = mcp(fun(<<"initialize">>, #{body := Body}) ->
                             counters:add(Initializes, 1, 1),
                             json(id_of(Body), <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                                                 "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>,
                                  [{"mcp-session-id", "s-" ++ integer_to_list(counters:get(Initializes, 1))}]);
                        (<<"tools/list">>, #{body := Body}) ->
                             json(id_of(Body), <<"{\"tools\":[]}">>, []);
                        (_, _) ->
                             default
                     end),
        Handler = fun(#{method := 'GET'}) ->
                          counters:add(Gets, 1, 1),
                          case counters:get(Gets, 1) rem 2 of
                              1 -> {sse, [{"content-type", "text/event-stream"}], [<<"retry: 1\ndata: ", Note/binary, "\n\n">>]};
                              0 -> {reply, 404, [], <<>>}
                          end;
                     (Request) ->
                          Server(Request)
                  end,
        with_stub_handler(Handler, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
            timer:sleep(2000),
            Seen = counters:get(Initializes, 1),
            _ = mcp_client:shutdown(Client, 5000),
            ?assertEqual(2, Seen)
        end)
    end}.

%% A renewal whose `initialize' the client refuses (a version it does not
%% speak, an error, a result past 256 KiB, or a version it speaks that is
%% not the one the connection negotiated: the actor reads the server by
%% that one) leaves no session to go on in:
%% the connection ends `session_expired', the call that met the 404 and
%% the next one learn it at once (the new session had waited for good,
%% every call meeting its deadline); a renewal it accepts answers the call.
%% An `initialize' answered twice in one chunk is judged by its first
%% answer, as the actor reads it: another version or an error first, then
%% the connection's, is refused (the second answer had been the one
%% judged); and after a handshake answered `2025-06-18' then `2025-11-25',
%% a renewal naming `2025-11-25' is refused.
a_refused_renewal_ends_the_connection_test_() ->
    Refused = {error, {unavailable, session_expired}},
    Error = {<<"error">>, <<"{\"code\":-32603,\"message\":\"no\"}">>},
    [{timeout, 30, ?_assertEqual({Refused, Refused}, renewed_with([{<<"result">>, versioned(<<"1999-01-01">>)}]))},
     {timeout, 30, ?_assertEqual({Refused, Refused}, renewed_with([{<<"result">>, versioned(<<"2025-06-18">>)}]))},
     {timeout, 30, ?_assertEqual({Refused, Refused}, renewed_with([Error]))},
     {timeout, 30, ?_assertEqual({Refused, Refused},
                                 renewed_with([{<<"result">>, versioned(<<"2025-11-25">>,
                                                                        [",\"instructions\":\"",
                                                                         binary:copy(<<"x">>, 300000), "\""])}]))},
     {timeout, 30, ?_assertEqual({Refused, Refused},
                                 renewed_with([{<<"result">>, versioned(<<"2025-06-18">>)},
                                               {<<"result">>, versioned(<<"2025-11-25">>)}]))},
     {timeout, 30, ?_assertEqual({Refused, Refused},
                                 renewed_with([Error, {<<"result">>, versioned(<<"2025-11-25">>)}]))},
     {timeout, 30, ?_assertEqual({Refused, Refused},
                                 renewed_with([{<<"result">>, versioned(<<"2025-06-18">>)},
                                               {<<"result">>, versioned(<<"2025-11-25">>)}],
                                              [{<<"result">>, versioned(<<"2025-11-25">>)}]))},
     {timeout, 30, ?_assertMatch({{ok, _}, {ok, _}}, renewed_with([{<<"result">>, versioned(<<"2025-11-25">>)}]))}].

%% An `initialize' result naming `Version' (with `Members' added, JSON
%% text that follows a member).
versioned(Version) ->
    versioned(Version, []).

versioned(Version, Members) ->
    [<<"{\"protocolVersion\":\"", Version/binary, "\",\"capabilities\":{\"tools\":{}},"
       "\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}">>, Members, <<"}">>].

%% The connection's `initialize' answered twice in one event-stream chunk,
%% `2025-06-18' then `2025-11-25': the actor negotiates the first, and
%% every request after carries its version in `MCP-Protocol-Version' (the
%% header had named the second's).
the_version_header_is_the_one_the_actor_negotiated_test_() ->
    {timeout, 30, fun() ->
        Override = fun(<<"initialize">>, #{body := Body}) ->
                           initialize_answered_in_events("session-1", Body, [{<<"result">>, versioned(<<"2025-06-18">>)},
                                                                            {<<"result">>, versioned(<<"2025-11-25">>)}]);
                      (_, _) ->
                           default
                   end,
        with_stub(Override, fun(Url) ->
            {ok, Client, {initialize_result, Negotiated, _, _, _}} = mcp_client:start(#{url => Url}, #{}),
            _ = mcp_client:call_tool(Client, <<"t">>, {object, []}, 3000),
            _ = mcp_client:shutdown(Client, 5000),
            Sent = lists:usort([proplists:get_value(<<"mcp-protocol-version">>, Headers)
                                || #{headers := Headers, body := B} <- requests(),
                                   binary:match(B, <<"tools/call">>) =/= nomatch]),
            ?assertEqual({<<"2025-06-18">>, [<<"2025-06-18">>]}, {Negotiated, Sent})
        end)
    end}.

%% A call met by a 404 in the first session, the new session's
%% `initialize' answered with `Answers' (`{Member, Value}': `result' or
%% `error', each a message of its own, all in one event-stream chunk; a
%% single one in a JSON body), the first session's with `First' likewise
%% (or as the stub answers it): the outcomes of that call and the next (3
%% s deadlines).
renewed_with(Answers) ->
    renewed_with(default, Answers).

renewed_with(First, Answers) ->
    Initializes = counters:new(1, []),
    Override = fun(<<"initialize">>, #{body := Body}) ->
                       counters:add(Initializes, 1, 1),
                       case {counters:get(Initializes, 1), First, Answers} of
                           {1, default, _} ->
                               default;
                           {1, _, _} ->
                               initialize_answered_in_events("session-1", Body, First);
                           {_, _, [{Member, Value}]} ->
                               {reply, 200, [{"content-type", "application/json"}, {"mcp-session-id", "session-2"}],
                                rpc_answer(Body, Member, Value)};
                           _ ->
                               initialize_answered_in_events("session-2", Body, Answers)
                       end;
                  (<<"tools/call">>, #{headers := Headers}) ->
                       case proplists:get_value(<<"mcp-session-id">>, Headers) of
                           <<"session-1">> -> {reply, 404, [], <<>>};
                           _ -> default
                       end;
                  (_, _) ->
                       default
               end,
    with_stub(Override, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
        Outcome = mcp_client:call_tool(Client, <<"t">>, {object, []}, 3000),
        Next = mcp_client:call_tool(Client, <<"t">>, {object, []}, 3000),
        ?assertEqual(2, counters:get(Initializes, 1)),
        _ = mcp_client:shutdown(Client, 5000),
        {Outcome, Next}
    end).

%% The answer to the `initialize' of `Body': `Answers' as events of one
%% chunk, in session `Session'.
initialize_answered_in_events(Session, Body, Answers) ->
    {sse, [{"mcp-session-id", Session}],
     [iolist_to_binary([[<<"data: ">>, rpc_answer(Body, Member, Value), <<"\n\n">>] || {Member, Value} <- Answers])]}.

%% A JSON-RPC answer to the request of `Body': `Member' (`result' or
%% `error') `Value'.
rpc_answer(Body, Member, Value) ->
    [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(element(2, id_of(Body))),
     <<",\"">>, Member, <<"\":">>, Value, <<"}">>].

%% The session's DELETE answered with a body without end: its handler is
%% measured like a request's, and past its allowance the wait ends and the
%% manager stops (without the watch the handler reads on until half the
%% shutdown timeout, growing by what the network delivers).
an_endless_answer_to_the_delete_is_cut_short_test_() ->
    {timeout, 30, fun() ->
        Mcp = mcp(fun(_, _) -> default end),
        Handler = fun(#{method := 'DELETE'}) -> {endless_body, 200};
                     (Request) -> Mcp(Request)
                  end,
        with_stub_handler(Handler, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url, shutdown_timeout_ms => 20000}, #{}),
            ?assertMatch({ok, _}, call(Client)),
            Pid = mcp_client:pid(Client),
            ?assertMatch({ok, {exited, {peer_down, {http_session, {failed, {response_too_large, _}}}}}},
                         mcp_client:shutdown(Client, 20000)),
            ?assertNot(is_process_alive(Pid))
        end)
    end}.

%% A server that answers on the request's event stream and then keeps the
%% stream open: each stream is closed once its response came, so a
%% hundred calls leave the client at most one socket (its keep-alive
%% connection) instead of one per call.
a_request_stream_is_closed_once_answered_test_() ->
    {timeout, 60, fun() ->
        Handler = mcp(fun(<<"tools/call">>, #{body := Body}) ->
                              {ok, {object, Members}} = mcp_json:decode(Body),
                              {int, Id} = proplists:get_value(<<"id">>, Members),
                              {sse_forever, [], [[<<"data: {\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(Id),
                                                  <<",\"result\":{\"content\":[]}}\n\n">>]], 200};
                         (_, _) -> default
                      end),
        with_stub_handler(Handler, fun(Url) ->
            {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
            [?assertMatch({ok, _}, call(Client)) || _ <- lists:seq(1, 100)],
            ?assertEqual(ok, settles(fun() -> length(client_sockets()) =< 1 end, 250)),
            shut_down_leaving_nothing(Client)
        end)
    end}.

%% The sockets of `httpc' handlers: the client side of every connection.
client_sockets() ->
    [P || P <- erlang:ports(), erlang:port_info(P, name) =:= {name, "tcp_inet"},
          {connected, Owner} <- [erlang:port_info(P, connected)],
          {dictionary, Dictionary} <- [process_info(Owner, dictionary)],
          proplists:get_value('$initial_call', Dictionary) =:= {httpc_handler, init, 1}].

%% `ok' once `Holds()' is true, checked every 20 ms up to `Tries' times.
settles(Holds, Tries) ->
    case Holds() of
        true -> ok;
        false when Tries > 0 -> timer:sleep(20), settles(Holds, Tries - 1);
        false -> not_settled
    end.

with_stub_handler(Handler, Test) ->
    Stub = mcp_http_stub:start(Handler),
    try Test(mcp_http_stub:url(Stub)) after mcp_http_stub:stop(Stub), forget_requests(Stub) end.

%% A request's stream that ends before its response, after an event id
%% of `max_event_id_bytes()', is resumed with that id; one byte more and
%% the id is never echoed: no resumption, the stream is lost.
an_event_id_is_echoed_only_up_to_its_cap_test_() ->
    Max = mcp_http_session:max_event_id_bytes(),
    [{timeout, 30, ?_assertEqual({resumed, Max}, resume_after_id(binary:copy(<<"i">>, Max)))},
     {timeout, 30, ?_assertEqual(lost, resume_after_id(binary:copy(<<"i">>, Max + 1)))},
     {timeout, 30, ?_assertEqual(lost, resume_after_id(<<"a", 16#7F, "b">>))}].

resume_after_id(EventId) ->
    Pending = atomics:new(1, []),
    Handler = mcp(fun(<<"tools/call">>, #{body := Body}) ->
                          {ok, {object, Members}} = mcp_json:decode(Body),
                          {int, Id} = proplists:get_value(<<"id">>, Members),
                          atomics:put(Pending, 1, Id),
                          {sse, [], [[<<"retry: 10\nid: ">>, EventId, <<"\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                                                                          "\"params\":{\"level\":\"info\",\"data\":1}}\n\n">>]]};
                     (_, _) -> default
                  end),
    Get = fun(#{headers := Headers}) ->
                  case proplists:get_value(<<"last-event-id">>, Headers) of
                      undefined -> {reply, 405, [], <<>>};
                      _ -> {sse, [], [[<<"data: {\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(atomics:get(Pending, 1)),
                                       <<",\"result\":{\"content\":[]}}\n\n">>]]}
                  end
          end,
    Stub = mcp_http_stub:start(fun(#{method := 'GET'} = Request) -> Get(Request); (Request) -> Handler(Request) end),
    try
        {ok, Client, _} = mcp_client:start(#{url => mcp_http_stub:url(Stub)}, #{}),
        Outcome = call(Client),
        Echoed = [Id || #{method := 'GET', headers := H} <- requests(), {_, Id} <- [lists:keyfind(<<"last-event-id">>, 1, H)]],
        _ = mcp_client:shutdown(Client, 5000),
        case {Outcome, Echoed} of
            {{ok, _}, [Id]} when Id =:= EventId -> {resumed, byte_size(Id)};
            {{error, _}, []} -> lost;
            Other -> Other
        end
    after
        mcp_http_stub:stop(Stub), forget_requests(Stub)
    end.

%% Managers started from many processes at once: each gets a profile of
%% its own, and no crash or warning report is logged (two starts racing
%% for one name would crash the second manager's init).
concurrent_manager_starts_log_nothing_test_() ->
    {timeout, 60, fun() ->
        ok = logger:add_handler(mcp_http_tests_reports, mcp_http_tests, #{config => self(), level => warning}),
        Self = self(),
        try
            Starters = [spawn(fun() ->
                                      Outcome = mcp_httpc_profiles:start_manager(),
                                      Self ! {started, self(), Outcome},
                                      receive stop -> ok end
                              end) || _ <- lists:seq(1, 200)],
            Outcomes = [receive {started, P, O} -> O after 10000 -> no_answer end || P <- Starters],
            Profiles = [Profile || {ok, _, Profile} <- Outcomes],
            [P ! stop || P <- Starters],
            ?assertEqual(length(Profiles), length(lists:usort(Profiles))),
            ?assertEqual(200, length(Profiles)),
            timer:sleep(200),
            ?assertEqual([], [Event || {logged, Event} <- flush_all()])
        after
            _ = logger:remove_handler(mcp_http_tests_reports)
        end
    end}.

%% `httpc_handler''s warning about the empty read of a nudge that came
%% after its answer ended is dropped by the filter the first HTTP
%% transport installs; the same warning about other data, and any other
%% warning, still reach the log.
a_late_nudge_is_not_logged_and_nothing_else_is_dropped_test_() ->
    {timeout, 60, fun() ->
        %% An HTTP transport opened once: the filter is in place.
        {error, _} = mcp_client:start(#{url => "http://127.0.0.1:" ++ integer_to_list(closed_port()) ++ "/mcp"}, #{}),
        ok = logger:add_handler(mcp_http_tests_reports, mcp_http_tests, #{config => self(), level => warning}),
        Format = "Received unexpected ~p data on ~p~n   Data:       ~p~n   Request:    ~p~n",
        try
            error_logger:warning_msg(Format, [httpc_handler, dummy, <<>>, undefined]),
            error_logger:warning_msg(Format, [httpc_handler, dummy, <<"held bytes">>, undefined]),
            error_logger:warning_msg(Format, [tcp, socket, <<>>, undefined]),
            logger:warning("another warning"),
            timer:sleep(200),
            Logged = [case Msg of
                          {report, #{args := Args}} -> Args;
                          {string, Text} -> Text;
                          Other -> Other
                      end || {logged, {warning, Msg}} <- flush_all()],
            ?assertEqual([[httpc_handler, dummy, <<"held bytes">>, undefined], [tcp, socket, <<>>, undefined],
                          "another warning"],
                         Logged)
        after
            _ = logger:remove_handler(mcp_http_tests_reports)
        end
    end}.

%% A server that writes on a connection kept alive between requests:
%% `httpc_handler' warns of each read, with every byte read, its parser's
%% state and its request; the filter keeps the warning's protocol, socket,
%% byte count and profile. A server answers a call, then writes 1 MiB of
%% `x' on the idle connection: warnings are logged, none with more than
%% 4 KiB of the bytes, nor the request's `authorization' value.
a_servers_bytes_on_an_idle_connection_are_not_logged_test_() ->
    {timeout, 60, fun() ->
        Garbage = binary:copy(<<"x">>, 1024 * 1024),
        Handler = mcp(fun(<<"tools/call">>, #{body := Body}) ->
                              [Socket | _] = [P || P <- erlang:ports(), erlang:port_info(P, connected) =:= {connected, self()},
                                                   erlang:port_info(P, name) =:= {name, "tcp_inet"}],
                              _ = spawn(fun() -> timer:sleep(300), gen_tcp:send(Socket, Garbage) end),
                              {ok, {object, Members}} = mcp_json:decode(Body),
                              default(<<"tools/call">>, proplists:get_value(<<"id">>, Members));
                         (_, _) ->
                              default
                      end),
        ok = logger:add_handler(mcp_http_tests_reports, mcp_http_tests, #{config => self(), level => warning}),
        try
            _ = with_stub_handler(Handler, fun(Url) ->
                {ok, Client, _} = mcp_client:start(#{url => Url, headers => [{"authorization", ?SECRET}]}, #{}),
                ?assertMatch({ok, _}, call(Client)),
                timer:sleep(1000),
                mcp_client:shutdown(Client, 5000)
            end),
            Texts = [iolist_to_binary(case Msg of
                                          {report, #{format := Format, args := Args}} -> io_lib:format(Format, Args);
                                          {string, String} -> String;
                                          {Format, Args} -> io_lib:format(Format, Args)
                                      end) || {logged, {warning, Msg}} <- flush_all()],
            Unexpected = [T || T <- Texts, binary:match(T, <<"Received unexpected tcp data">>) =/= nomatch],
            ?assertNotEqual([], Unexpected),
            ?assertEqual([], [T || T <- Texts, binary:match(T, binary:copy(<<"x">>, 4096)) =/= nomatch]),
            ?assertEqual([], [T || T <- Texts, binary:match(T, list_to_binary(?SECRET)) =/= nomatch])
        after
            _ = logger:remove_handler(mcp_http_tests_reports)
        end
    end}.

%% The logger handler of the tests above: every event to the test process.
log(#{level := Level, msg := Msg}, #{config := Test}) ->
    Test ! {logged, {Level, Msg}}.

flush_all() ->
    receive Message -> [Message | flush_all()] after 0 -> [] end.

%% A connection that cannot be made reads as one sentence naming host,
%% port and cause (refused; TLS to a port that speaks plain HTTP), and no
%% OTP report reaches the log.
connection_failures_read_as_sentences_test_() ->
    {timeout, 60, fun() ->
        {ok, Listen} = gen_tcp:listen(0, [binary, {ip, {127, 0, 0, 1}}, {active, false}]),
        {ok, Port} = inet:port(Listen),
        Plain = spawn(fun() -> answer_plainly(Listen) end),
        ok = logger:add_handler(mcp_http_tests_reports, mcp_http_tests, #{config => self(), level => notice}),
        try
            Sentence = fun(Url) ->
                               {error, {handshake_failed, {unavailable, Death}}} = mcp_client:start(#{url => Url}, #{}),
                               unicode:characters_to_binary(mcp_describe:death(Death))
                       end,
            Closed = closed_port(),
            ?assertEqual(<<"could not connect to 127.0.0.1:", (integer_to_binary(Closed))/binary,
                           ": the connection was refused (nothing listens on that port)">>,
                         Sentence("http://127.0.0.1:" ++ integer_to_list(Closed) ++ "/mcp")),
            ?assertEqual(<<"could not connect to 127.0.0.1:", (integer_to_binary(Port))/binary,
                           ": TLS failed: the port does not speak TLS (a plain http server? then use an http:// URL)">>,
                         Sentence("https://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp")),
            timer:sleep(100),
            ?assertEqual([], [Event || {logged, Event} <- flush_all()])
        after
            _ = logger:remove_handler(mcp_http_tests_reports),
            exit(Plain, kill),
            ok = gen_tcp:close(Listen)
        end
    end}.

answer_plainly(Listen) ->
    {ok, Socket} = gen_tcp:accept(Listen),
    _ = gen_tcp:send(Socket, <<"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n">>),
    answer_plainly(Listen).

%% A loopback port nothing listens on (taken, then freed).
closed_port() ->
    {ok, Socket} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(Socket),
    gen_tcp:close(Socket),
    Port.

%%% --------------------------------------------------------------- proxies

with_env(Vars, Fun) ->
    Names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "HTTP_PROXY"],
    Saved = [{Name, os:getenv(Name)} || Name <- Names],
    [os:unsetenv(Name) || Name <- Names],
    [os:putenv(Name, Value) || {Name, Value} <- Vars],
    try Fun() after [case Value of false -> os:unsetenv(Name); _ -> os:putenv(Name, Value) end || {Name, Value} <- Saved] end.

%% The proxy of the environment carries the connection: a host that does
%% not resolve is reached through `http_proxy' (the proxy, a stub here,
%% sees the absolute URI); `no_proxy' naming the host, or only the upper
%% case HTTP_PROXY (which curl ignores), leaves it direct.
the_environment_proxy_is_used_test_() ->
    {timeout, 60, fun() ->
        Mcp = mcp(fun(_, _) -> default end),
        Stub = mcp_http_stub:start(fun(#{method := 'CONNECT'}) -> {reply, 403, [], <<>>}; (R) -> Mcp(R) end),
        Proxy = "http://127.0.0.1:" ++ integer_to_list(mcp_http_stub:port(Stub)),
        Far = "http://mcp.proxied.invalid/mcp",
        try
            with_env([{"http_proxy", Proxy}], fun() ->
                {ok, Client, _} = mcp_client:start(#{url => Far}, #{}),
                ?assertMatch({ok, _}, call(Client)),
                shut_down_leaving_nothing(Client)
            end),
            ?assertMatch([{<<"mcp.proxied.invalid">>, _} | _],
                         [To || #{proxied_to := To} <- requests()]),
            [with_env(Env, fun() ->
                ?assertMatch({error, {handshake_failed, {unavailable, {http_failed, _}}}},
                             mcp_client:start(#{url => Far}, #{}))
             end) || Env <- [[{"http_proxy", Proxy}, {"no_proxy", "example.com, .proxied.invalid"}],
                             [{"HTTP_PROXY", Proxy}]]],
            ?assertEqual([], requests()),
            with_env([{"https_proxy", Proxy}], fun() ->
                ?assertMatch({error, {handshake_failed, _}},
                             mcp_client:start(#{url => "https://mcp.proxied.invalid/mcp"}, #{}))
            end),
            ?assertMatch([#{method := 'CONNECT', proxied_to := {<<"mcp.proxied.invalid">>, <<"443">>}} | _], requests()),
            with_env([{"https_proxy", "socks5://127.0.0.1:1"}], fun() ->
                ?assertEqual({error, {transport_failed, {unsupported_proxy, "https_proxy"}}},
                             mcp_client:start(#{url => "https://mcp.proxied.invalid/mcp"}, #{}))
            end)
        after
            mcp_http_stub:stop(Stub), forget_requests(Stub)
        end
    end}.

%% This machine's loopback is never proxied: plain `http' there carries
%% the configured headers because nothing leaves the machine, and a proxy
%% would read them (curl proxies the loopback too).
the_loopback_is_never_proxied_test_() ->
    {timeout, 60, fun() ->
        Proxy = mcp_http_stub:start(fun(_) -> {reply, 502, [], <<>>} end),
        ProxyUrl = "http://127.0.0.1:" ++ integer_to_list(mcp_http_stub:port(Proxy)),
        try
            _ = with_stub(fun(_, _) -> default end, fun(Url) ->
                with_env([{"http_proxy", ProxyUrl}, {"all_proxy", ProxyUrl}], fun() ->
                    {ok, Client, _} = mcp_client:start(#{url => Url, headers => [{"x-api-key", ?SECRET}]}, #{}),
                    ?assertMatch({ok, _}, call(Client)),
                    shut_down_leaving_nothing(Client)
                end)
            end),
            ?assertEqual([], [R || {stub_request, Stub, R} <- flush(), Stub =:= maps:get(pid, Proxy)])
        after
            mcp_http_stub:stop(Proxy), forget_requests(Proxy)
        end
    end}.

%% The negotiated protocol version becomes a header only when it is a
%% short visible-ASCII value: a version carrying CR LF and a header of its
%% own is not sent (the teardown DELETE shows what later requests carry).
a_protocol_version_that_would_inject_a_header_is_not_sent_test_() ->
    Run = fun(Version) ->
                  Handler = mcp(fun(<<"initialize">>, #{body := Body}) ->
                                        {ok, {object, Members}} = mcp_json:decode(Body),
                                        {int, Id} = proplists:get_value(<<"id">>, Members),
                                        Result = mcp_json:encode({object, [{<<"protocolVersion">>, {string, Version}},
                                                                           {<<"capabilities">>, {object, [{<<"tools">>, {object, []}}]}},
                                                                           {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"s">>}},
                                                                                                        {<<"version">>, {string, <<"1">>}}]}}]}),
                                        json({int, Id}, Result, [{"mcp-session-id", "session-1"}]);
                                   (_, _) -> default
                                end),
                  with_stub_handler(Handler, fun(Url) ->
                      Started = case mcp_client:start(#{url => Url}, #{}) of
                                    {ok, Client, _} -> _ = mcp_client:shutdown(Client, 5000), started;
                                    {error, Reason} -> Reason
                                end,
                      {Started, [H || #{method := 'DELETE', headers := H} <- requests()]}
                  end)
          end,
    [{timeout, 30, fun() ->
         {started, [Headers]} = Run(<<"2025-11-25">>),
         ?assertEqual({<<"mcp-protocol-version">>, <<"2025-11-25">>}, lists:keyfind(<<"mcp-protocol-version">>, 1, Headers))
     end},
     {timeout, 30, fun() ->
         %% Refused by the client (not a version it speaks); the session's
         %% DELETE at the retirement carries neither the version nor the
         %% header smuggled in it.
         {{version_unsupported, _, _}, [Headers]} = Run(<<"2025-11-25\r\nx-injected: yes">>),
         ?assertEqual(false, lists:keyfind(<<"x-injected">>, 1, Headers)),
         ?assertEqual(false, lists:keyfind(<<"mcp-protocol-version">>, 1, Headers))
     end}].

%% A server that asks on a request's stream without end (pings) and never
%% acknowledges the answers: at most `max_answer_streams()' answers wait
%% at once; one more and the connection fails, its sockets closed. Below
%% the cap every question is answered (the channel).
unacknowledged_answers_are_bounded_test_() ->
    Run = fun(Questions) -> questions(Questions, hold) end,
    Max = mcp_http_session:max_answer_streams(),
    Held = mcp_http_session:max_held_answers(),
    [{timeout, 60, ?_assertMatch({{error, call_timed_out}, 10}, Run(10))},
     {timeout, 60, ?_assertMatch({{error, call_timed_out}, Max}, Run(Max + Held))},
     {timeout, 60, fun() ->
         {Outcome, Answers} = Run(Max + Held + 1),
         ?assertEqual({error, {unavailable, {write_failed, {http_failed, {too_many_streams, Max}}}}}, Outcome),
         ?assert(Answers =< Max)
     end}].

%% A burst of a server's questions on a call's stream, acknowledged at
%% once: every one is answered as the answers before it are acknowledged,
%% more than `max_answer_streams()' of them, and the connection stays.
a_burst_of_questions_is_answered_as_they_are_acknowledged_test_() ->
    {timeout, 60, ?_assertMatch({{error, call_timed_out}, 40}, questions(40, {reply, 202, [], <<>>}))}.

%% Unacknowledged answers are bounded in bytes too: an answer repeats its
%% question's id. 64 pings whose answers take 262,144 bytes each (their
%% ids padded) are held, 16 MiB together; a 65th fails the connection.
unacknowledged_answer_bytes_are_bounded_test_() ->
    Max = mcp_http_session:max_answer_bytes(),
    Answer = Max div 64,
    %% `{"jsonrpc":"2.0","id":"...","result":{}}' around the id.
    IdBytes = Answer - byte_size(<<"{\"jsonrpc\":\"2.0\",\"id\":\"\",\"result\":{}}">>),
    [{timeout, 60, fun() ->
         {Outcome, Answers, Sizes} = questions(64, hold, IdBytes),
         ?assertEqual({{error, call_timed_out}, mcp_http_session:max_answer_streams()}, {Outcome, Answers}),
         ?assertEqual([Answer], lists:usort(Sizes))
     end},
     {timeout, 60, fun() ->
         {Outcome, _, _} = questions(65, hold, IdBytes),
         ?assertEqual({error, {unavailable, {write_failed, {http_failed, {too_many_answer_bytes, Max + Answer}}}}}, Outcome)
     end}].

questions(Questions, Acknowledge) ->
    {Outcome, Answers, _Sizes} = questions(Questions, Acknowledge, 0),
    {Outcome, Answers}.

%% A call whose stream brings `Questions' server pings (then only `: ping'
%% comments), their ids `s1', `s2'... or padded to `IdBytes', our answers
%% acknowledged as `Acknowledge' says (`hold': never, or a 202): the
%% call's outcome, the answers POSTed and their sizes.
questions(Questions, Acknowledge, IdBytes) ->
    Id = fun(N) when IdBytes =:= 0 -> <<"s", (integer_to_binary(N))/binary>>;
            (N) -> Digits = integer_to_binary(N),
                   <<Digits/binary, $-, (binary:copy(<<"x">>, IdBytes - byte_size(Digits) - 1))/binary>>
         end,
    Pings = [[<<"data: {\"jsonrpc\":\"2.0\",\"id\":\"">>, Id(N),
              <<"\",\"method\":\"ping\"}\n\n">>] || N <- lists:seq(1, Questions)],
    Handler = mcp(fun(<<"tools/call">>, _) -> {sse_forever, [], Pings, 200};
                     (response, _) -> Acknowledge;
                     (_, _) -> default
                  end),
    with_stub_handler(Handler, fun(Url) ->
        {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
        Outcome = mcp_client:call_tool(Client, <<"t">>, {object, []}, 3000),
        Sizes = [byte_size(B) || #{method := 'POST', body := B} <- requests(), rpc_method(B) =:= response],
        _ = mcp_client:shutdown(Client, 5000),
        {Outcome, length(Sizes), Sizes}
    end).

%%% -------------------------------------------- what the transport reads

%% The session machine runs in the actor and reads no message whole:
%% which of its requests a message answers is found by the core's
%% validating scan, the answer to `initialize' read as the actor reads it.
%% Traced: `mcp_jsonrpc:decode/1' is never called in the actor while a
%% call is answered by an event stream of a 300 KB notification (an array
%% of zeros, which a tree costs some 20x) and its result, or by a JSON body
%% of a 300 KB result; nor while a handshake is answered with an
%% `initialize' result of 300 KB (malformed, past 256 KiB, refused unbuilt).
the_transport_decodes_no_message_test_() ->
    Zeros = iolist_to_binary(lists:join(<<",">>, lists:duplicate(150000, <<"0">>))),
    Sse = fun(Id) ->
              {sse, [{"content-type", "text/event-stream"}],
               [<<"data: {\"jsonrpc\":\"2.0\",\"method\":\"x/y\",\"params\":{\"a\":[", Zeros/binary, "]}}\n\n">>,
                iolist_to_binary([<<"data: {\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(Id),
                                  <<",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n">>])]}
          end,
    Body = fun(Id) ->
               json({int, Id}, <<"{\"content\":[],\"structuredContent\":{\"a\":[", Zeros/binary, "]}}">>, [])
           end,
    Call = fun(Answer) ->
               Handler = mcp(fun(<<"tools/call">>, #{body := B}) ->
                                     {ok, {object, Members}} = mcp_json:decode(B),
                                     {int, Id} = proplists:get_value(<<"id">>, Members),
                                     Answer(Id);
                                (_, _) -> default
                             end),
               with_stub_handler(Handler, fun(Url) ->
                   {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
                   Decoded = mcp_traced:calls(mcp_client:pid(Client), {mcp_jsonrpc, decode, 1},
                                              fun() -> ?assertMatch({ok, _}, call(Client)) end),
                   _ = mcp_client:shutdown(Client, 5000),
                   length(Decoded)
               end)
           end,
    [{timeout, 30, ?_assertEqual(0, Call(Sse))},
     {timeout, 30, ?_assertEqual(0, Call(Body))},
     {timeout, 30, fun() ->
         Result = <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{},\"experimental\":{\"a\":[",
                    Zeros/binary, "]}},\"serverInfo\":{\"name\":\"stub\",\"version\":\"1\"}}">>,
         Handler = mcp(fun(<<"initialize">>, #{body := B}) ->
                               {ok, {object, Members}} = mcp_json:decode(B),
                               json(proplists:get_value(<<"id">>, Members), Result, [{"mcp-session-id", "s1"}]);
                          (_, _) -> default
                       end),
         with_stub_handler(Handler, fun(Url) ->
             {ok, Client} = mcp_client:prepare(#{url => Url}, #{}),
             Decoded = mcp_traced:calls(mcp_client:pid(Client), {mcp_jsonrpc, decode, 1},
                                        fun() ->
                                            ?assertMatch({error, {handshake_failed, {result_malformed, _}}},
                                                         mcp_client:connect(Client))
                                        end),
             _ = mcp_client:shutdown(Client, 5000),
             ?assertEqual(0, length(Decoded))
         end)
     end}].
