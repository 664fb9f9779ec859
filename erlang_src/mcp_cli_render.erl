%% @doc Text `bin/mcp-gen' shows a person: one-line reasons for client
%% errors, the plan table, tool lines for `list', call results.
%%
%% Everything a server chose (names, descriptions, versions, text content,
%% reasons) is untrusted and passes through `printable/2' before it reaches
%% a terminal: control characters (C0 except newline and tab where text may
%% span lines, DEL, C1) and direction-changing codepoints become U+FFFD, so a
%% server cannot move the cursor, rewrite earlier lines or reorder text.
-module(mcp_cli_render).

-export([start_error/1, client_error/1, retirement_error/1,
         plan_table/1, plan_row/1, tool_line/1, params/1,
         result_text/1, result_json/1, printable/2]).
-export_type([plan_row/0]).

%% Tool name, tier (typed | structured params | whole value), note.
-type plan_row() :: {Name :: binary(), Tier :: binary(), Note :: binary()}.

-define(REPLACEMENT, 16#FFFD).
-define(MAX_NAME_COLUMN, 32).

%% ---- one-line reasons ----

-spec start_error(term()) -> iolist().
start_error({transport_failed, {executable_not_found, Name}}) ->
    ["executable not found: ", printable(term_text(Name), line)];
start_error({transport_failed, Reason}) ->
    ["could not start the server: ", reason(Reason)];
start_error({handshake_failed, ClientError}) ->
    ["handshake failed: ", client_error(ClientError)];
start_error({version_unsupported, Requested, Offered}) ->
    ["server offered protocol version ", printable(term_text(Offered), line),
     "; this client asked for ", printable(term_text(Requested), line),
     " and supports no common version"];
start_error(tools_not_declared) ->
    "server does not declare the tools capability";
start_error({cleanup_unconfirmed, _Client}) ->
    "server start failed and its process could not be confirmed gone";
start_error(Other) ->
    ["could not start the server: ", reason(Other)].

-spec client_error(term()) -> iolist().
client_error({unavailable, Reason}) ->
    ["server unavailable: ", reason(Reason)];
client_error(call_timed_out) ->
    "request timed out (see --timeout)";
client_error({server_error, {rpc_error, Code, Message, _Data}}) ->
    [io_lib:format("server error ~b: ", [Code]), printable(Message, line)];
client_error({result_malformed, {protocol_fault, Path, Reason}}) ->
    ["malformed result at ", printable(Path, line), ": ", printable(Reason, line)];
client_error({result_malformed, Fault}) ->
    ["malformed result: ", reason(Fault)];
client_error(too_many_pages) ->
    "tools/list did not end: more than 64 pages or a repeated cursor";
client_error(Other) ->
    reason(Other).

-spec retirement_error(term()) -> iolist().
retirement_error(retirement_timed_out) ->
    "server shutdown timed out: its process may still be running";
retirement_error({retirement_unconfirmed, Reason}) ->
    ["server shutdown unconfirmed: ", reason(Reason)];
retirement_error(Other) ->
    ["server shutdown failed: ", reason(Other)].

reason(Reason) when is_binary(Reason) -> printable(Reason, line);
reason(Reason) -> printable(term_text(Reason), line).

term_text(Text) when is_binary(Text) -> Text;
term_text(Chars) when is_list(Chars), Chars =/= [] ->
    case io_lib:printable_unicode_list(Chars) of
        true -> unicode:characters_to_binary(Chars);
        false -> formatted(Chars)
    end;
term_text(Term) ->
    formatted(Term).

formatted(Term) ->
    Flat = unicode:characters_to_binary(io_lib:format("~0tp", [Term], [{chars_limit, 300}])),
    case Flat of
        Bin when is_binary(Bin) -> Bin;
        _ -> <<"(unprintable)">>
    end.

%% ---- the plan table (generate, on stderr) ----

%% @doc One row of the plan table for a tool descriptor.
-spec plan_row(tuple()) -> plan_row().
plan_row({tool_descriptor, Name, _Title, _Description, InputSchema, _Output, _Annotations}) ->
    {Tier, Note} = case mcp_schema:plan(InputSchema) of
                       {whole_value, Reason} ->
                           {<<"whole value">>, Reason};
                       {typed, Params} ->
                           case [{Wire, Reason} || {param, Wire, _, {structured, Reason}, _} <- Params] of
                               [] -> {<<"typed">>, <<>>};
                               Structured -> {<<"structured params">>, structured_note(Structured)}
                           end
                   end,
    {Name, Tier, Note}.

structured_note(Structured) ->
    iolist_to_binary(lists:join(<<"; ">>, [[Wire, <<": ">>, Reason] || {Wire, Reason} <- Structured])).

%% @doc The rows as aligned lines (each ending in a newline), with a header.
-spec plan_table([plan_row()]) -> iolist().
plan_table(Rows) ->
    Names = [printable(Name, line) || {Name, _, _} <- Rows],
    Width = lists:min([?MAX_NAME_COLUMN,
                       lists:max([string:length("tool") | [string:length(N) || N <- Names]])]),
    Line = fun(Name, Tier, Note) ->
                   string:trim(["  ", pad(Name, Width), "  ", pad(Tier, 17), "  ", Note], trailing)
           end,
    [[Line("tool", "plan", "note"), $\n]
     | [[Line(Name, Tier, printable(Note, line)), $\n]
        || {Name, {_, Tier, Note}} <- lists:zip(Names, Rows)]].

pad(Text, Width) ->
    case string:length(Text) of
        Length when Length >= Width -> Text;
        Length -> [Text, lists:duplicate(Width - Length, $\s)]
    end.

%% ---- list ----

%% @doc `name(param: type, optional?: type) - description' for `list'.
-spec tool_line(tuple()) -> iolist().
tool_line({tool_descriptor, Name, _Title, Description, InputSchema, _Output, _Annotations}) ->
    Head = [printable(Name, line), "(", params(mcp_schema:plan(InputSchema)), ")"],
    case Description of
        {some, Text} when Text =/= <<>> -> [Head, " - ", printable(Text, line)];
        _ -> Head
    end.

