%% The input handler (`input_handler' option, `mcp_input'): schema
%% defaults, the declared capability, a handshake-era `elicitation/create'
%% answered by the handler, the modern era's `input_required' rounds (the
%% retry's new id, answers and echoed state; the round limit on both
%% sides), and a handler that crashes or overstays.
-module(mcp_input_tests).
-include_lib("eunit/include/eunit.hrl").

-define(V, <<"2026-07-28">>).

schema() ->
    {object, [{<<"type">>, {string, <<"object">>}},
              {<<"properties">>, {object, [{<<"name">>, {object, [{<<"type">>, {string, <<"string">>}},
                                                                   {<<"default">>, {string, <<"John">>}}]}},
                                           {<<"age">>, {object, [{<<"type">>, {string, <<"integer">>}},
                                                                  {<<"default">>, {int, 30}}]}},
                                           {<<"note">>, {object, [{<<"type">>, {string, <<"string">>}}]}}]}}]}.

with_required(Names) ->
    {object, Members} = schema(),
    {object, Members ++ [{<<"required">>, {array, [{string, N} || N <- Names]}}]}.

defaults_fill_what_the_content_omits_test() ->
    ?assertEqual({object, [{<<"age">>, {int, 7}}, {<<"name">>, {string, <<"John">>}}]},
                 mcp_input:with_defaults(schema(), {object, [{<<"age">>, {int, 7}}]})),
    ?assertEqual({object, [{<<"action">>, {string, <<"accept">>}},
                           {<<"content">>, {object, [{<<"name">>, {string, <<"John">>}}, {<<"age">>, {int, 30}}]}}]},
                 mcp_input:result({accept, {object, []}}, schema())).

accept_defaults_declines_a_required_field_without_default_test() ->
    ?assertEqual({accept, {object, []}}, mcp_input:accept_defaults({elicitation_request, <<"m">>, with_required([<<"name">>, <<"age">>])})),
    ?assertEqual(decline, mcp_input:accept_defaults({elicitation_request, <<"m">>, with_required([<<"name">>, <<"note">>])})).

capability_only_with_a_handler_test() ->
    ?assertEqual({object, []}, mcp_input:capabilities(none)),
    ?assertMatch({object, [{<<"elicitation">>, _}]}, mcp_input:capabilities(fun(_) -> decline end)).

a_failing_handler_answers_decline_test() ->
    Request = {elicitation_request, <<"m">>, schema()},
    Decline = mcp_input:result(decline, none),
    ?assertEqual([Decline], mcp_input:answer_all(fun(_) -> error(boom) end, [Request])),
    ?assertEqual([Decline], mcp_input:answer_all(fun(_) -> {accept, not_json} end, [Request])),
    ?assertEqual([Decline], mcp_input:answer_all(fun(_) -> {accept, {object, [{<<"k">>, bad}]}} end, [Request])),
    ?assertEqual([Decline], mcp_input:answer_all(fun(_) -> maybe end, [Request])).

input_required_faults_test() ->
    ?assertMatch({error, {protocol_fault, <<"$.inputRequests">>, _}},
                 mcp_input:read_input_required({object, [{<<"inputRequests">>, {int, 1}}]})),
    ?assertMatch({ok, {input_required, [{<<"k">>, {unsupported, <<"sampling/createMessage">>}}], none}},
                 mcp_input:read_input_required({object, [{<<"inputRequests">>, {object, [{<<"k">>, {object, [{<<"method">>, {string, <<"sampling/createMessage">>}}]}}]}}]})).

%%% ---- against mcp_fake_server

flush() -> receive {fake_server, _, _} -> flush() after 0 -> ok end.

calls() -> calls([]).
calls(Acc) ->
    receive {fake_server, _, {request, _, <<"tools/call">>, _} = Call} -> calls([Call | Acc])
    after 0 -> lists:reverse(Acc)
    end.

discover() ->
    {object, [{<<"resultType">>, {string, <<"complete">>}},
              {<<"supportedVersions">>, {array, [{string, ?V}]}},
              {<<"capabilities">>, {object, [{<<"tools">>, {object, []}}]}}]}.

