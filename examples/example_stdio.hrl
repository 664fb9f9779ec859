%% The stdio half of the example MCP servers, included by each escript here:
%% newline-delimited JSON-RPC 2.0 on stdin/stdout, one request at a time.
%%
%% The including escript defines:
%%   server_info() -> {Name :: binary(), Version :: binary()}
%%   page_size() -> pos_integer()            (tools/list pagination)
%%   tools() -> [json()]                     (tool descriptors, wire order)
%%   call_tool(Name :: binary(), Args :: json()) ->
%%       {ok, Content :: [json()], IsError :: boolean(), Structured :: none | json()}
%%     | unknown_tool
%%
%% JSON goes through the `mcp' application's `mcp_json' (JSON values are the
%% docs/design.md's term shapes: {object, [{Key, Value}]}, {string, B}, {int, I}, ...).
%% `mcp' is found through ERL_LIBS (bin/mcp-gen sets it) or, failing that,
%% at `../_build/default/lib/mcp' beside this file. The server answers
%% initialize, ping, tools/list (cursor = decimal offset) and tools/call;
%% any other request gets method not found; notifications are ignored. It
%% exits 0 when stdin closes. It speaks the protocol revisions the library
%% does (`mcp_protocol:supported_versions()', newest first) and answers
%% with the library's JSON-RPC error codes (`mcp_jsonrpc').

main(_) ->
    ok = find_mcp_json(),
    ok = io:setopts(standard_io, [binary]),
    ok = write_pidfile(""),
    serve().

%% When MCP_EXAMPLE_PIDFILE is set, the server writes its OS pid to that
%% file at start (Suffix "") and to the file plus Suffix at other moments
%% (the command-line tests check that no server outlives mcp-gen, and
%% interrupt a call in flight).
write_pidfile(Suffix) ->
    case os:getenv("MCP_EXAMPLE_PIDFILE") of
        false -> ok;
        Path -> file:write_file(Path ++ Suffix, os:getpid())
    end.

find_mcp_json() ->
    case code:ensure_loaded(mcp_json) of
        {module, mcp_json} ->
            ok;
        {error, _} ->
            Here = filename:dirname(filename:absname(escript:script_name())),
            Ebin = filename:join([Here, "..", "_build", "default", "lib", "mcp", "ebin"]),
            true = code:add_patha(Ebin),
            {module, mcp_json} = code:ensure_loaded(mcp_json),
            ok
    end.

serve() ->
    case io:get_line(standard_io, "") of
        eof -> halt(0);
        {error, _} -> halt(1);
        Line -> answer(mcp_json:decode(string:trim(Line, trailing, "\r\n"))), serve()
    end.

answer({error, _Corruption}) ->
    reply(null, {error, mcp_jsonrpc:parse_error(), <<"parse error">>});
answer({ok, {object, _} = Message}) ->
    case {member(<<"id">>, Message), member(<<"method">>, Message)} of
        {undefined, _} -> ok;                                % notification or stray response
        {Id, {string, Method}} -> reply(Id, handle_safely(Method, member(<<"params">>, Message)));
        {Id, _} -> reply(Id, {error, mcp_jsonrpc:invalid_request(), <<"invalid request">>})
    end;
answer({ok, _}) ->
    reply(null, {error, mcp_jsonrpc:invalid_request(), <<"invalid request">>}).

handle_safely(Method, Params) ->
    try handle(Method, Params)
    catch Class:Reason -> {error, mcp_jsonrpc:internal_error(), iolist_to_binary(io_lib:format("internal error: ~p:~0p", [Class, Reason]))}
    end.

handle(<<"initialize">>, Params) ->
    [Newest | _] = Versions = mcp_protocol:supported_versions(),
    Version = case member(<<"protocolVersion">>, Params) of
                  {string, V} -> case lists:member(V, Versions) of
                                     true -> V;
                                     false -> Newest
                                 end;
                  _ -> Newest
              end,
    {Name, ServerVersion} = server_info(),
    {ok, {object, [{<<"protocolVersion">>, {string, Version}},
                   {<<"capabilities">>, {object, [{<<"tools">>, {object, [{<<"listChanged">>, {bool, false}}]}}]}},
                   {<<"serverInfo">>, {object, [{<<"name">>, {string, Name}},
                                                {<<"version">>, {string, ServerVersion}}]}}]}};
handle(<<"ping">>, _) ->
    {ok, {object, []}};
handle(<<"tools/list">>, Params) ->
    case member(<<"cursor">>, Params) of
        undefined -> tools_page(0);
        {string, Cursor} ->
            case string:to_integer(Cursor) of
                {Offset, <<>>} when Offset >= 0 -> tools_page(Offset);
                _ -> {error, mcp_jsonrpc:invalid_params(), <<"invalid cursor">>}
            end;
        _ -> {error, mcp_jsonrpc:invalid_params(), <<"invalid cursor">>}
    end;
handle(<<"tools/call">>, Params) ->
    Arguments = case member(<<"arguments">>, Params) of
                    undefined -> {object, []};
                    Given -> Given
                end,
    case member(<<"name">>, Params) of
        {string, Name} ->
            case call_tool(Name, Arguments) of
                {ok, Content, IsError, Structured} -> {ok, call_result(Content, IsError, Structured)};
                unknown_tool -> {error, mcp_jsonrpc:invalid_params(), <<"unknown tool: ", Name/binary>>}
            end;
        _ -> {error, mcp_jsonrpc:invalid_params(), <<"tools/call needs a name">>}
    end;
handle(_, _) ->
    {error, mcp_jsonrpc:method_not_found(), <<"method not found">>}.

tools_page(Offset) ->
    All = tools(),
    Page = lists:sublist(All, Offset + 1, page_size()),
    Next = case Offset + page_size() < length(All) of
               true -> [{<<"nextCursor">>, {string, integer_to_binary(Offset + page_size())}}];
               false -> []
           end,
    {ok, {object, [{<<"tools">>, {array, Page}} | Next]}}.

call_result(Content, IsError, Structured) ->
    Extra = case Structured of
                none -> [];
                Value -> [{<<"structuredContent">>, Value}]
            end,
    {object, [{<<"content">>, {array, Content}}, {<<"isError">>, {bool, IsError}} | Extra]}.

reply(Id, Outcome) ->
    Body = case Outcome of
               {ok, Result} -> {<<"result">>, Result};
               {error, Code, Text} -> {<<"error">>, {object, [{<<"code">>, {int, Code}},
                                                            {<<"message">>, {string, Text}}]}}
           end,
    Line = mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id}, Body]}),
    ok = io:put_chars(standard_io, [Line, $\n]).