%% @doc A plan's parameters by wire name: `a: int, tags?: [string], place: json'.
-spec params(mcp_schema:plan()) -> iolist().
params({whole_value, _Reason}) ->
    "arguments: json";
params({typed, Params}) ->
    lists:join(", ", [[printable(Wire, line), optional_mark(Optional), ": ", param_type(Type)]
                      || {param, Wire, _Label, Type, Optional} <- Params]).

optional_mark(true) -> "?";
optional_mark(false) -> "".

param_type({simple, Scalar}) -> atom_to_list(Scalar);
param_type({list_of, Scalar}) -> ["[", atom_to_list(Scalar), "]"];
param_type({structured, _Reason}) -> "json".

%% ---- call ----

%% @doc Text blocks as text (each ending in a newline), other blocks as a
%% `[kind content]' line.
-spec result_text(tuple()) -> iolist().
result_text({call_tool_result, Blocks, _IsError, _Structured}) ->
    [block_text(Block) || Block <- Blocks].

block_text({text, Text}) ->
    Printable = printable(Text, multiline),
    case binary:last(<<"\n", Text/binary>>) of
        $\n -> Printable;
        _ -> [Printable, $\n]
    end;
block_text({other, Kind}) ->
    ["[", printable(Kind, line), " content]\n"].

%% @doc The result as one JSON object in the wire's field names. Blocks the
%% client does not decode (`{other, Kind}') keep only their `type'.
-spec result_json(tuple()) -> mcp_json:json().
result_json({call_tool_result, Blocks, IsError, Structured}) ->
    Content = [case Block of
                   {text, Text} -> {object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, Text}}]};
                   {other, Kind} -> {object, [{<<"type">>, {string, Kind}}]}
               end || Block <- Blocks],
    StructuredMember = case Structured of
                           {some, Value} -> [{<<"structuredContent">>, Value}];
                           none -> []
                       end,
    {object, [{<<"content">>, {array, Content}}, {<<"isError">>, {bool, IsError}} | StructuredMember]}.

%% ---- terminal safety ----

%% @doc `Text' with every codepoint that could steer a terminal replaced by
%% U+FFFD; `multiline' keeps newlines and tabs, `line' replaces them too.
%% Each byte that does not start a UTF-8 sequence is replaced as well.
-spec printable(binary(), line | multiline) -> binary().
printable(Text, Mode) ->
    printable(Text, Mode, <<>>).

printable(<<C/utf8, Rest/binary>>, Mode, Acc) ->
    printable(Rest, Mode, <<Acc/binary, (safe_codepoint(C, Mode))/utf8>>);
printable(<<_NotUtf8, Rest/binary>>, Mode, Acc) ->
    printable(Rest, Mode, <<Acc/binary, ?REPLACEMENT/utf8>>);
printable(<<>>, _Mode, Acc) ->
    Acc.

safe_codepoint(C, multiline) when C =:= $\n; C =:= $\t -> C;
safe_codepoint(C, _) when C < 16#20; C =:= 16#7F; C >= 16#80, C =< 16#9F -> ?REPLACEMENT;
safe_codepoint(C, _) when C =:= 16#061C; C =:= 16#200E; C =:= 16#200F;
                          C >= 16#202A, C =< 16#202E; C >= 16#2066, C =< 16#2069;
                          C =:= 16#2028; C =:= 16#2029 -> ?REPLACEMENT;
safe_codepoint(C, _) -> C.