input_required(State) ->
    Elicit = {object, [{<<"method">>, {string, <<"elicitation/create">>}},
                       {<<"params">>, {object, [{<<"message">>, {string, <<"confirm?">>}},
                                                {<<"requestedSchema">>, schema()}]}}]},
    {object, [{<<"resultType">>, {string, <<"input_required">>}},
              {<<"inputRequests">>, {object, [{<<"confirm">>, Elicit}]}}
              | [{<<"requestState">>, {string, integer_to_binary(State)}} || is_integer(State)]]}.

%% A modern server whose tool asks for input `Rounds' times (the state
%% counts the rounds), then answers with the last answers it got.
multi_round(Rounds) ->
    fun({request, Id, <<"server/discover">>, _}) -> [{reply, Id, discover()}];
       ({request, Id, <<"tools/list">>, _}) -> [{reply, Id, mcp_fake_server:tools_page([mcp_fake_server:tool(<<"ask">>)], none)}];
       ({request, Id, <<"tools/call">>, Params}) ->
            case mcp_fake_server:field(<<"requestState">>, Params) of
                none -> [{reply, Id, input_required(1)}];
                {string, N} when N < Rounds -> [{reply, Id, input_required(binary_to_integer(N) + 1)}];
                {string, _} ->
                    Answers = mcp_fake_server:field(<<"inputResponses">>, Params),
                    [{reply, Id, mcp_fake_server:text_result(mcp_json:encode(Answers))}]
            end;
       (_) -> []
    end.

start(Server, Options) ->
    flush(),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(Server), Options#{handshake_timeout_ms => 2000}),
    Client.

accept(_) -> {accept, {object, [{<<"note">>, {string, <<"yes">>}}]}}.

a_modern_input_round_retries_with_a_new_id_the_answers_and_the_state_test() ->
    C = start(multi_round(<<"1">>), #{era => modern, input_handler => fun accept/1}),
    {ok, {call_tool_result, [{text, Text}], false, none}} = mcp_client:call_tool(C, <<"ask">>, {object, []}, 2000),
    ?assertEqual(<<"{\"confirm\":{\"action\":\"accept\",\"content\":{\"note\":\"yes\",\"name\":\"John\",\"age\":30}}}">>, Text),
    [{request, Id1, _, First}, {request, Id2, _, Retry}] = calls(),
    ?assertNotEqual(Id1, Id2),
    ?assertEqual(none, mcp_fake_server:field(<<"requestState">>, First)),
    ?assertEqual({string, <<"1">>}, mcp_fake_server:field(<<"requestState">>, Retry)),
    ?assertEqual({string, <<"ask">>}, mcp_fake_server:field(<<"name">>, Retry)),
    {ok, _} = mcp_client:shutdown(C, 2000).

without_a_handler_input_is_refused_test() ->
    C = start(multi_round(<<"1">>), #{era => modern}),
    ?assertEqual({error, no_input_handler}, mcp_client:call_tool(C, <<"ask">>, {object, []}, 2000)),
    {ok, _} = mcp_client:shutdown(C, 2000).

rounds_up_to_the_limit_are_answered_test() ->
    Max = mcp_client_actor:max_input_rounds(),
    C = start(multi_round(integer_to_binary(Max)), #{era => modern, input_handler => fun accept/1}),
    ?assertMatch({ok, {call_tool_result, _, false, none}}, mcp_client:call_tool(C, <<"ask">>, {object, []}, 5000)),
    ?assertEqual(Max + 1, length(calls())),
    {ok, _} = mcp_client:shutdown(C, 2000).

one_round_past_the_limit_fails_the_call_test() ->
    Max = mcp_client_actor:max_input_rounds(),
    C = start(multi_round(integer_to_binary(Max + 1)), #{era => modern, input_handler => fun accept/1}),
    ?assertEqual({error, {too_many_input_rounds, Max}}, mcp_client:call_tool(C, <<"ask">>, {object, []}, 5000)),
    ?assertEqual(Max + 1, length(calls())),
    {ok, _} = mcp_client:shutdown(C, 2000).

a_crashing_handler_declines_and_the_client_lives_test() ->
    C = start(multi_round(<<"1">>), #{era => modern, input_handler => fun(_) -> exit(crash) end}),
    ?assertEqual({ok, {call_tool_result, [{text, <<"{\"confirm\":{\"action\":\"decline\"}}">>}], false, none}},
                 mcp_client:call_tool(C, <<"ask">>, {object, []}, 2000)),
    ?assertEqual(ok, mcp_client:ping(C, 2000)),
    {ok, _} = mcp_client:shutdown(C, 2000).

a_handler_out_of_time_is_killed_and_cancels_test() ->
    Self = self(),
    Slow = fun(_) -> Self ! {handler, self()}, timer:sleep(infinity) end,
    C = start(multi_round(<<"1">>), #{era => modern, input_handler => Slow, input_timeout_ms => 100}),
    %% Meanwhile the actor serves other requests.
    Caller = spawn_monitor(fun() -> exit(mcp_client:call_tool(C, <<"ask">>, {object, []}, 5000)) end),
    Worker = receive {handler, P} -> P after 2000 -> error(no_handler_run) end,
    ?assertEqual(ok, mcp_client:ping(C, 2000)),
    {_, Ref} = Caller,
    Result = receive {'DOWN', Ref, process, _, R} -> R after 3000 -> error(no_answer) end,
    ?assertEqual({ok, {call_tool_result, [{text, <<"{\"confirm\":{\"action\":\"cancel\"}}">>}], false, none}}, Result),
    ?assertNot(is_process_alive(Worker)),
    {ok, _} = mcp_client:shutdown(C, 2000).

%% A handshake-era server whose tool asks by `elicitation/create' and
%% answers with the client's response.
eliciting({request, Id, <<"tools/call">>, _}) ->
    {int, N} = Id,
    Params = {object, [{<<"message">>, {string, <<"confirm?">>}}, {<<"requestedSchema">>, schema()}]},
    [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 1000 + N}},
                      {<<"method">>, {string, <<"elicitation/create">>}}, {<<"params">>, Params}]}}];
