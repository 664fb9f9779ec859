%% The HTTP session machine (`mcp_http_session') driven event by event:
%% what goes out when a session expires while our answers to the server's
%% questions wait.
-module(mcp_http_session_tests).

-include_lib("eunit/include/eunit.hrl").

%% Our answers repeat the ids of the questions an expired session asked:
%% the new session never asked them. Of 18 answers, 16 are posted and 2
%% held (`max_answer_streams()'); a 404 on one renews the session, and
%% one more answer is sent while the new session starts; once it is open
%% and the old answers' streams end, none of the three is posted (into the
%% new session, with its id), while a notice sent meanwhile is.
answers_held_when_the_session_expires_are_not_posted_into_the_next_test() ->
    Streams = mcp_http_session:max_answer_streams(),
    Answers = [answer(N) || N <- lists:seq(1, Streams + 2)],
    {Open, [{post, AnswerSRef, _, _, _} | _] = Posts} =
        lists:foldl(fun(Answer, {S, Acc}) ->
                            {Commands, S1} = mcp_http_session:handle({send, {rpc, response, Answer}}, S),
                            {S1, Acc ++ Commands}
                    end, {opened(<<"old">>), []}, Answers),
    ?assertEqual(lists:sublist(Answers, Streams), [Bytes || {post, _, _, Bytes, _} <- Posts]),
    %% The 404: a new session starts with our `initialize'.
    {[{post, InitSRef, _, _, _}], Renewing} = mcp_http_session:handle({status, AnswerSRef, 404, [], <<>>}, Open),
    %% While it starts, one more answer, and a notice that waits for it.
    {[], Renewing1} = mcp_http_session:handle({send, {rpc, response, answer(Streams + 3)}}, Renewing),
    Notice = mcp_json:encode(mcp_jsonrpc:notification(<<"notifications/roots/list_changed">>, none)),
    {[], Renewing2} = mcp_http_session:handle(
                        {send, {rpc, {notification, <<"notifications/roots/list_changed">>, none, handshake}, Notice}},
                        Renewing1),
    {Renewal, Renewed} = initialize_answered(InitSRef, <<"new">>, Renewing2),
    %% The other answers' streams end (404: their session is gone).
    OtherSRefs = [SRef || {post, SRef, _, _, _} <- tl(Posts)],
    {Ends, _} = lists:foldl(fun(SRef, {Acc, S}) ->
                                    {Commands, S1} = mcp_http_session:handle({status, SRef, 404, [], <<>>}, S),
                                    {Acc ++ Commands, S1}
                            end, {[], Renewed}, OtherSRefs),
    Posted = [{Bytes, proplists:get_value("mcp-session-id", Headers)}
              || {post, _, Headers, Bytes, _} <- Renewal ++ Ends],
    %% `notifications/initialized' goes out again, then the notice, in the
    %% new session; no answer.
    ?assertMatch([{_, "new"}, {Notice, "new"}], Posted),
    [{Initialized, _}, _] = Posted,
    ?assertMatch({ok, {notification, <<"notifications/initialized">>, _}}, mcp_jsonrpc:decode(Initialized)).

%% The stream's last event id is read when it changes, not at every chunk:
%% after an id of 1,024 bytes (the echo cap), 2,000 one-byte chunks cost
%% the machine at most twice the reductions they cost after a 1-byte id
%% (the id had been read again, byte by byte, at each: about 70 times).
a_held_event_id_is_not_read_again_at_every_chunk_test() ->
    Short = chunk_reductions(1, 2000),
    Long = chunk_reductions(mcp_http_session:max_event_id_bytes(), 2000),
    ?assert(Long =< 2 * Short).

