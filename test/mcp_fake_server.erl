%% @doc A scriptable MCP server on `mcp_channel', for tests.
%%
%% It parses what the client writes with `mcp_json' only (never with the
%% codecs under test), hands each message to a handler and performs the
%% actions the handler returns. Every message it receives is also sent to
%% the observer (the test process) as `{fake_server, Peer, Message}'.
%%
%% Messages: `{request, Id, Method, Params}', `{notification, Method, Params}',
%% `{response, Id, Body}' (the client answering a server request; Body is the
%% whole object) — Id and Params are raw `json()' (Params `none' if absent).
%%
%% Actions: `{reply, Id, Result}', `{send, json()}' (one framed line),
%% `{raw, iodata()}' (bytes as one chunk), `{chunks, [iodata()]}' (bytes as
%% several chunks), `{exit, Reason}' (the peer dies: the transport closes).
-module(mcp_fake_server).

-export([spec/1, spec/2, default/1, initialize_result/0, initialize_result/2,
         tool/1, tools_page/2, sized_tools_page/3, text_result/1, response_line/2, field/2]).

-type handler() :: fun((term()) -> [term()] | default).

%% @doc A channel transport spec for a stateless handler: `default' falls back
%% to `default/1'. The test process is the observer.
-spec spec(handler()) -> {mcp_channel, mcp_channel:start()}.
spec(Handler) ->
    spec(Handler, self()).

-spec spec(handler(), pid()) -> {mcp_channel, mcp_channel:start()}.
spec(Handler, Observer) ->
    {mcp_channel,
     fun(Channel) ->
             {ok, spawn(fun() -> init(Channel, Handler, Observer) end)}
     end}.

init(Channel, Handler, Observer) ->
    erlang:monitor(process, mcp_channel:client(Channel)),
    loop(Channel, Handler, Observer, <<>>).

loop(Channel, Handler, Observer, Pending) ->
    receive
        {mcp_channel, Channel, {bytes, Bytes}} ->
            {Lines, Rest} = split_lines(<<Pending/binary, Bytes/binary>>),
            lists:foreach(fun(Line) -> handle_line(Line, Channel, Handler, Observer) end, Lines),
            loop(Channel, Handler, Observer, Rest);
        {perform, Actions} ->
            perform(Actions, Channel),
            loop(Channel, Handler, Observer, Pending);
        {'DOWN', _, process, _, _} ->
            exit(normal)
    end.

split_lines(Bytes) ->
    Parts = binary:split(Bytes, <<"\n">>, [global]),
    {Lines, [Rest]} = lists:split(length(Parts) - 1, Parts),
    {Lines, Rest}.

handle_line(Line, Channel, Handler, Observer) ->
    {ok, Json} = mcp_json:decode(Line),
    Message = classify(Json),
    Observer ! {fake_server, self(), Message},
    Actions = case Handler(Message) of
                  default -> default(Message);
                  Chosen -> Chosen
              end,
    perform(Actions, Channel).

classify(Json) ->
    case {field(<<"id">>, Json), field(<<"method">>, Json)} of
        {none, {string, Method}} -> {notification, Method, field(<<"params">>, Json)};
        {Id, {string, Method}} -> {request, Id, Method, field(<<"params">>, Json)};
        {Id, none} -> {response, Id, Json}
    end.

perform(Actions, Channel) ->
    lists:foreach(fun(Action) -> act(Action, Channel) end, Actions).

act({reply, Id, Result}, Channel) ->
    mcp_channel:write(Channel, response_line(Id, Result));
act({send, Json}, Channel) ->
    mcp_channel:write(Channel, [mcp_json:encode(Json), $\n]);
act({raw, Bytes}, Channel) ->
    mcp_channel:write(Channel, Bytes);
act({chunks, Chunks}, Channel) ->
    lists:foreach(fun(Chunk) -> mcp_channel:write(Channel, Chunk) end, Chunks);
act({exit, Reason}, _Channel) ->
    exit(Reason).

%% @doc A well-behaved server: the handshake, one page with one tool `echo',
%% `ping', and `tools/call' answering the call's arguments as text.
-spec default(term()) -> [term()].
default({request, Id, <<"initialize">>, _}) ->
    [{reply, Id, initialize_result()}];
default({request, Id, <<"tools/list">>, _}) ->
    [{reply, Id, tools_page([tool(<<"echo">>)], none)}];
default({request, Id, <<"ping">>, _}) ->
    [{reply, Id, {object, []}}];
default({request, Id, <<"tools/call">>, Params}) ->
    [{reply, Id, text_result(mcp_json:encode(field(<<"arguments">>, Params)))}];
default(_) ->
    [].

-spec initialize_result() -> mcp_json:json().
initialize_result() ->
    initialize_result(<<"2025-06-18">>, [{<<"tools">>, {object, []}}]).

-spec initialize_result(binary(), [{binary(), mcp_json:json()}]) -> mcp_json:json().
initialize_result(Version, Capabilities) ->
    {object, [{<<"protocolVersion">>, {string, Version}},
              {<<"capabilities">>, {object, Capabilities}},
              {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"fake">>}},
                                           {<<"version">>, {string, <<"1.0">>}}]}}]}.

-spec tool(binary()) -> mcp_json:json().
tool(Name) ->
    {object, [{<<"name">>, {string, Name}},
              {<<"inputSchema">>, {object, [{<<"type">>, {string, <<"object">>}}]}}]}.

-spec tools_page([mcp_json:json()], {some, binary()} | none) -> mcp_json:json().
tools_page(Tools, none) ->
    {object, [{<<"tools">>, {array, Tools}}]};
tools_page(Tools, {some, Cursor}) ->
    {object, [{<<"tools">>, {array, Tools}}, {<<"nextCursor">>, {string, Cursor}}]}.

%% @doc A page of one tool whose response line to `Id' takes `Length' bytes
%% (without its newline), padded with the tool's description.
-spec sized_tools_page(mcp_json:json(), pos_integer(), {some, binary()} | none) -> mcp_json:json().
sized_tools_page(Id, Length, Next) ->
    Page = fun(Pad) ->
                   Tool = {object, [{<<"name">>, {string, <<"t">>}},
                                    {<<"description">>, {string, binary:copy(<<"d">>, Pad)}},
                                    {<<"inputSchema">>, {object, [{<<"type">>, {string, <<"object">>}}]}}]},
                   tools_page([Tool], Next)
           end,
    Bare = byte_size(response_line(Id, Page(0))) - 1,
    Page(Length - Bare).

-spec text_result(binary()) -> mcp_json:json().
text_result(Text) ->
    {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}},
                                                 {<<"text">>, {string, Text}}]}]}}]}.

%% @doc One framed response line (what a server writes).
-spec response_line(mcp_json:json(), mcp_json:json()) -> binary().
response_line(Id, Result) ->
    Json = {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id}, {<<"result">>, Result}]},
    <<(mcp_json:encode(Json))/binary, "\n">>.

%% @doc A member of a JSON object, `none' when absent or not an object.
-spec field(binary(), mcp_json:json() | none) -> mcp_json:json() | none.
field(Key, {object, Members}) ->
    case lists:keyfind(Key, 1, Members) of
        {_, Value} -> Value;
        false -> none
    end;
field(_Key, _) ->
    none.