eliciting({response, {int, ElicitId}, Body}) ->
    [{reply, {int, ElicitId - 1000}, mcp_fake_server:text_result(mcp_json:encode(Body))}];
eliciting(Message) ->
    mcp_fake_server:default(Message).

initialize_capabilities() ->
    receive
        {fake_server, _, {request, _, <<"initialize">>, Params}} -> mcp_fake_server:field(<<"capabilities">>, Params)
    after 2000 -> error(no_initialize)
    end.

handshake_elicitation_goes_to_the_handler_test() ->
    C = start(fun eliciting/1, #{input_handler => fun accept/1}),
    ?assertMatch({object, [{<<"elicitation">>, _}]}, initialize_capabilities()),
    {ok, {call_tool_result, [{text, Text}], false, none}} = mcp_client:call_tool(C, <<"echo">>, {object, []}, 2000),
    {ok, {object, Body}} = mcp_json:decode(Text),
    ?assertEqual({object, [{<<"action">>, {string, <<"accept">>}},
                           {<<"content">>, {object, [{<<"note">>, {string, <<"yes">>}}, {<<"name">>, {string, <<"John">>}},
                                                     {<<"age">>, {int, 30}}]}}]},
                 proplists:get_value(<<"result">>, Body)),
    {ok, _} = mcp_client:shutdown(C, 2000).

%% A server asking without end: at most `max_server_inputs()' of its
%% questions run the handler at once (each run is a process); one past them
%% is answered `cancel' at once, without a run.
a_server_asking_without_end_runs_a_bounded_number_of_handlers_test() ->
    Self = self(),
    Held = fun(_Request) -> Self ! {handler, self()}, receive release -> accept(none) end end,
    C = start(fun mcp_fake_server:default/1, #{input_handler => Held, input_timeout_ms => 60000}),
    Server = receive {fake_server, Pid, {request, _, <<"initialize">>, _}} -> Pid after 2000 -> error(no_server) end,
    Max = mcp_client_actor:max_server_inputs(),
    Asked = 50,
    Params = {object, [{<<"message">>, {string, <<"confirm?">>}}, {<<"requestedSchema">>, schema()}]},
    Server ! {perform, [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 5000 + N}},
                                         {<<"method">>, {string, <<"elicitation/create">>}}, {<<"params">>, Params}]}}
                        || N <- lists:seq(1, Asked)]},
    Cancelled = [receive {fake_server, _, {response, {int, _}, Body}} -> Body after 2000 -> error(no_answer) end
                 || _ <- lists:seq(1, Asked - Max)],
    ?assert(lists:all(fun(Body) -> mcp_fake_server:field(<<"result">>, Body) =:=
                                       {object, [{<<"action">>, {string, <<"cancel">>}}]} end, Cancelled)),
    Runs = [receive {handler, P} -> P after 2000 -> error(no_run) end || _ <- lists:seq(1, Max)],
    ?assertEqual(ok, mcp_client:ping(C, 2000)),
    receive {handler, Extra} -> error({more_runs_than_allowed, Extra}) after 0 -> ok end,
    [P ! release || P <- Runs],
    Accepted = [receive {fake_server, _, {response, {int, _}, Body}} -> Body after 2000 -> error(no_answer) end
                || _ <- Runs],
    ?assert(lists:all(fun(Body) -> mcp_fake_server:field(<<"result">>, Body) =/=
                                       {object, [{<<"action">>, {string, <<"cancel">>}}]} end, Accepted)),
    {ok, _} = mcp_client:shutdown(C, 2000).

