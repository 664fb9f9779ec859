%% @doc The input handler's runs for a client actor (`mcp_client_actor'):
%% a server's `elicitation/create' and a tool call's `input_required'
%% rounds, answered by the caller's `input_handler' in processes of their
%% own. Functions of the actor's state (`mcp_client_actor.hrl'); the
%% effects are the actor's.
-module(mcp_client_inputs).

-export([question/3, input_done/3, input_expired/2, input_required/5, stop_input/2]).

-include("mcp_client_actor.hrl").

%%% ---------------------------------------------------------------- input
%%
%% The input handler is caller code: it runs in a process of its own,
%% linked (it dies with the actor) and monitored (its exit reason carries
%% its answers, `mcp_input:answer_all/2'), for at most
%% `input_timeout_ms' and, for a tool call, not past the call's deadline.
%% A handler that crashes answers `decline'; one that runs out of time
%% `cancel' (killed); the actor serves everything else meanwhile.

%% A server's `elicitation/create' (the core named it and answered it
%% `-32601'): with an input handler it goes to the handler instead; at
%% most `?MAX_SERVER_INPUTS' of a server's questions run at once (each
%% handler is a process: a server asking without end would fill the VM's
%% process table), and one past them is answered `cancel' at once. Only a
%% question on a line of at most `?MAX_WHOLE_LINE_BYTES' is decoded: a
%% longer one keeps the core's answer, unbuilt. No other server request is
%% decoded (the core answers it: a `ping' with 15 MB of params decoded
%% whole took the actor to 0.6-1.4 GB).
question(Line, Response, Data) when byte_size(Line) > ?MAX_WHOLE_LINE_BYTES ->
    mcp_client_actor:transmit({rpc, response, Response}, Data);
question(Line, Response, #data{options = #{input_handler := Handler}, inputs = Inputs} = Data) ->
    Asking = maps:size(maps:filter(fun(_, #{for := {server_request, _}}) -> true; (_, _) -> false end, Inputs)),
    case mcp_jsonrpc:decode(Line) of
        {ok, {server_request, Id, <<"elicitation/create">>, {some, _}}} when Asking >= ?MAX_SERVER_INPUTS ->
            mcp_client_actor:respond(Id, mcp_input:result(cancel, none), Data);
        {ok, {server_request, Id, <<"elicitation/create">>, {some, Params}}} ->
            Request = case mcp_input:request(Params) of
                          {ok, Elicitation} -> Elicitation;
                          unsupported -> unsupported
                      end,
            {ok, run_input(Handler, [Request], {server_request, Id}, none, Data)};
        _ ->
            mcp_client_actor:transmit({rpc, response, Response}, Data)
    end;
question(_Line, Response, Data) ->
    mcp_client_actor:transmit({rpc, response, Response}, Data).

%% Starts the handler on `Requests'; `Deadline' (or `none') bounds it
%% beside `input_timeout_ms'.
run_input(Handler, Requests, For, Deadline, #data{options = Options, inputs = Inputs} = Data) ->
    {Pid, Monitor} = spawn_opt(fun() -> exit({input_answers, mcp_input:answer_all(Handler, Requests)}) end,
                               [link, monitor]),
    Limit = erlang:monotonic_time(millisecond) + maps:get(input_timeout_ms, Options),
    Until = case Deadline of
                none -> Limit;
                _ -> min(Limit, Deadline)
            end,
    Timer = erlang:start_timer(Until, self(), {input_expired, Monitor}, [{abs, true}]),
    Data#data{inputs = Inputs#{Monitor => #{pid => Pid, timer => Timer, count => length(Requests), for => For}}}.

%% Takes a run out: its timer cancelled, its process (if alive) killed and
%% its monitor dropped; gives what it was for.
stop_input(Monitor, #{pid := Pid, timer := Timer, for := For}) ->
    _ = erlang:cancel_timer(Timer, [{async, true}, {info, false}]),
    unlink(Pid),
    exit(Pid, kill),
    erlang:demonitor(Monitor, [flush]),
    For.

input_done(Monitor, Outcome, #data{inputs = Inputs} = Data) ->
    {#{count := Count, timer := Timer, for := For}, Rest} = maps:take(Monitor, Inputs),
    _ = erlang:cancel_timer(Timer, [{async, true}, {info, false}]),
    Answers = case Outcome of
                  {input_answers, Given} when length(Given) =:= Count -> Given;
                  _ -> lists:duplicate(Count, mcp_input:result(decline, none))
              end,
    answered_input(For, Answers, Data#data{inputs = Rest}).

input_expired(Monitor, #data{inputs = Inputs} = Data) ->
    case maps:take(Monitor, Inputs) of
        {#{count := Count} = Run, Rest} ->
            For = stop_input(Monitor, Run),
            answered_input(For, lists:duplicate(Count, mcp_input:result(cancel, none)), Data#data{inputs = Rest});
        error ->
            {ok, Data}
    end.

%% The handler's answers go where they were asked for: the server
%% request's response, or the tool call's retry (a new id, the answers
%% under their keys, the state echoed).
answered_input({server_request, Id}, [Answer], Data) ->
    mcp_client_actor:respond(Id, Answer, Data);
answered_input({tool_call, From, Kind, {Name, Arguments}, Round, Deadline, Keys, State}, Answers, Data) ->
    case erlang:monotonic_time(millisecond) >= Deadline of
        true ->
            mcp_client_actor:reply(From, {error, call_timed_out}),
            {ok, Data};
        false ->
            Params = mcp_input:retry_params(Name, Arguments, lists:zip(Keys, Answers), State),
            mcp_client_actor:send_request(From, {tool_call, Kind, {Name, Arguments}, Round}, Deadline, <<"tools/call">>,
                         {some, Params}, Data)
    end.

%% A tool call answered `input_required': a round more, if the limit and
%% a handler allow.
input_required({tool_call, Kind, Call, Round}, Result, From, Deadline, #data{options = Options} = Data) ->
    case mcp_input:read_input_required(Result) of
        {error, Fault} ->
            mcp_client_actor:reply(From, {error, {result_malformed, Fault}}),
            {ok, Data};
        {ok, _} when Round >= ?MAX_INPUT_ROUNDS ->
            mcp_client_actor:reply(From, {error, {too_many_input_rounds, ?MAX_INPUT_ROUNDS}}),
            {ok, Data};
        {ok, {input_required, Requests, State}} ->
            case {[Method || {_, {unsupported, Method}} <- Requests], Requests, maps:find(input_handler, Options)} of
                {[Method | _], _, _} ->
                    mcp_client_actor:reply(From, {error, {input_unsupported, Method}}),
                    {ok, Data};
                {[], [], _} ->
                    answered_input({tool_call, From, Kind, Call, Round + 1, Deadline, [], State}, [], Data);
                {[], _, error} ->
                    mcp_client_actor:reply(From, {error, no_input_handler}),
                    {ok, Data};
                {[], _, {ok, Handler}} ->
                    For = {tool_call, From, Kind, Call, Round + 1, Deadline, [Key || {Key, _} <- Requests], State},
                    {ok, run_input(Handler, [Request || {_, Request} <- Requests], For, Deadline, Data)}
            end
    end.