%% `heard/1' answers for the last stream event: a chunk of a request's
%% stream bringing a message's data is heard; a chunk of a stream the
%% machine does not hold (ended, cancelled) that follows is not.
heard_answers_for_the_last_stream_event_test() ->
    S0 = mcp_http_session:new(mcp_event_stream:max_event_bytes()),
    {[{post, SRef, _, _, _}], S1} =
        mcp_http_session:handle({send, {rpc, {request, 7, <<"tools/call">>, none, handshake}, <<"{}">>}}, S0),
    {[{read, SRef}], S2} = mcp_http_session:handle({headers, SRef, [{"content-type", "text/event-stream"}]}, S1),
    {[{read, SRef}], S3} = mcp_http_session:handle({chunk, SRef, <<"data: {\"jsonrpc\"">>}, S2),
    ?assert(mcp_http_session:heard(S3)),
    {[], S4} = mcp_http_session:handle({chunk, SRef + 1000, <<"data: x">>}, S3),
    ?assertNot(mcp_http_session:heard(S4)).

%% A request's event stream whose last event id is `IdBytes' long, then
%% `Chunks' one-byte comment chunks: the reductions the machine spends on
%% them.
chunk_reductions(IdBytes, Chunks) ->
    S0 = mcp_http_session:new(mcp_event_stream:max_event_bytes()),
    {[{post, SRef, _, _, _}], S1} =
        mcp_http_session:handle({send, {rpc, {request, 7, <<"tools/call">>, none, handshake}, <<"{}">>}}, S0),
    {[{read, SRef}], S2} = mcp_http_session:handle({headers, SRef, [{"content-type", "text/event-stream"}]}, S1),
    Id = binary:copy(<<"i">>, IdBytes),
    {[{read, SRef}], S3} = mcp_http_session:handle({chunk, SRef, <<"id:", Id/binary, "\n\n">>}, S2),
    {reductions, Before} = process_info(self(), reductions),
    _ = lists:foldl(fun(_, S) ->
                            {[{read, SRef}], Next} = mcp_http_session:handle({chunk, SRef, <<":">>}, S),
                            Next
                    end, S3, lists:seq(1, Chunks)),
    {reductions, After} = process_info(self(), reductions),
    After - Before.

%% A session opened: `initialize' answered with session `Id', then
%% `notifications/initialized' acknowledged.
opened(Id) ->
    Params = {some, {object, [{<<"capabilities">>, {object, []}}]}},
    Initialize = mcp_json:encode(mcp_jsonrpc:request({id_int, 1}, <<"initialize">>, Params)),
    {[{post, InitSRef, _, _, _}], S1} =
        mcp_http_session:handle({send, {rpc, {request, 1, <<"initialize">>, Params, handshake}, Initialize}},
                                mcp_http_session:new(1 bsl 20)),
    {_, S2} = initialize_answered(InitSRef, Id, S1),
    Initialized = mcp_json:encode(mcp_jsonrpc:notification(<<"notifications/initialized">>, none)),
    {[{post, SRef, _, _, _}], S3} =
        mcp_http_session:handle({send, {rpc, {notification, <<"notifications/initialized">>, none, handshake},
                                        Initialized}}, S2),
    {[], S4} = mcp_http_session:handle({status, SRef, 202, [], <<>>}, S3),
    S4.

%% `initialize' (stream `SRef') answered in a JSON body naming session `Id'.
initialize_answered(SRef, Id, Session) ->
    Result = {object, [{<<"protocolVersion">>, {string, <<"2025-06-18">>}},
                       {<<"capabilities">>, {object, []}},
                       {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"s">>}},
                                                    {<<"version">>, {string, <<"1">>}}]}}]},
    Body = mcp_json:encode(mcp_jsonrpc:result_response({id_int, 1}, Result)),
    Headers = [{"content-type", "application/json"}, {"mcp-session-id", binary_to_list(Id)}],
    lists:foldl(fun(Event, {Acc, S}) ->
                        {Commands, S1} = mcp_http_session:handle(Event, S),
                        {Acc ++ Commands, S1}
                end, {[], Session}, [{headers, SRef, Headers}, {chunk, SRef, Body}, {body_end, SRef}]).

%% Our answer to the server's ping `a<N>'.
answer(N) ->
    mcp_json:encode(mcp_jsonrpc:result_response({id_string, <<"a", (integer_to_binary(N))/binary>>}, {object, []})).