%% An `elicitation/create' line of `max_whole_line_bytes()' bytes (its
%% message padded) goes to the handler; one a byte longer is not decoded:
%% it keeps the core's `-32601', the handler never runs.
elicitation(Id, Length) ->
    Line = fun(Pad) ->
                   Params = {object, [{<<"message">>, {string, binary:copy(<<"m">>, Pad)}}, {<<"requestedSchema">>, schema()}]},
                   mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, Id}},
                                             {<<"method">>, {string, <<"elicitation/create">>}}, {<<"params">>, Params}]})
           end,
    Padded = Line(Length - byte_size(Line(0))),
    Length = byte_size(Padded),
    [Padded, $\n].

a_question_is_read_on_a_line_of_at_most_the_bound_test() ->
    Self = self(),
    C = start(fun mcp_fake_server:default/1, #{input_handler => fun(Request) -> Self ! {asked, Request}, accept(Request) end}),
    Server = receive {fake_server, Pid, {request, _, <<"initialize">>, _}} -> Pid after 2000 -> error(no_server) end,
    Max = mcp_client_actor:max_whole_line_bytes(),
    Server ! {perform, [{raw, elicitation(7001, Max)}]},
    At = receive {fake_server, _, {response, {int, 7001}, B1}} -> B1 after 5000 -> error(no_answer) end,
    ?assertMatch({object, [{<<"action">>, {string, <<"accept">>}} | _]}, mcp_fake_server:field(<<"result">>, At)),
    receive {asked, {elicitation_request, _, _}} -> ok after 0 -> error(not_asked) end,
    Server ! {perform, [{raw, elicitation(7002, Max + 1)}]},
    Past = receive {fake_server, _, {response, {int, 7002}, B2}} -> B2 after 5000 -> error(no_answer) end,
    ?assertMatch({object, [{<<"code">>, {int, -32601}} | _]}, mcp_fake_server:field(<<"error">>, Past)),
    receive {asked, _} -> error(asked_past_the_bound) after 0 -> ok end,
    {ok, _} = mcp_client:shutdown(C, 2000).

%% An `elicitation/create' whose method is written with escapes (`\/', as
%% PHP's `json_encode' writes it) goes to the handler.
an_escaped_question_goes_to_the_handler_test() ->
    Self = self(),
    C = start(fun mcp_fake_server:default/1, #{input_handler => fun(Request) -> Self ! {asked, Request}, accept(Request) end}),
    Server = receive {fake_server, Pid, {request, _, <<"initialize">>, _}} -> Pid after 2000 -> error(no_server) end,
    Line = binary:replace(iolist_to_binary(elicitation(7005, 2000)), <<"elicitation/create">>, <<"elicitation\\/create">>),
    Server ! {perform, [{raw, Line}]},
    Answer = receive {fake_server, _, {response, {int, 7005}, B}} -> B after 5000 -> error(no_answer) end,
    ?assertMatch({object, [{<<"action">>, {string, <<"accept">>}} | _]}, mcp_fake_server:field(<<"result">>, Answer)),
    receive {asked, {elicitation_request, _, _}} -> ok after 0 -> error(not_asked) end,
    {ok, _} = mcp_client:shutdown(C, 2000).

%% With an input handler, a server request other than `elicitation/create'
%% is answered without being decoded in the actor (traced): a `ping' with
%% 100 KB of params costs no tree, nor one whose method and params are
%% written with escapes.
other_requests_are_not_decoded_with_a_handler_test() ->
    C = start(fun mcp_fake_server:default/1, #{input_handler => fun accept/1}),
    Server = receive {fake_server, Pid, {request, _, <<"initialize">>, _}} -> Pid after 2000 -> error(no_server) end,
    Actor = mcp_client:pid(C),
    Ping = mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 7003}},
                                     {<<"method">>, {string, <<"ping">>}},
                                     {<<"params">>, {object, [{<<"pad">>, {array, lists:duplicate(50000, {int, 0})}}]}}]}),
    Decoded = decodes_by(Actor, fun() ->
                                        Server ! {perform, [{raw, [Ping, $\n]}]},
                                        receive {fake_server, _, {response, {int, 7003}, _}} -> ok after 5000 -> error(no_answer) end
                                end),
    ?assertEqual([], Decoded),
    Escaped = <<"{\"jsonrpc\":\"2.0\",\"id\":7006,\"method\":\"p\\u0069ng\",\"params\":{\"a\":\"x\\ny\"}}\n">>,
    ?assertEqual([], decodes_by(Actor, fun() ->
                                               Server ! {perform, [{raw, Escaped}]},
                                               receive {fake_server, _, {response, {int, 7006}, _}} -> ok after 5000 -> error(no_answer) end
                                       end)),
    Asked = decodes_by(Actor, fun() ->
                                      Server ! {perform, [{raw, elicitation(7004, 2000)}]},
                                      receive {fake_server, _, {response, {int, 7004}, _}} -> ok after 5000 -> error(no_answer) end
                              end),
    ?assertEqual(1, length(Asked)),
    {ok, _} = mcp_client:shutdown(C, 2000).

