%% PropEr: the HTTP session machine (`mcp_http_session') driven by random
%% sessions, a client sending requests, notifications and answers and a
%% server answering each request at random (event streams and JSON bodies,
%% split anywhere, statuses, broken connections, timers firing). After every
%% event the commands are checked against the machine's invariants:
%% every command names a request it opened and has not closed, a request's
%% stream is cancelled with the delivery of its response, at most
%% `max_answer_streams()' answers wait at once, delivered offsets are
%% contiguous, no stream is opened again sooner than `min_retry_ms()', the session id sent is the one the server assigned, and no
%% `Last-Event-ID' is longer than its cap.
-module(mcp_http_session_prop_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

session_invariants_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_session_invariants(), [{numtests, 400}, noshrink, {to_file, user}]))}.

prop_session_invariants() ->
    ?FORALL({Flood, Steps}, {boolean(), ?LET(N, range(0, 400), vector(N, step()))}, start(Steps, Flood)).

step() ->
    {frequency([{3, request}, {1, notification}, {1, cancel}, {2, response}, {8, answer}, {8, chunk},
                {3, body_end}, {2, timer}]),
     non_neg_integer(), non_neg_integer()}.

%% `flood': the server never acknowledges our answers and notifications.
-record(model, {session, open = #{}, closed = #{}, timers = [], offset = 0, next_id = 1,
                assigned = none, initialized = false, flood = false, fired = [],
                %% Posts of each request id, and the ids refused with 404.
                posted = #{}, refused = #{}}).

start(Steps, Flood) ->
    run(Steps, #model{session = mcp_http_session:new(4096), flood = Flood}).

run([], _Model) ->
    true;
run([Step | Rest], Model) ->
    case event(Step, Model) of
        skip ->
            run(Rest, Model);
        {Event, Model1} ->
            {Commands, Session} = mcp_http_session:handle(Event, Model1#model.session),
            Faulted = lists:any(fun({deliver, {fault, _}}) -> true; (_) -> false end, Commands),
            case check(Event, Commands, Model1#model{session = Session}) of
                {ok, _Next} when Faulted ->
                    true;  % a fault ends the connection: the actor closes
                {ok, Next} ->
                    run(Rest, Next);
                {error, Why} ->
                    io:format(user, "~nviolated: ~p~nevent: ~p~ncommands: ~p~n", [Why, Event, Commands]),
                    false
            end
    end.

%%% -------------------------------------------------------------- events

rpc(Kind, Method, Params) -> {Kind, Method, Params, handshake}.

event({request, _, _}, #model{next_id = Id, initialized = false} = Model) ->
    Params = {some, {object, [{<<"capabilities">>, {object, [{<<"elicitation">>, {object, []}}]}}]}},
    send({request, Id, <<"initialize">>, Params, handshake}, mcp_jsonrpc:request({id_int, Id}, <<"initialize">>, Params),
         Model#model{next_id = Id + 1, initialized = sent});
event({request, _, _}, #model{next_id = Id} = Model) ->
    send({request, Id, <<"tools/call">>, none, handshake}, mcp_jsonrpc:request({id_int, Id}, <<"tools/call">>, none),
         Model#model{next_id = Id + 1});
event({notification, _, _}, #model{initialized = sent} = Model) ->
    send(rpc(notification, <<"notifications/initialized">>, none),
         mcp_jsonrpc:notification(<<"notifications/initialized">>, none), Model#model{initialized = true});
event({notification, _, _}, Model) ->
    send(rpc(notification, <<"notifications/progress">>, none),
         mcp_jsonrpc:notification(<<"notifications/progress">>, none), Model);
event({cancel, N, _}, #model{next_id = Next} = Model) when Next > 1 ->
    Params = {some, {object, [{<<"requestId">>, {int, 1 + N rem (Next - 1)}}]}},
    send(rpc(notification, <<"notifications/cancelled">>, Params),
         mcp_jsonrpc:notification(<<"notifications/cancelled">>, Params), Model);
event({response, N, _}, Model) ->
    send(response, mcp_jsonrpc:result_response({id_int, N}, {object, []}), Model);
event({Kind, N, M}, #model{open = Open} = Model) when Kind =:= answer; Kind =:= chunk; Kind =:= body_end ->
    case lists:sort(maps:keys(Open)) of
        [] -> skip;
        SRefs ->
            SRef = lists:nth(1 + N rem length(SRefs), SRefs),
            case maps:get(SRef, Open) of
                #{kind := post} = Request when Model#model.flood, not is_map_key(id, Request) -> skip;
                Request -> server(Kind, SRef, Request, M, Model)
            end
    end;
event({timer, N, _}, #model{timers = [_ | _] = Timers} = Model) ->
    Tag = lists:nth(1 + N rem length(Timers), Timers),
    {{timer, Tag}, Model#model{timers = lists:delete(Tag, Timers)}};
event(_Step, _Model) ->
    skip.

send(Rpc, Message, Model) ->
    {{send, {rpc, Rpc, mcp_json:encode(Message)}}, Model}.

%% The server's answer to an open request, drawn from `M'.
server(answer, SRef, #{answered := false} = Request, M, Model) ->
    %% Most servers give a session with the answer to `initialize'.
    Session = case {Request, M rem 7} of
                  {_, 0} -> [];
                  {#{method := <<"initialize">>}, _} -> [{"Mcp-Session-Id", "s-" ++ integer_to_list(M rem 5)}];
                  _ -> []
              end,
    Open = fun(Body) -> Model#model{open = maps:put(SRef, Request#{answered := Body}, Model#model.open)} end,
    case M rem 9 of
        0 -> {{headers, SRef, [{"content-type", "text/event-stream"} | Session]}, Open(sse)};
        1 -> {{headers, SRef, [{"Content-Type", "application/json; charset=utf-8"} | Session]}, Open(json)};
        2 -> {{headers, SRef, [{"content-type", "text/html"}]}, Open(other)};
        3 -> {{status, SRef, 202, [], <<>>}, Model};
        4 -> {{status, SRef, 404, [], <<>>}, Model};
        5 -> {{status, SRef, 405, [], <<>>}, Model};
        6 -> {{status, SRef, 500, [], <<"oops">>}, Model};
        7 -> {{failed, SRef, econnreset}, Model};
        8 -> {{headers, SRef, [{"content-type", "text/event-stream"}, {"mcp-session-id", "bad id"}]}, Open(sse)}
    end;
server(chunk, SRef, #{answered := sse, rest := <<_, _/binary>> = Rest} = Request, _M, Model) ->
    {{chunk, SRef, Rest}, Model#model{open = maps:put(SRef, Request#{rest := <<>>}, Model#model.open)}};
server(chunk, SRef, #{answered := sse} = Request, M, Model) ->
    %% An event with an id carries no response (its stream may be resumed).
    %% Sometimes the response of another open request (on the wrong stream).
    Others = [I || #{id := I} <- maps:values(Model#model.open)],
    Id = case Request of
             #{id := I} when M rem 3 =/= 0, M rem 5 =:= 0 -> I;
             _ when Others =/= [], M rem 7 =:= 1 -> lists:nth(1 + M rem length(Others), Others);
             _ -> 1000 + M
         end,
    Message = mcp_json:encode(mcp_jsonrpc:result_response({id_int, Id}, {object, [{<<"protocolVersion">>, {string, <<"2025-06-18">>}}]})),
    EventId = case M rem 5 of
                  0 -> <<>>;
                  1 -> <<"id: ", (binary:copy(<<"x">>, mcp_http_session:max_event_id_bytes() + 1))/binary, "\n">>;
                  2 -> <<"retry: 5\nid: ", (binary:copy(<<"y">>, mcp_http_session:max_event_id_bytes()))/binary, "\n">>;
                  _ -> <<"id: e", (integer_to_binary(M))/binary, "\n">>
              end,
    Event = <<EventId/binary, "data: ", Message/binary, "\n\n">>,
    Cut = case M rem 4 of
              0 -> M rem byte_size(Event);
              _ -> byte_size(Event)
          end,
    <<Now:Cut/binary, Later/binary>> = Event,
    {{chunk, SRef, Now}, Model#model{open = maps:put(SRef, Request#{rest => Later}, Model#model.open)}};
server(chunk, SRef, #{answered := json} = Request, M, Model) ->
    Id = maps:get(id, Request, 1000 + M),
    Message = mcp_json:encode(mcp_jsonrpc:result_response({id_int, Id}, {object, []})),
    {{chunk, SRef, Message}, Model};
server(chunk, SRef, #{answered := other}, _M, Model) ->
    {{chunk, SRef, <<"<html>">>}, Model};
server(body_end, SRef, #{answered := Body}, _M, Model) when Body =/= false ->
    {{body_end, SRef}, Model};
server(_Kind, _SRef, _Request, _M, _Model) ->
    skip.

%%% ----------------------------------------------------------- the check

check(Event, Commands, Model0) ->
    Model = closed_by(Event, Model0),
    try
        {ok, lists:foldl(fun(Command, Acc) -> command(Command, Event, Commands, Acc) end, Model, Commands)}
    catch
        throw:Why -> {error, Why}
    end.

%% A whole answer, the body's end or a failure closes the request it names.
closed_by({status, SRef, 404, _, _}, #model{open = Open, assigned = Assigned} = Model0) ->
    %% A 404 to a request sent in the current session starts a new one (or
    %% ends the connection); the request may be sent again.
    Request = maps:get(SRef, Open, #{}),
    Model = case Request of
                #{id := Id} -> Model0#model{refused = maps:put(Id, true, Model0#model.refused)};
                _ -> Model0
            end,
    case Request of
        #{method := <<"initialize">>} -> close(SRef, Model);
        #{purpose := listen} -> close(SRef, Model);  % the standalone stream is only given up
        #{sent_in := Assigned} when Assigned =/= none -> close(SRef, Model#model{assigned = none});
        _ -> close(SRef, Model)
    end;
closed_by({status, SRef, _, _, _}, Model) -> close(SRef, Model);
closed_by({body_end, SRef}, Model) -> close(SRef, Model);
closed_by({failed, SRef, _}, Model) -> close(SRef, Model);
closed_by({headers, SRef, Headers}, #model{open = Open} = Model) ->
    case {maps:get(SRef, Open, none), [V || {N, V} <- Headers, string:lowercase(N) =:= "mcp-session-id"]} of
        {#{method := <<"initialize">>}, [Id]} -> Model#model{assigned = Id};
        _ -> Model
    end;
closed_by(_Event, Model) -> Model.

close(SRef, #model{open = Open, closed = Closed} = Model) ->
    Model#model{open = maps:remove(SRef, Open), closed = Closed#{SRef => maps:get(SRef, Open, #{})}}.

command({Verb, SRef, Headers, Body, #{request := IsRequest}}, _Event, _All, Model) when Verb =:= post ->
    fresh(SRef, Model),
    sent_session(Headers, Model),
    Request = case mcp_jsonrpc:decode(Body) of
                  {ok, {server_request, {id_int, Id}, Method, _}} -> #{id => Id, method => Method};
                  _ -> #{}
              end,
    IsRequest =:= is_map_key(id, Request) orelse throw({request_flag, SRef}),
    %% A request goes at most twice, the second time only after a 404 (the
    %% handshake goes again with each new session).
    Posted = case Request of
                 #{method := <<"initialize">>} ->
                     Model#model.posted;
                 #{id := RequestId} ->
                     Times = maps:get(RequestId, Model#model.posted, 0) + 1,
                     Times =< 2 orelse throw({posted_more_than_twice, RequestId}),
                     (Times =:= 1 orelse is_map_key(RequestId, Model#model.refused))
                         orelse throw({replayed_without_a_404, RequestId}),
                     maps:put(RequestId, Times, Model#model.posted);
                 _ ->
                     Model#model.posted
             end,
    SentIn = case [V || {"mcp-session-id", V} <- Headers] of
                 [V] -> V;
                 [] -> none
             end,
    Next = Model#model{posted = Posted,
                       open = maps:put(SRef, Request#{answered => false, kind => post, sent_in => SentIn},
                                       Model#model.open)},
    Waiting = length([S || #{kind := post} = S <- maps:values(Next#model.open), not is_map_key(id, S)]),
    Waiting =< mcp_http_session:max_answer_streams() orelse throw({too_many_answers_waiting, Waiting}),
    Next;
command({get, SRef, Headers}, Event, _All, Model) ->
    fresh(SRef, Model),
    sent_session(Headers, Model),
    case [V || {"last-event-id", V} <- Headers] of
        [] -> ok;
        [Id] when length(Id) =< 1024 -> ok;
        [Id] -> throw({last_event_id_too_long, length(Id)})
    end,
    %% A GET opens the standalone stream (after `notifications/initialized'),
    %% or resumes the stream whose end armed the timer.
    Purpose = case Event of
                  {timer, Tag} -> proplists:get_value(Tag, Model#model.fired, listen);
                  _ -> listen
              end,
    Model#model{open = maps:put(SRef, #{answered => false, kind => get, purpose => Purpose}, Model#model.open)};
command({cancel, SRef}, _Event, _All, Model) ->
    is_map_key(SRef, Model#model.open) orelse throw({cancel_of_closed, SRef}),
    close(SRef, Model);
command({read, SRef}, _Event, _All, Model) ->
    is_map_key(SRef, Model#model.open) orelse throw({read_of_closed, SRef}),
    Model;
command({timer, Ms, Tag}, Event, _All, #model{timers = Timers, closed = Closed} = Model) ->
    (is_integer(Ms) andalso Ms >= 0) orelse throw({bad_timer, Ms}),
    %% What the timer's GET will be for: the stream that ended, or the
    %% standalone stream's wait.
    Purpose = case Event of
                  {Ended, SRef} when Ended =:= body_end -> purpose(maps:get(SRef, Closed, #{}));
                  {failed, SRef, _} -> purpose(maps:get(SRef, Closed, #{}));
                  _ -> listen
              end,
    %% A stream is opened again no sooner than the floor, whatever its
    %% `retry:' said (the generator's events say `retry: 5').
    Floor = mcp_http_session:min_retry_ms(),
    case Event of
        {body_end, _} when Ms < Floor -> throw({reopened_too_soon, Ms});
        {failed, _, _} when Ms < Floor -> throw({reopened_too_soon, Ms});
        _ -> ok
    end,
    Model#model{timers = [Tag | Timers], fired = [{Tag, Purpose} | Model#model.fired]};
command({deliver, {message, Offset, Line}}, Event, All, #model{offset = Expected} = Model) ->
    Offset =:= Expected orelse throw({offset, Offset, Expected}),
    responded(Event, Line, All, Model),
    Model#model{offset = Offset + byte_size(Line)};
command({deliver, _Other}, _Event, _All, Model) ->
    Model;
command(Other, _Event, _All, _Model) ->
    throw({unknown_command, Other}).

purpose(#{purpose := Purpose}) -> Purpose;
purpose(_Post) -> request.

fresh(SRef, #model{open = Open, closed = Closed}) ->
    (is_map_key(SRef, Open) orelse is_map_key(SRef, Closed)) andalso throw({reused, SRef}).

%% The session id sent is the one assigned, once assigned; a bad one is
%% never sent.
sent_session(Headers, #model{assigned = Assigned}) ->
    case [V || {"mcp-session-id", V} <- Headers] of
        [] -> ok;
        [Assigned] when Assigned =/= "bad id" -> ok;
        Other -> throw({session_sent, Other, Assigned})
    end.

%% A response delivered closes, in the same batch, every open stream of
%% the request it answers (its own, or another it came on).
responded(_Event, Line, All, #model{open = Open}) ->
    case mcp_jsonrpc:decode(Line) of
        {ok, {response, {id_int, Id}, _}} ->
            [lists:member({cancel, SRef}, All) orelse throw({stream_kept_after_response, SRef})
             || {SRef, #{id := I}} <- maps:to_list(Open), I =:= Id],
            ok;
        _ ->
            ok
    end.

%%% ------------------------------------- the standalone stream, reopened
%%
%% A server that declared `tools.listChanged' is listened to; its stream
%% ends (the server restarted) while no request is in flight, and the
%% reopening GET meets what a restarted server gives.

%% Events in, commands out, from a new session through the opening of the
%% standalone stream and its end: the commands that followed the end, and
%% the session.
listened_then_ended() ->
    Init = mcp_json:encode(mcp_jsonrpc:request({id_int, 1}, <<"initialize">>, none)),
    {[{post, Post, _, _, _}], S1} = mcp_http_session:handle({send, {rpc, {request, 1, <<"initialize">>, none, handshake}, Init}},
                                                            mcp_http_session:new(4096)),
    {_, S2} = mcp_http_session:handle({headers, Post, [{"content-type", "application/json"}, {"mcp-session-id", "s1"}]}, S1),
    Result = <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","
               "\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}">>,
    {_, S3} = mcp_http_session:handle({chunk, Post, Result}, S2),
    {_, S4} = mcp_http_session:handle({body_end, Post}, S3),
    Initialized = mcp_json:encode(mcp_jsonrpc:notification(<<"notifications/initialized">>, none)),
    {C5, S5} = mcp_http_session:handle({send, {rpc, {notification, <<"notifications/initialized">>, none, handshake},
                                                Initialized}}, S4),
    [Listen] = [SRef || {get, SRef, _} <- C5],
    {_, S6} = mcp_http_session:handle({headers, Listen, [{"content-type", "text/event-stream"}]}, S5),
    mcp_http_session:handle({body_end, Listen}, S6).

%% The wait before the reopening, then its GET.
reopened({Commands, Session}) ->
    [Tag] = [T || {timer, _, T} <- Commands],
    {Reopen, Next} = mcp_http_session:handle({timer, Tag}, Session),
    [Get] = [SRef || {get, SRef, _} <- Reopen],
    {Get, Next}.

a_standalone_stream_reopened_into_a_404_starts_a_new_session_test() ->
    {Get, Session} = reopened(listened_then_ended()),
    {Commands, _} = mcp_http_session:handle({status, Get, 404, [], <<>>}, Session),
    %% The actor's own `initialize' is sent again, without a session.
    ?assertMatch([{post, _, _, _, _}], [C || {post, _, _, _, _} = C <- Commands]),
    [{post, _, Headers, Body, _}] = [C || {post, _, _, _, _} = C <- Commands],
    ?assertNotEqual(nomatch, binary:match(iolist_to_binary(Body), <<"\"initialize\"">>)),
    ?assertEqual(false, lists:keymember("mcp-session-id", 1, Headers)).

a_standalone_stream_whose_server_is_gone_loses_the_connection_test() ->
    %% Each reopening refused: tried again after each wait, and the one
    %% past `max_resumptions()' is the connection's end.
    Refused = fun Refused(Outcome, Tries) ->
                      {Get, Session} = reopened(Outcome),
                      {Commands, Next} = mcp_http_session:handle({failed, Get, {failed_connect, econnrefused}}, Session),
                      case [F || {deliver, {fault, F}} <- Commands] of
                          [] -> Refused({Commands, Next}, Tries + 1);
                          [Fault] -> {Fault, Tries + 1}
                      end
              end,
    ?assertEqual({{stream_lost, {failed_connect, econnrefused}}, mcp_http_session:max_resumptions()},
                 Refused(listened_then_ended(), 0)).

%% Other answers to a reopening (the server offers no stream any more)
%% leave the client without the stream, with no fault and no new session.
a_standalone_stream_reopened_into_a_refusal_is_given_up_test() ->
    {Get, Session} = reopened(listened_then_ended()),
    ?assertEqual({[], false},
                 begin
                     {Commands, _} = mcp_http_session:handle({status, Get, 405, [], <<>>}, Session),
                     {Commands, lists:keymember(post, 1, Commands)}
                 end).
