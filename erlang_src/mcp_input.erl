%% @doc The input a server asks the client for (elicitation), as values:
%% the capability the client declares, a request read from the wire, the
%% answer written back, schema defaults, the modern era's
%% `input_required' tool result and the retry that answers it.
%%
%% The caller's input handler (`mcp_client' option `input_handler') is
%% run by the client actor in a process of its own (`answer_all/2' is that
%% process's work); this module performs no other effect.
%%
%% Invariants:
%% <ul>
%% <li>The client declares `{"elicitation": {"form": {}}}' exactly when a
%%     handler is given, and `{}' otherwise (`capabilities/1').</li>
%% <li>An accepted answer carries every `default' of the requested
%%     schema's top-level properties that the handler's content omits
%%     (SEP-1034); the handler's own values are kept as given.</li>
%% <li>Whatever the handler does (returns a term outside
%%     `answer()', content that is not a JSON object, raises, exits), the
%%     server gets `decline'; `answer_all/2' never raises.</li>
%% <li>A retry echoes `requestState' as received, and carries it only
%%     when the server sent one; `inputResponses' has exactly the keys of
%%     the `inputRequests' it answers.</li>
%% </ul>
-module(mcp_input).

-export([max_input_requests/0, capabilities/1, request/1, answer_all/2, accept_defaults/1, with_defaults/2, result/2,
         read_input_required/1, retry_params/4]).
-export_type([handler/0, request/0, answer/0, input_required/0]).

%% The input requests one `input_required' result may carry (each is a
%% question for the handler; duplicates by key are dropped in one pass).
-define(MAX_INPUT_REQUESTS, 64).

%% @doc The input requests one `input_required' result may carry; more
%% is a `protocol_fault'.
-spec max_input_requests() -> pos_integer().
max_input_requests() -> ?MAX_INPUT_REQUESTS.

-type json() :: mcp_json:json().
%% What the handler is asked: the server's message and the schema of the
%% object it wants (a form: flat, primitive properties).
-type request() :: {elicitation_request, Message :: binary(), RequestedSchema :: json()}.
%% What the handler answers: the content (a JSON object), or the person's
%% refusal (`decline') or dismissal (`cancel').
-type answer() :: {accept, Content :: json()} | decline | cancel.
-type handler() :: fun((request()) -> answer()).
%% An `input_required' tool result: each input request under its key (a
%% request the client cannot answer is `{unsupported, Method}'), and the
%% opaque state to echo.
-type input_required() :: {input_required, [{Key :: binary(), request() | {unsupported, Method :: binary()}}],
                           RequestState :: {some, json()} | none}.

%% @doc The client capabilities: elicitation (form mode) with a handler.
-spec capabilities(handler() | none) -> json().
capabilities(none) -> {object, []};
capabilities(Handler) when is_function(Handler, 1) ->
    {object, [{<<"elicitation">>, {object, [{<<"form">>, {object, []}}]}}]}.

%% @doc An `elicitation/create' request's params as the handler's
%% request; a request that is not a form (no `requestedSchema' object, or
%% a message that is not a string) is `unsupported'.
-spec request(json()) -> {ok, request()} | unsupported.
request({object, Params}) ->
    case {member(<<"message">>, Params), member(<<"requestedSchema">>, Params), member(<<"mode">>, Params)} of
        {{string, Message}, {object, _} = Schema, Mode} when Mode =:= none; Mode =:= {string, <<"form">>} ->
            {ok, {elicitation_request, Message, Schema}};
        _ ->
            unsupported
    end;
request(_) ->
    unsupported.

%% @doc Runs the handler on each request, in order, and gives each
%% answer as the result object to send (`result/2'); an unsupported
%% request, and any failure of the handler, answers `decline'. Meant to
%% run in a process of its own: the handler is caller code.
-spec answer_all(handler(), [request() | unsupported]) -> [json()].
answer_all(Handler, Requests) ->
    [answer_one(Handler, Request) || Request <- Requests].

answer_one(Handler, {elicitation_request, _, Schema} = Request) ->
    try
        Result = result(Handler(Request), Schema),
        %% Content the encoder refuses is the handler's fault, found here
        %% rather than in the actor.
        _ = mcp_json:encode(Result),
        Result
    catch
        _:_ -> result(decline, Schema)
    end;
answer_one(_Handler, unsupported) ->
    result(decline, none).

%% @doc The handler that accepts with the schema's defaults: `{accept,
%% {}}' (the defaults are added by `with_defaults/2') when every required
%% property has a default, `decline' otherwise. The command line's
%% `--elicit defaults'.
-spec accept_defaults(request()) -> {accept, json()} | decline.
accept_defaults({elicitation_request, _Message, {object, Schema}}) ->
    Defaults = [Name || {Name, {object, Property}} <- properties(Schema), member(<<"default">>, Property) =/= none],
    Required = case member(<<"required">>, Schema) of
                   {array, Items} -> [Name || {string, Name} <- Items];
                   _ -> []
               end,
    case Required -- Defaults of
        [] -> {accept, {object, []}};
        _ -> decline
    end;
