%% @doc What `bin/mcp-gen' prints besides reasons (`mcp_describe'): the
%% plan table, tool lines and the JSON listing for `list', call results, and
%% the summary of a several-server `generate', and which environment a
%% server that exited during its start was given.
%%
%% Everything a server chose is untrusted and passes through
%% `mcp_printable' before it reaches a terminal: text through `printable/3'
%% (names capped at `name_chars/0', descriptions and notes at
%% `text_chars/0', table cells at their column), JSON through
%% `terminal_json/1'. A tool's text content is the product of `call' and is
%% shown whole, made printable but not capped.
-module(mcp_cli_render).

-export([plan_table/1, plan_row/1, tier_counts/1, tool_line/1, params/1,
         result_text/1, result_json/1, tools_json/2, json_output/1, summary_table/1,
         environment_given/2]).
-export_type([plan_row/0, summary_row/0]).

%% Tool name, tier (typed | structured params | whole value | left out), note.
-type plan_row() :: {Name :: binary(), Tier :: binary(), Note :: binary()}.
%% One server of a several-server `generate': its config key, then either
%% what was generated or why not, and the seconds it took.
-type summary_row() :: #{server := binary(),
                         seconds => float(),
                         tools => non_neg_integer(),
                         tiers => {Typed :: non_neg_integer(), Structured :: non_neg_integer(),
                                   Whole :: non_neg_integer(), LeftOut :: non_neg_integer()},
                         error => iodata(),
                         note => iodata()}.

-define(MAX_NAME_COLUMN, 32).
-define(MAX_PARAMS, 32).

%% ---- the plan table (generate, on stderr) ----

%% @doc One row of the plan table for a tool descriptor: its tier, or
%% `left out' for a tool the generator leaves out (`mcp_codegen:requires_tasks/1').
-spec plan_row(mcp_codegen:tool_descriptor()) -> plan_row().
plan_row({tool_descriptor, Name, _Title, _Description, _InputSchema, _Output, _Annotations, _Execution} = Tool) ->
    case mcp_codegen:requires_tasks(Tool) of
        true -> {Name, <<"left out">>, <<"runs only as a task (execution.taskSupport \"required\")">>};
        false -> planned_row(Tool)
    end.

planned_row({tool_descriptor, Name, _Title, _Description, InputSchema, _Output, _Annotations, _Execution}) ->
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

%% @doc How many tools each tier holds: typed, structured params, whole
%% value, and how many tools were left out (no function generated).
-spec tier_counts([plan_row()]) ->
          {non_neg_integer(), non_neg_integer(), non_neg_integer(), non_neg_integer()}.
tier_counts(Rows) ->
    Count = fun(Tier) -> length([Row || {_, T, _} = Row <- Rows, T =:= Tier]) end,
    {Count(<<"typed">>), Count(<<"structured params">>), Count(<<"whole value">>), Count(<<"left out">>)}.

%% @doc The rows as aligned lines (each ending in a newline), with a header;
%% names are cut to the column, notes at `mcp_printable:text_chars/0'.
-spec plan_table([plan_row()]) -> iolist().
plan_table(Rows) ->
    table([<<"tool">>, <<"plan">>, <<"note">>],
          [[cell(Name, ?MAX_NAME_COLUMN), Tier, mcp_printable:printable(Note, folded, mcp_printable:text_chars())]
           || {Name, Tier, Note} <- Rows]).

%% Aligned columns, two spaces apart, trailing blanks trimmed; cells are
%% printable already.
table(Header, Rows) ->
    Widths = lists:foldl(fun(Row, Acc) -> [max(W, string:length(C)) || {W, C} <- lists:zip(Acc, Row)] end,
                         [0 || _ <- Header], [Header | Rows]),
    [[string:trim(["  " | lists:join("  ", [pad(Cell, Width) || {Cell, Width} <- lists:zip(Row, Widths)])],
                  trailing), $\n]
     || Row <- [Header | Rows]].

%% Server-chosen text cut to a table column of `Width' characters.
cell(Text, Width) ->
    mcp_printable:printable(Text, line, Width - 1).

