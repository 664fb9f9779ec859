%% @doc The HTTP request headers of the stateless revision (2026-07-28):
%% `Mcp-Method' and `Mcp-Name' on every POST, and `Mcp-Param-{Name}' for
%% each tool argument whose input schema property says `x-mcp-header'.
%%
%% Invariants:
%% <ul>
%% <li>A header value is visible ASCII and spaces, never starting or
%%     ending with a space: any other string (control characters, tabs,
%%     non-ASCII, leading or trailing whitespace, or a value that itself
%%     looks like `=?base64?...?=') is sent as `=?base64?B64?=' of its
%%     UTF-8 bytes. Integers are decimal, booleans `true'/`false'; a null
%%     or absent argument sends no header.</li>
%% <li>A tool's `x-mcp-header' annotations are valid only when each is a
%%     non-empty HTTP token (RFC 9110: no space, colon, control or
%%     non-ASCII character) on a top-level property of type `string',
%%     `integer' or `boolean', and no two are equal ignoring case; a tool
%%     with any invalid one is left out (`split_tools/1') and never
%%     called.</li>
%% </ul>
-module(mcp_request_headers).

-export([headers/4, standard/2, tool_headers/1, split_tools/1, param_headers/2, encode_value/1]).
-export_type([header/0, header_map/0]).

-type json() :: mcp_json:json().
-type header() :: {string(), string()}.
%% Each annotated property: its name and its header's name.
-type header_map() :: [{Property :: binary(), Header :: binary()}].

%% @doc Every header of a message of the stateless revision: its
%% `MCP-Protocol-Version', the standard ones and, for a `tools/call', the
%% `Mcp-Param-*' of its arguments that the tool's header map names.
-spec headers(binary(), binary(), mcp_jsonrpc:params(), header_map()) -> [header()].
headers(Version, Method, Params, Map) ->
    Mirrored = case {Method, Params} of
                   {<<"tools/call">>, {some, {object, Members}}} ->
                       case lists:keyfind(<<"arguments">>, 1, Members) of
                           {_, Arguments} -> param_headers(Map, Arguments);
                           false -> []
                       end;
                   _ ->
                       []
               end,
    [{"mcp-protocol-version", binary_to_list(Version)} | standard(Method, Params)] ++ Mirrored.

%% @doc `Mcp-Method', and `Mcp-Name' for the methods that name a target
%% (`tools/call', `prompts/get': `name'; `resources/read': `uri').
-spec standard(binary(), mcp_jsonrpc:params()) -> [header()].
standard(Method, Params) ->
    [{"mcp-method", encode_string(Method)}
     | [{"mcp-name", encode_string(Name)} || Name <- target(Method, Params)]].

target(Method, {some, {object, Members}}) ->
    Key = case Method of
              <<"tools/call">> -> <<"name">>;
              <<"prompts/get">> -> <<"name">>;
              <<"resources/read">> -> <<"uri">>;
              _ -> none
          end,
    case lists:keyfind(Key, 1, Members) of
        {_, {string, Name}} -> [Name];
        _ -> []
    end;
target(_Method, _Params) ->
    [].

%% @doc A tool input schema's `x-mcp-header' annotations, or why they are
%% invalid.
-spec tool_headers(json()) -> {ok, header_map()} | {error, binary()}.
tool_headers({object, Schema}) ->
    case lists:keyfind(<<"properties">>, 1, Schema) of
        {_, {object, Properties}} -> annotated(Properties, [], []);
        _ -> {ok, []}
    end;
tool_headers(_) ->
    {ok, []}.

annotated([], Acc, _Seen) ->
    {ok, lists:reverse(Acc)};
annotated([{Property, {object, Members}} | Rest], Acc, Seen) ->
    case lists:keyfind(<<"x-mcp-header">>, 1, Members) of
        false ->
            annotated(Rest, Acc, Seen);
        {_, {string, Header}} ->
            Lower = string:lowercase(Header),
            case {valid_name(Header), primitive(lists:keyfind(<<"type">>, 1, Members)), lists:member(Lower, Seen)} of
                {false, _, _} -> {error, <<"x-mcp-header of ", Property/binary, " is not a header name">>};
                {_, false, _} -> {error, <<"x-mcp-header on ", Property/binary, ", which is not a string, integer or boolean">>};
                {_, _, true} -> {error, <<"x-mcp-header ", Header/binary, " repeated">>};
                {true, true, false} -> annotated(Rest, [{Property, Header} | Acc], [Lower | Seen])
            end;
        {_, _} ->
            {error, <<"x-mcp-header of ", Property/binary, " is not a string">>}
    end;
annotated([_ | Rest], Acc, Seen) ->
    annotated(Rest, Acc, Seen).

primitive({_, {string, Type}}) -> lists:member(Type, [<<"string">>, <<"integer">>, <<"boolean">>]);
primitive(_) -> false.

valid_name(<<>>) -> false;
valid_name(Name) -> lists:all(fun token_char/1, binary_to_list(Name)).

token_char(C) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9 -> true;
token_char(C) -> lists:member(C, "!#$%&'*+-.^_`|~").

%% @doc Tools split into those kept, each with its header map, and those
%% left out, each with the reason.
-spec split_tools([mcp_protocol:tool_descriptor()]) ->
          {[{mcp_protocol:tool_descriptor(), header_map()}], [{binary(), binary()}]}.
split_tools(Tools) ->
    lists:foldr(fun(Tool, {Kept, Out}) ->
                        case tool_headers(element(5, Tool)) of
                            {ok, Map} -> {[{Tool, Map} | Kept], Out};
                            {error, Why} -> {Kept, [{element(2, Tool), Why} | Out]}
                        end
                end, {[], []}, Tools).

%% @doc The `Mcp-Param-*' headers of a call's arguments.
-spec param_headers(header_map(), json()) -> [header()].
param_headers(Map, {object, Arguments}) ->
    [{"mcp-param-" ++ binary_to_list(Header), Value}
     || {Property, Header} <- Map,
        {_, Argument} <- [lists:keyfind(Property, 1, Arguments)],
        {ok, Value} <- [encode_value(Argument)]];
param_headers(_Map, _Arguments) ->
    [].

%% @doc A primitive argument as a header value; `none' for null and for
%% what no header carries (objects, arrays, numbers that are not integers).
-spec encode_value(json()) -> {ok, string()} | none.
encode_value({string, Text}) -> {ok, encode_string(Text)};
encode_value({int, N}) -> {ok, integer_to_list(N)};
encode_value({bool, B}) -> {ok, atom_to_list(B)};
encode_value(_) -> none.

encode_string(Text) ->
    case plain(Text) of
        true -> binary_to_list(Text);
        false -> "=?base64?" ++ base64:encode_to_string(Text) ++ "?="
    end.

plain(<<>>) -> true;
plain(<<"=?base64?", _/binary>>) -> false;
plain(<<$\s, _/binary>>) -> false;
plain(Text) ->
    binary:last(Text) =/= $\s andalso lists:all(fun(C) -> C >= 16#20 andalso C =< 16#7E end, binary_to_list(Text)).
