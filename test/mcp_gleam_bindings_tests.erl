%% Every exported function of the package's Erlang modules (erlang_src/) is
%% either bound from Gleam (an `@external` in gleam/src, or called by the
%% adapter gleam/src/mcp_gleam_ffi.erl) or listed, with a reason, in the
%% "Erlang functions without a binding" table of docs/gleam.md.
%%
%% The table's first cell names functions as `module:fun/arity`, or as a
%% group: `mod_a`, `mod_b` ... (`fun/arity`, ...) — bare `fun/arity` entries
%% belong to the modules named before them in the row; `mod:*` and `prefix*`
%% cover whole modules.
-module(mcp_gleam_bindings_tests).
-include_lib("eunit/include/eunit.hrl").

-define(DOC, "docs/gleam.md").
-define(FFI, "gleam/src/mcp_gleam_ffi.erl").

every_public_function_is_bound_or_explained_test() ->
    Bound = bound_from_gleam(),
    Explained = explained_in_doc(),
    Missing = [MFA || MFA <- public_functions(),
                      not is_bound(MFA, Bound),
                      not is_explained(MFA, Explained)],
    ?assertEqual([], Missing).

the_table_names_only_functions_that_exist_test() ->
    Public = public_functions(),
    {Exact, _Wildcards} = explained_in_doc(),
    Stale = [MFA || MFA <- Exact, not lists:member(MFA, Public)],
    ?assertEqual([], Stale).

%% A function the adapter reaches only as a fun reference is bound.
the_checker_sees_a_function_the_adapter_passes_as_a_fun_test() ->
    {ok, Ffi} = file:read_file(?FFI),
    ?assertNotEqual(nomatch, binary:match(Ffi, <<"fun mcp_protocol:decode_tools_page/1">>)),
    ?assertEqual(nomatch, binary:match(Ffi, <<"mcp_protocol:decode_tools_page(">>)),
    ?assert(is_bound({mcp_protocol, decode_tools_page, 1}, bound_from_gleam())).

the_checker_sees_an_unexplained_function_test() ->
    %% The check can fail: a function nobody binds or explains is reported.
    ?assertNot(is_explained({mcp_client, not_a_function, 0}, explained_in_doc())),
    ?assertNot(is_bound({mcp_client, not_a_function, 0}, bound_from_gleam())).

public_functions() ->
    Modules = [list_to_atom(filename:basename(F, ".erl"))
               || F <- filelib:wildcard("erlang_src/*.erl")],
    ?assert(length(Modules) > 10),
    lists:sort([{M, F, A} || M <- Modules,
                             {F, A} <- M:module_info(exports),
                             F =/= module_info]).

%% {Module, Function} pairs: Gleam externals name no arity.
bound_from_gleam() ->
    Gleam = [read(F) || F <- filelib:wildcard("gleam/src/**/*.gleam")],
    Externals = [{M, F} || Text <- Gleam,
                           [M, F] <- matches(Text, "@external\\(erlang, \"(\\w+)\", \"(\\w+)\"\\)")],
    %% The adapter calls `mcp_x:f(...)' or passes `fun mcp_x:f/N'.
    Adapter = [{M, F} || [M, F] <- matches(read(?FFI), "\\b(mcp_\\w+):(\\w+)(?:\\(|/\\d)")],
    [{binary_to_atom(M), binary_to_atom(F)} || {M, F} <- Externals ++ Adapter].

is_bound({M, F, _A}, Bound) -> lists:member({M, F}, Bound).

explained_in_doc() ->
    Doc = read(?DOC),
    [_, AfterHeading] = binary:split(Doc, <<"## Erlang functions without a binding">>),
    [Section | _] = binary:split(AfterHeading, <<"\n## ">>),
    Rows = [Row || Row <- binary:split(Section, <<"\n">>, [global]),
                   binary:match(Row, <<"| `">>) =:= {0, 3}],
    ?assert(length(Rows) > 3),
    lists:foldl(fun explained_in_row/2, {[], []}, Rows).

explained_in_row(Row, Acc) ->
    [_, FirstCell | _] = binary:split(Row, <<"|">>, [global]),
    Tokens = [T || [T] <- matches(FirstCell, "`([^`]+)`")],
    {_, Found} = lists:foldl(fun token/2, {{[], false}, Acc}, Tokens),
    Found.

%% The fold state is {{Modules of the current group, last token was a module}, {Exact, Wildcards}}.
token(Token, {{Group, LastWasModule}, {Exact, Wild} = Found}) ->
    case re:run(Token, "^(\\w+):(\\w+)/(\\d+)$", [{capture, all_but_first, binary}]) of
        {match, [M, F, A]} ->
            MFA = {binary_to_atom(M), binary_to_atom(F), binary_to_integer(A)},
            {{[binary_to_atom(M)], false}, {[MFA | Exact], Wild}};
        nomatch ->
            case re:run(Token, "^(\\w+)/(\\d+)$", [{capture, all_but_first, binary}]) of
                {match, [F, A]} ->
                    New = [{M, binary_to_atom(F), binary_to_integer(A)} || M <- Group],
                    {{Group, false}, {New ++ Exact, Wild}};
                nomatch ->
                    module_or_wildcard(Token, Group, LastWasModule, Found)
            end
    end.

module_or_wildcard(Token, Group, LastWasModule, {Exact, Wild} = Found) ->
    case binary:last(Token) of
        $* ->
            Prefix = binary:part(Token, 0, byte_size(Token) - 1),
            {{Group, false}, {Exact, [trim_colon(Prefix) | Wild]}};
        _ ->
            case re:run(Token, "^mcp_\\w+$") of
                {match, _} when LastWasModule -> {{[binary_to_atom(Token) | Group], true}, Found};
                {match, _} -> {{[binary_to_atom(Token)], true}, Found};
                nomatch -> {{Group, false}, Found}
            end
    end.

%% `mcp_nif:*` covers the module mcp_nif; `mcp_cli*` every module named so.
trim_colon(Prefix) ->
    case binary:last(Prefix) of
        $: -> {module, binary:part(Prefix, 0, byte_size(Prefix) - 1)};
        _ -> {prefix, Prefix}
    end.

is_explained({M, _, _} = MFA, {Exact, Wild}) ->
    Name = atom_to_binary(M),
    lists:member(MFA, Exact)
        orelse lists:any(fun({module, W}) -> W =:= Name;
                            ({prefix, P}) -> binary:longest_common_prefix([P, Name]) =:= byte_size(P)
                         end, Wild).

matches(Text, Pattern) ->
    case re:run(Text, Pattern, [global, {capture, all_but_first, binary}]) of
        {match, Found} -> Found;
        nomatch -> []
    end.

read(Path) ->
    {ok, Bin} = file:read_file(Path),
    Bin.
