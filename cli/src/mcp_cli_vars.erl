%% @doc Environment variable references in a configuration file's strings:
%% `${VAR}' and VS Code's `${env:VAR}' (VAR a letter or `_', then letters,
%% digits and `_') are the value of the environment variable VAR.
%%
%% Invariants:
%% <ul>
%% <li>Every reference is resolved or the string is refused: a variable
%%     that is not set is `{unset, Name}', and any other `${...}' (VS Code's
%%     `${input:...}', `${workspaceFolder}', a default with `:-') is
%%     `{unsupported, Reference}'. Nothing reaches a server as a literal
%%     `${...}' by accident. A `$' not followed by `{', and a `${' with no
%%     closing `}', are text.</li>
%% <li>A value is substituted once: a `${...}' inside a variable's value is
%%     text, never looked up.</li>
%% <li>A fault names the variable or the reference, never a value.</li>
%% <li>`header/2' checks the same references but keeps them as `${VAR}' (the
%%     spelling `mcp_http' resolves when it connects), so a header's secret
%%     enters the spec no earlier than the request that sends it.</li>
%% </ul>
-module(mcp_cli_vars).

-export([expand/2, header/2, os_lookup/1]).
-export_type([lookup/0, fault/0]).

%% The value of a variable, or `false' when it is not set.
-type lookup() :: fun((Name :: binary()) -> binary() | false).
-type fault() :: {unset, Name :: binary()} | {unsupported, Reference :: binary()}.

%% @doc `Text' with every reference replaced by its variable's value.
-spec expand(binary(), lookup()) -> {ok, binary()} | {error, fault()}.
expand(Text, Lookup) ->
    substitute(Text, Lookup, fun(_Name, Value) -> Value end, []).

%% @doc `Text' with every reference spelt `${VAR}', once each variable is
%% known to be set.
-spec header(binary(), lookup()) -> {ok, binary()} | {error, fault()}.
header(Text, Lookup) ->
    substitute(Text, Lookup, fun(Name, _Value) -> <<"${", Name/binary, "}">> end, []).

%% @doc The VM's own environment as a lookup (a value that is not text
%% counts as not set).
-spec os_lookup(binary()) -> binary() | false.
os_lookup(Name) ->
    case os:getenv(binary_to_list(Name)) of
        false -> false;
        Value ->
            case unicode:characters_to_binary(Value) of
                Text when is_binary(Text) -> Text;
                _ -> false
            end
    end.

substitute(Text, Lookup, Replace, Acc) ->
    case binary:split(Text, <<"${">>) of
        [Plain] ->
            {ok, iolist_to_binary(lists:reverse(Acc, [Plain]))};
        [Before, After] ->
            case binary:split(After, <<"}">>) of
                [_Unclosed] ->
                    {ok, iolist_to_binary(lists:reverse(Acc, [Text]))};
                [Inside, Rest] ->
                    case reference(Inside) of
                        {variable, Name} ->
                            case Lookup(Name) of
                                false -> {error, {unset, Name}};
                                Value -> substitute(Rest, Lookup, Replace, [Replace(Name, Value), Before | Acc])
                            end;
                        unsupported ->
                            {error, {unsupported, <<"${", Inside/binary, "}">>}}
                    end
            end
    end.

reference(<<"env:", Name/binary>>) -> variable(Name);
reference(Name) -> variable(Name).

variable(Name) ->
    case re:run(Name, "^[A-Za-z_][A-Za-z0-9_]*$", [{capture, none}]) of
        match -> {variable, Name};
        nomatch -> unsupported
    end.