accept_defaults(_) ->
    decline.

%% @doc Content with the schema's top-level `default's added for the
%% properties it omits, after the handler's own members.
-spec with_defaults(json(), json()) -> json().
with_defaults({object, Schema}, {object, Content}) ->
    Missing = [{Name, Default} || {Name, {object, Property}} <- properties(Schema),
                                  {_, Default} <- [lists:keyfind(<<"default">>, 1, Property)],
                                  not lists:keymember(Name, 1, Content)],
    {object, Content ++ dedup(Missing)};
with_defaults(_Schema, Content) ->
    Content.

%% @doc The result object of an answer (an `ElicitResult'); accepted
%% content gets the schema's defaults. Raises `badarg' for a term that is
%% not an `answer()'.
-spec result(answer(), json() | none) -> json().
result({accept, {object, _} = Content}, Schema) ->
    {object, [{<<"action">>, {string, <<"accept">>}}, {<<"content">>, with_defaults(Schema, Content)}]};
result(decline, _Schema) -> {object, [{<<"action">>, {string, <<"decline">>}}]};
result(cancel, _Schema) -> {object, [{<<"action">>, {string, <<"cancel">>}}]};
result(Other, Schema) -> error(badarg, [Other, Schema]).

%% @doc An `input_required' result (`mcp_protocol:read/2''s `{input_required,
%% Result}'): its requests and its state, or a fault.
-spec read_input_required(json()) -> {ok, input_required()} | {error, mcp_protocol:protocol_fault()}.
read_input_required({object, Members}) ->
    State = case member(<<"requestState">>, Members) of
                none -> none;
                null -> none;
                Given -> {some, Given}
            end,
    case member(<<"inputRequests">>, Members) of
        Absent when Absent =:= none; Absent =:= null ->
            {ok, {input_required, [], State}};
        {object, Requests} ->
            case length(Requests) =< ?MAX_INPUT_REQUESTS of
                true -> input_requests(Requests, {[], #{}}, State);
                false -> {error, {protocol_fault, <<"$.inputRequests">>,
                                  <<"more than ", (integer_to_binary(?MAX_INPUT_REQUESTS))/binary, " requests">>}}
            end;
        _ ->
            {error, {protocol_fault, <<"$.inputRequests">>, <<"expected an object">>}}
    end;
read_input_required(_) ->
    {error, {protocol_fault, <<"$">>, <<"expected an object">>}}.

input_requests([], {Acc, _Seen}, State) ->
    {ok, {input_required, lists:reverse(Acc), State}};
input_requests([{Key, {object, Request}} | Rest], {Acc, Seen}, State) ->
    case is_map_key(Key, Seen) of
        true ->
            input_requests(Rest, {Acc, Seen}, State);
        false ->
            case member(<<"method">>, Request) of
                {string, <<"elicitation/create">>} ->
                    Read = case request(member(<<"params">>, Request)) of
                               {ok, Elicitation} -> Elicitation;
                               unsupported -> {unsupported, <<"elicitation/create">>}
                           end,
                    input_requests(Rest, {[{Key, Read} | Acc], Seen#{Key => true}}, State);
                {string, Method} ->
                    input_requests(Rest, {[{Key, {unsupported, Method}} | Acc], Seen#{Key => true}}, State);
                _ ->
                    {error, {protocol_fault, <<"$.inputRequests[", (quoted(Key))/binary, "].method">>,
                             <<"expected a string">>}}
            end
    end;
input_requests([{Key, _} | _], _Acc, _State) ->
    {error, {protocol_fault, <<"$.inputRequests[", (quoted(Key))/binary, "]">>, <<"expected an object">>}}.

%% @doc The params of the `tools/call' retry: the call's name and
%% arguments, `inputResponses' (when any) and `requestState' (when the
%% server sent one).
-spec retry_params(binary(), json(), [{binary(), json()}], {some, json()} | none) -> json().
retry_params(Name, Arguments, Responses, State) ->
    {object, Members} = mcp_protocol:tools_call_params(Name, Arguments),
    {object, Members
             ++ [{<<"inputResponses">>, {object, Responses}} || Responses =/= []]
             ++ [{<<"requestState">>, Given} || {some, Given} <- [State]]}.

properties(Schema) ->
    case member(<<"properties">>, Schema) of
        {object, Properties} -> Properties;
        _ -> []
    end.

%% The first occurrence of each name, as the decoders read members.
dedup(Members) ->
    lists:reverse(lists:foldl(fun({Name, _} = Member, Acc) ->
                                      case lists:keymember(Name, 1, Acc) of
                                          true -> Acc;
                                          false -> [Member | Acc]
                                      end
                              end, [], Members)).

quoted(Key) -> mcp_json:encode({string, Key}).

member(Key, Members) ->
    case lists:keyfind(Key, 1, Members) of
        {_, Value} -> Value;
        false -> none
    end.