pad(Text, Width) ->
    case string:length(Text) of
        Length when Length >= Width -> Text;
        Length -> [Text, lists:duplicate(Width - Length, $\s)]
    end.

%% ---- generate with several servers: the summary ----

%% @doc One line per server: tools, how many of each tier and left out, seconds, and the
%% outcome (the error, or the note such as the files written).
-spec summary_table([summary_row()]) -> iolist().
summary_table(Rows) ->
    table([<<"server">>, <<"tools">>, <<"typed">>, <<"structured">>, <<"whole">>, <<"left out">>, <<"time">>,
           <<"result">>],
          [summary_cells(Row) || Row <- Rows]).

summary_cells(#{server := Server} = Row) ->
    [Tools, Typed, Structured, Whole, LeftOut] =
        case Row of
            #{tools := N, tiers := {T, S, W, L}} -> [int(C) || C <- [N, T, S, W, L]];
            #{tools := N} -> [int(N), "-", "-", "-", "-"];
            _ -> ["-", "-", "-", "-", "-"]
        end,
    Time = case Row of
               #{seconds := Seconds} -> io_lib:format("~.1f s", [Seconds]);
               _ -> "-"
           end,
    Result = case Row of
                 #{error := Error} -> ["failed: ", Error];
                 #{note := Note} -> Note;
                 _ -> "ok"
             end,
    [cell(Server, ?MAX_NAME_COLUMN), Tools, Typed, Structured, Whole, LeftOut, Time, Result].

int(N) -> integer_to_list(N).

%% ---- list ----

%% @doc `name(param: type, optional?: type) - description' for `list'.
-spec tool_line(tuple()) -> iolist().
tool_line({tool_descriptor, Name, _Title, Description, InputSchema, _Output, _Annotations, _Execution}) ->
    Head = [name(Name), "(", params(mcp_schema:plan(InputSchema)), ")"],
    case Description of
        {some, Text} when Text =/= <<>> ->
            [Head, " - ", mcp_printable:printable(Text, folded, mcp_printable:text_chars())];
        _ -> Head
    end.

%% @doc A plan's parameters by wire name: `a: int, tags?: [string], place: json'
%% (at most `?MAX_PARAMS' of them, then `…').
-spec params(mcp_schema:plan()) -> iolist().
params({whole_value, _Reason}) ->
    "arguments: json";
params({typed, Params}) ->
    Shown = [[name(Wire), optional_mark(Optional), ": ", param_type(Type)]
             || {param, Wire, _Label, Type, Optional} <- lists:sublist(Params, ?MAX_PARAMS)],
    lists:join(", ", Shown ++ ["…" || length(Params) > ?MAX_PARAMS]).

optional_mark(true) -> "?";
optional_mark(false) -> "".

param_type({simple, Scalar}) -> atom_to_list(Scalar);
param_type({list_of, Scalar}) -> ["[", atom_to_list(Scalar), "]"];
param_type({structured, _Reason}) -> "json".

name(Name) ->
    mcp_printable:printable(Name, line, mcp_printable:name_chars()).

%% @doc The listing as one JSON document: the server's name and version, the
%% protocol version, and every tool with the members the server sent
%% (`name', `title', `description', `inputSchema', `outputSchema',
%% `annotations', `execution'; absent ones stay absent).
-spec tools_json(tuple(), [tuple()]) -> mcp_json:json().
tools_json({initialize_result, Protocol, _Tools, {server_info, Name, Version}, _Instructions}, Tools) ->
    {object, [{<<"server">>, {object, [{<<"name">>, {string, Name}}, {<<"version">>, {string, Version}}]}},
              {<<"protocolVersion">>, {string, Protocol}},
              {<<"tools">>, {array, [tool_json(Tool) || Tool <- Tools]}}]}.

tool_json({tool_descriptor, Name, Title, Description, InputSchema, OutputSchema, Annotations,
           Execution}) ->
    {object, [{<<"name">>, {string, Name}}]
             ++ optional(<<"title">>, Title, fun(T) -> {string, T} end)
             ++ optional(<<"description">>, Description, fun(D) -> {string, D} end)
             ++ [{<<"inputSchema">>, InputSchema}]
             ++ optional(<<"outputSchema">>, OutputSchema, fun(J) -> J end)
             ++ optional(<<"annotations">>, Annotations, fun(J) -> J end)
             ++ optional(<<"execution">>, Execution, fun(J) -> J end)}.

optional(Key, {some, Value}, Wrap) -> [{Key, Wrap(Value)}];
optional(_Key, none, _Wrap) -> [].

%% ---- call ----

%% @doc Text blocks as text (each ending in a newline), other blocks as a
%% `[kind content]' line. The text is shown whole (it is what was asked for).
-spec result_text(tuple()) -> iolist().
result_text({call_tool_result, Blocks, _IsError, _Structured}) ->
    [block_text(Block) || Block <- Blocks].

block_text({text, Text}) ->
    Printable = mcp_printable:printable(Text, multiline),
    case binary:last(<<"\n", Text/binary>>) of
        $\n -> Printable;
        _ -> [Printable, $\n]
    end;
block_text({other, Kind}) ->
    ["[", name(Kind), " content]\n"].

%% @doc The result as one JSON object in the wire's field names. Blocks the
%% client does not decode (`{other, Kind}') keep only their `type'.
-spec result_json(tuple()) -> mcp_json:json().
result_json({call_tool_result, Blocks, IsError, Structured}) ->
    Content = [case Block of
                   {text, Text} -> {object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, Text}}]};
                   {other, Kind} -> {object, [{<<"type">>, {string, Kind}}]}
               end || Block <- Blocks],
    {object, [{<<"content">>, {array, Content}}, {<<"isError">>, {bool, IsError}}
              | optional(<<"structuredContent">>, Structured, fun(J) -> J end)]}.

