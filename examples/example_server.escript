#!/usr/bin/env escript
%% An example MCP server (stdio, newline-delimited JSON-RPC) for bin/mcp-gen's
%% embedded default and `make run`. Its tools cover every planner tier:
%%
%%   echo, add, divide  typed scalars (divide answers isError on a zero divisor)
%%   greet              optional parameters, including the nullable forms
%%                      pydantic emits (anyOf [T, null] and type: [T, "null"])
%%   sumList            a list parameter (and a camelCase name the mangler renames)
%%   create_event       structured (object, array-of-object) parameters
%%   evaluate           a top-level anyOf schema: the whole-value tier
%%   sleep              waits; when MCP_EXAMPLE_PIDFILE is set it first writes
%%                      its OS pid to that path plus ".sleeping" (the
%%                      command-line tests interrupt it)
%%
%% tools/list answers in pages of three, so a listing takes three requests.
%% Run it by hand: escript examples/example_server.escript
-mode(compile).

-include("example_stdio.hrl").

server_info() -> {<<"example">>, <<"1.0.0">>}.

page_size() -> 3.

tools() ->
    [tool(<<"echo">>, <<"Sends the message back unchanged.">>,
          object_schema([{<<"message">>, typed(<<"string">>, <<"Text to send back">>)}],
                        [<<"message">>])),
     tool(<<"add">>, <<"Adds two integers.">>,
          object_schema([{<<"a">>, typed(<<"integer">>, <<"First addend">>)},
                         {<<"b">>, typed(<<"integer">>, <<"Second addend">>)}],
                        [<<"a">>, <<"b">>]),
          object_schema([{<<"sum">>, typed(<<"integer">>, <<"a + b">>)}], [<<"sum">>])),
     tool(<<"divide">>, <<"Divides two numbers; a zero divisor is a tool error.">>,
          object_schema([{<<"dividend">>, typed(<<"number">>, <<"Number to divide">>)},
                         {<<"divisor">>, typed(<<"number">>, <<"Number to divide by">>)}],
                        [<<"dividend">>, <<"divisor">>])),
     tool(<<"greet">>, <<"Greets someone, optionally loudly and more than once.">>,
          object_schema([{<<"name">>, typed(<<"string">>, <<"Who to greet">>)},
                         {<<"greeting">>, {object, [{<<"anyOf">>, {array, [{object, [{<<"type">>, {string, <<"string">>}}]},
                                                                            {object, [{<<"type">>, {string, <<"null">>}}]}]}},
                                                    {<<"description">>, {string, <<"Word to greet with (default Hello)">>}}]}},
                         {<<"times">>, {object, [{<<"type">>, {array, [{string, <<"integer">>}, {string, <<"null">>}]}},
                                                 {<<"description">>, {string, <<"How many times (default 1)">>}}]}},
                         {<<"shout">>, typed(<<"boolean">>, <<"Upper-case the greeting">>)}],
                        [<<"name">>])),
     tool(<<"sumList">>, <<"Sums a list of numbers.">>,
          object_schema([{<<"numbers">>, {object, [{<<"type">>, {string, <<"array">>}},
                                                   {<<"items">>, {object, [{<<"type">>, {string, <<"number">>}}]}}]}}],
                        [<<"numbers">>])),
     tool(<<"create_event">>, <<"Creates a calendar event at a place, with attendees.">>,
          object_schema([{<<"title">>, typed(<<"string">>, <<"Event title">>)},
                         {<<"place">>, {object, [{<<"type">>, {string, <<"object">>}},
                                                 {<<"properties">>, {object, [{<<"lat">>, typed(<<"number">>, <<"Latitude">>)},
                                                                              {<<"lon">>, typed(<<"number">>, <<"Longitude">>)}]}}]}},
                         {<<"attendees">>, {object, [{<<"type">>, {string, <<"array">>}},
                                                     {<<"items">>, {object, [{<<"type">>, {string, <<"object">>}}]}}]}}],
                        [<<"title">>, <<"place">>])),
     tool(<<"evaluate">>, <<"Evaluates an arithmetic expression given as text or as a tree.">>,
          {object, [{<<"anyOf">>, {array, [object_schema([{<<"text">>, typed(<<"string">>, <<"Expression text">>)}], [<<"text">>]),
                                           object_schema([{<<"tree">>, {object, [{<<"type">>, {string, <<"object">>}}]}}], [<<"tree">>])]}}]}),
     tool(<<"sleep">>, <<"Waits the given number of milliseconds, then answers.">>,
          object_schema([{<<"ms">>, typed(<<"integer">>, <<"Milliseconds to wait">>)}], [<<"ms">>]))].

