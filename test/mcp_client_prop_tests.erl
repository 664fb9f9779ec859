%% PropEr: the client against a fake server whose behaviour for each call is
%% drawn at random. A model predicts every answer: a death (garbage, the
%% peer dying) is latched and answers every later call with the same reason;
%% everything else leaves the connection usable. Retirement always ends with
%% proof and no reply is ever left in the caller's mailbox.
-module(mcp_client_prop_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-import(mcp_fake_server, [field/2, text_result/1]).

-define(NEVER_TIMEOUT_MS, 20).
-define(TIMEOUT, 5000).

behaviour() ->
    frequency([{5, ok}, {2, rpc_error}, {2, malformed_result}, {1, never},
               {1, garbage}, {1, die}, {3, noise}, {2, split}]).

%% The fake server: the behaviour travels in the call's arguments.
handler({request, Id, <<"tools/call">>, Params}) ->
    {string, Behaviour} = field(<<"behaviour">>, field(<<"arguments">>, Params)),
    act(binary_to_existing_atom(Behaviour), Id);
handler(_) ->
    default.

act(ok, Id) -> [{reply, Id, text_result(<<"ok">>)}];
act(rpc_error, Id) ->
    [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                      {<<"error">>, {object, [{<<"code">>, {int, -1}},
                                              {<<"message">>, {string, <<"e">>}}]}}]}}];
act(malformed_result, Id) -> [{reply, Id, {object, [{<<"content">>, {int, 1}}]}}];
act(never, _Id) -> [];
act(garbage, _Id) -> [{raw, <<"}{\n">>}];
act(die, _Id) -> [{exit, died}];
act(noise, {int, N} = Id) ->
    Note = {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"method">>, {string, <<"notifications/x">>}}]},
    Request = {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 5}},
                        {<<"method">>, {string, <<"roots/list">>}}]},
    [{send, Note}, {send, Request}, {reply, {string, integer_to_binary(N)}, text_result(<<"no">>)},
     {reply, {int, N + 1000000}, text_result(<<"no">>)}, {reply, Id, text_result(<<"ok">>)}];
act(split, Id) ->
    Line = mcp_fake_server:response_line(Id, text_result(<<"ok">>)),
    [{chunks, [<<Byte>> || <<Byte>> <= Line]}].

call(Client, Behaviour) ->
    Timeout = case Behaviour of never -> ?NEVER_TIMEOUT_MS; _ -> ?TIMEOUT end,
    mcp_client:call_tool(Client, <<"act">>, {object, [{<<"behaviour">>, {string, atom_to_binary(Behaviour)}}]},
                         Timeout).

%% The model: the answer to a call, and whether the client is now dead.
expected(_Behaviour, {dead, Reason}, Answer) ->
    {Answer =:= {error, {unavailable, Reason}}, {dead, Reason}};
expected(Behaviour, alive, Answer) ->
    case {Behaviour, Answer} of
        {ok, {ok, {call_tool_result, [{text, <<"ok">>}], false, none}}} -> {true, alive};
        {noise, {ok, {call_tool_result, [{text, <<"ok">>}], false, none}}} -> {true, alive};
        {split, {ok, {call_tool_result, [{text, <<"ok">>}], false, none}}} -> {true, alive};
        {rpc_error, {error, {server_error, {rpc_error, -1, <<"e">>, none}}}} -> {true, alive};
        {malformed_result, {error, {result_malformed, _}}} -> {true, alive};
        {never, {error, call_timed_out}} -> {true, alive};
        {garbage, {error, {unavailable, {malformed_message, _} = Reason}}} -> {true, {dead, Reason}};
        {die, {error, {unavailable, {transport_ended, {exited, {peer_down, died}}} = Reason}}} -> {true, {dead, Reason}};
        _ -> {false, alive}
    end.

prop_every_call_answers_as_the_model_says() ->
    ?FORALL(Behaviours, list(behaviour()),
            begin
                flush(),   % what earlier suites left in this (shared) test process
                {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(fun handler/1, spawn(fun() -> ok end)), #{}),
                {Agrees, Final} =
                    lists:foldl(fun(Behaviour, {AllAgree, Model}) ->
                                        {Agrees, Next} = expected(Behaviour, Model, call(Client, Behaviour)),
                                        {AllAgree andalso Agrees, Next}
                                end, {true, alive}, Behaviours),
                Retired = mcp_client:shutdown(Client, ?TIMEOUT),
                {messages, Left} = process_info(self(), messages),
                ?WHENFAIL(io:format(user, "final model ~p, retired ~p, mailbox ~p~n", [Final, Retired, Left]),
                          Agrees andalso Left =:= []
                          andalso lists:member(Retired, [{ok, {exited, {peer_down, killed}}}, {ok, {exited, {peer_down, died}}}]))
            end).

flush() ->
    receive _ -> flush() after 0 -> ok end.

model_property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_every_call_answers_as_the_model_says(),
                                [{numtests, 150}, {to_file, user}]))}.