%% @doc A JSON document for stdout: compact, terminal-safe, one line.
-spec json_output(mcp_json:json()) -> iolist().
json_output(Json) ->
    [mcp_printable:terminal_json(mcp_json:encode(Json)), $\n].

%% ---- a server that exited during its start ----

%% @doc The names (never the values) of the environment variables a server
%% was started with, those of mcp-gen's own that look like credentials
%% (`credential_like/1') and were not passed, and how to give it more: it
%% may have exited for want of one, and mcp-gen passes on only a few of
%% its own.
-spec environment_given([string() | binary()], [string() | binary()]) -> iolist().
environment_given(Names, Own) ->
    Given = lists:usort([unicode:characters_to_binary(N) || N <- Names]),
    Shown = case Given of
                [] -> "no environment variables";
                _ -> ["the environment variables ", listed(Given)]
            end,
    Withheld = case [N || N <- lists:usort([unicode:characters_to_binary(O) || O <- Own]),
                          credential_like(N), not lists:member(N, Given)] of
                   [] -> "";
                   [One] -> ["; mcp-gen's own environment has ", name(One), ", which it did not pass"];
                   Several -> ["; mcp-gen's own environment has ", listed(Several), ", which it did not pass"]
               end,
    ["the server was given ", Shown, Withheld, "; mcp-gen passes on only these, so give it any other it needs "
     "with --env NAME (mcp-gen's own value of NAME), --env NAME=VALUE, or \"env\" in a config entry"].

listed(Names) -> lists:join(", ", [name(N) || N <- Names]).

%% A name a server reads a credential from: API keys, tokens, secrets.
credential_like(Name) ->
    re:run(Name, "(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", [caseless, {capture, none}]) =:= match.