call_tool(<<"echo">>, Args) ->
    case member(<<"message">>, Args) of
        {string, Message} -> {ok, [text(Message)], false, none};
        _ -> invalid(<<"message must be a string">>)
    end;
call_tool(<<"add">>, Args) ->
    case {member(<<"a">>, Args), member(<<"b">>, Args)} of
        {{int, A}, {int, B}} -> {ok, [text(integer_to_binary(A + B))], false,
                                 {object, [{<<"sum">>, {int, A + B}}]}};
        _ -> invalid(<<"a and b must be integers">>)
    end;
call_tool(<<"divide">>, Args) ->
    case {number(member(<<"dividend">>, Args)), number(member(<<"divisor">>, Args))} of
        {{ok, _}, {ok, Zero}} when Zero == 0 -> invalid(<<"division by zero">>);
        {{ok, N}, {ok, D}} -> {ok, [text(float_to_binary(N / D, [short]))], false, none};
        _ -> invalid(<<"dividend and divisor must be numbers">>)
    end;
call_tool(<<"greet">>, Args) ->
    Greeting = case member(<<"greeting">>, Args) of {string, G} -> G; _ -> <<"Hello">> end,
    Times = case member(<<"times">>, Args) of {int, T} when T >= 1, T =< 100 -> T; _ -> 1 end,
    case member(<<"name">>, Args) of
        {string, Name} ->
            Line = <<Greeting/binary, ", ", Name/binary, "!">>,
            Shouted = case member(<<"shout">>, Args) of
                          {bool, true} -> string:uppercase(Line);
                          _ -> Line
                      end,
            {ok, [text(lists:join(<<" ">>, lists:duplicate(Times, Shouted)))], false, none};
        _ -> invalid(<<"name must be a string">>)
    end;
call_tool(<<"sumList">>, Args) ->
    case member(<<"numbers">>, Args) of
        {array, Items} ->
            case lists:all(fun(Item) -> number(Item) =/= error end, Items) of
                true -> {ok, [text(number_text(lists:sum([N || Item <- Items, {ok, N} <- [number(Item)]])))], false, none};
                false -> invalid(<<"numbers must hold only numbers">>)
            end;
        _ -> invalid(<<"numbers must be an array">>)
    end;
call_tool(<<"create_event">>, Args) ->
    case member(<<"title">>, Args) of
        {string, Title} ->
            Attendees = case member(<<"attendees">>, Args) of {array, List} -> length(List); _ -> 0 end,
            Where = mcp_json:encode(case member(<<"place">>, Args) of undefined -> null; Place -> Place end),
            {ok, [text(iolist_to_binary(io_lib:format("created ~ts at ~ts with ~b attendees",
                                                      [Title, Where, Attendees])))],
             false, {object, [{<<"title">>, {string, Title}}, {<<"attendees">>, {int, Attendees}}]}};
        _ -> invalid(<<"title must be a string">>)
    end;
call_tool(<<"evaluate">>, Args) ->
    {ok, [text(<<"received ", (mcp_json:encode(Args))/binary>>)], false, none};
call_tool(<<"sleep">>, Args) ->
    case member(<<"ms">>, Args) of
        {int, Ms} when Ms >= 0, Ms =< 3600000 ->
            ok = write_pidfile(".sleeping"),
            timer:sleep(Ms),
            {ok, [text(<<"slept ", (integer_to_binary(Ms))/binary, " ms">>)], false, none};
        _ -> invalid(<<"ms must be an integer from 0 to 3600000">>)
    end;
call_tool(_, _) ->
    unknown_tool.

invalid(Reason) -> {ok, [text(Reason)], true, none}.

number({int, N}) -> {ok, N};
number({float, N}) -> {ok, N};
number(_) -> error.

number_text(N) when is_integer(N) -> integer_to_binary(N);
number_text(N) -> float_to_binary(N, [short]).