decodes_by(Process, Fun) ->
    mcp_traced:calls(Process, {mcp_jsonrpc, decode, 1}, Fun).

handshake_elicitation_without_a_handler_is_refused_test() ->
    C = start(fun eliciting/1, #{}),
    ?assertEqual({object, []}, initialize_capabilities()),
    {ok, {call_tool_result, [{text, Text}], false, none}} = mcp_client:call_tool(C, <<"echo">>, {object, []}, 2000),
    ?assertMatch({match, _}, re:run(Text, <<"-32601">>)),
    {ok, _} = mcp_client:shutdown(C, 2000).

input_handler_option_is_checked_test() ->
    %% Built at run time: the type checker would otherwise refuse the calls.
    [NotAFun, Negative] = binary_to_term(term_to_binary([not_a_fun, -1])),
    ?assertError(badarg, mcp_client:prepare(mcp_fake_server:spec(fun eliciting/1), #{input_handler => NotAFun})),
    ?assertError(badarg, mcp_client:prepare(mcp_fake_server:spec(fun eliciting/1), #{input_timeout_ms => Negative})).

%% An `input_required' result carries at most `max_input_requests()'
%% requests (N answered, N + 1 a protocol fault), read in one pass however
%% many repeat a key (a result of thousands of keys cost the actor
%% seconds with a quadratic check).
input_requests_are_bounded_test() ->
    Max = mcp_input:max_input_requests(),
    Requests = fun(N) ->
                       {object, [{<<"inputRequests">>,
                                  {object, [{integer_to_binary(I),
                                             {object, [{<<"method">>, {string, <<"roots/list">>}}]}}
                                            || I <- lists:seq(1, N)]}}]}
               end,
    {ok, {input_required, Read, none}} = mcp_input:read_input_required(Requests(Max)),
    ?assertEqual(Max, length(Read)),
    ?assertMatch({error, {protocol_fault, <<"$.inputRequests">>, _}}, mcp_input:read_input_required(Requests(Max + 1))),
    Repeated = {object, [{<<"inputRequests">>,
                          {object, [{<<"k">>, {object, [{<<"method">>, {string, <<"roots/list">>}}]}}
                                    || _ <- lists:seq(1, Max)]}}]},
    ?assertMatch({ok, {input_required, [{<<"k">>, _}], none}}, mcp_input:read_input_required(Repeated)).
