%% @doc HTTP header values, both ways, for the MCP transport and the
%% authorization flow alike, knowing nothing of either: the configured
%% headers a request carries (`resolve/1': names checked, `${NAME}'
%% expanded, no value able to start another header) and the values read
%% from an answer (`value/2', `content_type/1').
%%
%% Invariant: an error names a header or a variable, never a value.
-module(mcp_http_headers).

-export([resolve/1, value/2, content_type/1]).

%% @doc The configured headers as `httpc' sends them: each `${NAME}' in a
%% value replaced by the environment variable's value. A name that is not
%% an HTTP token, a value holding CR, LF or NUL, or an unset variable is an
%% error naming the header or the variable, never the value.
-spec resolve([{binary() | string(), binary() | string()}]) ->
          {ok, [{string(), string()}]}
          | {error, {bad_header, binary()} | {header_variable_unset, binary()}}.
resolve(Headers) ->
    resolve(Headers, []).

resolve([], Acc) ->
    {ok, lists:reverse(Acc)};
resolve([{Name0, Value0} | Rest], Acc) ->
    Name = unicode:characters_to_binary(Name0),
    Value = unicode:characters_to_binary(Value0),
    case is_binary(Name) andalso is_binary(Value) andalso token(Name) of
        false ->
            {error, {bad_header, printable_name(Name)}};
        true ->
            case expand(Value) of
                {ok, Expanded} ->
                    case binary:match(Expanded, [<<"\r">>, <<"\n">>, <<0>>]) of
                        nomatch -> resolve(Rest, [{binary_to_list(Name), binary_to_list(Expanded)} | Acc]);
                        _ -> {error, {bad_header, Name}}
                    end;
                {error, _} = Error ->
                    Error
            end
    end;
resolve([_ | _], _Acc) ->
    {error, {bad_header, <<>>}}.

printable_name(Name) when is_binary(Name) -> Name;
printable_name(_) -> <<>>.

token(<<>>) -> false;
token(Name) -> lists:all(fun token_char/1, binary_to_list(Name)).

token_char(C) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9 -> true;
token_char(C) -> lists:member(C, "!#$%&'*+-.^_`|~").

expand(Value) ->
    case re:run(Value, "\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}", [{capture, all, binary}]) of
        nomatch ->
            {ok, Value};
        {match, [Whole, Name]} ->
            case os:getenv(binary_to_list(Name)) of
                false ->
                    {error, {header_variable_unset, Name}};
                Set ->
                    [Before, After] = binary:split(Value, Whole),
                    case expand(After) of
                        {ok, Rest} -> {ok, <<Before/binary, (unicode:characters_to_binary(Set))/binary, Rest/binary>>};
                        {error, _} = Error -> Error
                    end
            end
    end.

%% @doc The value of an answer's header `Name' (lower case; header names
%% compared case-insensitively), or `none'.
-spec value(string(), [{string(), string()}]) -> string() | none.
value(Name, Headers) ->
    case [V || {N, V} <- Headers, string:lowercase(N) =:= Name] of
        [Value | _] -> Value;
        [] -> none
    end.

%% @doc The media type of `Content-Type', lower case, without parameters
%% (`<<>>' when absent).
-spec content_type([{string(), string()}]) -> binary().
content_type(Headers) ->
    case value("content-type", Headers) of
        none -> <<>>;
        Value ->
            [Type | _] = string:split(Value, ";"),
            case unicode:characters_to_binary(string:lowercase(string:trim(Type))) of
                Binary when is_binary(Binary) -> Binary;
                _ -> <<>>
            end
    end.