%% The first member named Key of a JSON object; undefined otherwise.
member(Key, {object, Members}) ->
    case lists:keyfind(Key, 1, Members) of
        {Key, Value} -> Value;
        false -> undefined
    end;
member(_, _) ->
    undefined.

%% Small constructors for the escripts' tool tables and results. (escript
%% prints compiler warnings on stdout, where they would corrupt the protocol,
%% so those a server may leave unused are declared.)
-compile({nowarn_unused_function, [text/1, tool/3, tool/4, object_schema/2, typed/2]}).
text(Text) -> {object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, iolist_to_binary(Text)}}]}.

tool(Name, Description, InputSchema) ->
    {object, [{<<"name">>, {string, Name}}, {<<"description">>, {string, Description}},
              {<<"inputSchema">>, InputSchema}]}.

tool(Name, Description, InputSchema, OutputSchema) ->
    {object, Members} = tool(Name, Description, InputSchema),
    {object, Members ++ [{<<"outputSchema">>, OutputSchema}]}.

object_schema(Properties, Required) ->
    {object, [{<<"type">>, {string, <<"object">>}},
              {<<"properties">>, {object, Properties}},
              {<<"required">>, {array, [{string, R} || R <- Required]}}]}.

typed(Type, Description) ->
    {object, [{<<"type">>, {string, Type}}, {<<"description">>, {string, Description}}]}.
