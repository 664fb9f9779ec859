%% Test-only: reads a type from a module's abstract code (its debug info)
%% and answers two questions about it, so a suite can follow the Erlang type
%% instead of a copy of it:
%%
%% - `examples/2': terms of the type such that every alternative of every
%%   union met on the way (through user and remote types) is taken by at
%%   least one term; a named type recurs at most twice on one path.
%% - `uncovered/3': the type's alternatives (its unions flattened, named
%%   types that are unions expanded) that no term of a list matches.
%%
%% A type form it does not know raises `{unsupported_type_form, Form}': a
%% new kind of alternative fails the suite instead of passing unseen.
-module(mcp_type_examples).
-export([examples/2, uncovered/3]).

-define(MAX_REPEATS, 2).

%% @doc Terms of `Module:Type()' covering every alternative (see above).
-spec examples(module(), atom()) -> [term()].
examples(Module, Type) ->
    terms({user_type, 0, Type, []}, Module, []).

%% @doc The alternatives of `Module:Type()' no term of `Terms' matches,
%% each as the text of its type.
-spec uncovered(module(), atom(), [term()]) -> [binary()].
uncovered(Module, Type, Terms) ->
    [text(Form) || {Form, Mod} <- alternatives({user_type, 0, Type, []}, Module),
                   not lists:any(fun(Term) -> matches(Term, Form, Mod, 0) end, Terms)].

%%% ------------------------------------------------------------ examples

terms({atom, _, Atom}, _Mod, _Path) -> [Atom];
terms({integer, _, Int}, _Mod, _Path) -> [Int];
terms({ann_type, _, [_Var, Type]}, Mod, Path) -> terms(Type, Mod, Path);
terms({type, _, union, Alternatives}, Mod, Path) ->
    case lists:append([try terms(Alternative, Mod, Path) catch throw:too_deep -> [] end
                       || Alternative <- Alternatives]) of
        [] -> throw(too_deep);
        Terms -> Terms
    end;
terms({type, _, tuple, Fields}, Mod, Path) when is_list(Fields) ->
    Each = [terms(Field, Mod, Path) || Field <- Fields],
    First = [hd(Terms) || Terms <- Each],
    %% Every field's examples once, the other fields at their first.
    Varied = [setelement(Index, list_to_tuple(First), Term)
              || {Index, [_ | More]} <- lists:enumerate(Each), Term <- More],
    [list_to_tuple(First) | Varied];
terms({type, _, list, [Item]}, Mod, Path) ->
    try [[], [hd(terms(Item, Mod, Path))]] catch throw:too_deep -> [[]] end;
terms({type, _, nonempty_list, [Item]}, Mod, Path) -> [[hd(terms(Item, Mod, Path))]];
terms({type, _, nil, []}, _Mod, _Path) -> [[]];
terms({type, _, Builtin, []} = Form, _Mod, _Path) -> builtin(Builtin, Form);
terms({type, _, binary, [{integer, _, 0}, {integer, _, 0}]}, _Mod, _Path) -> [<<"text">>];
terms({type, _, range, [{integer, _, Low}, {integer, _, _}]}, _Mod, _Path) -> [Low];
terms({user_type, _, Name, []}, Mod, Path) -> named(Mod, Name, Path);
terms({remote_type, _, [{atom, _, Mod}, {atom, _, Name}, []]}, _Mod, Path) -> named(Mod, Name, Path);
terms(Form, _Mod, _Path) -> error({unsupported_type_form, Form}).

builtin(Name, _) when Name =:= term; Name =:= any -> [noproc, {unexpected, <<"term">>, 1}];
builtin(atom, _) -> [some_atom];
builtin(binary, _) -> [<<"text">>];
builtin(boolean, _) -> [true, false];
builtin(float, _) -> [1.5];
builtin(integer, _) -> [-2];
builtin(non_neg_integer, _) -> [3];
builtin(pos_integer, _) -> [9];
builtin(neg_integer, _) -> [-1];
builtin(pid, _) -> [self()];
builtin(_, Form) -> error({unsupported_type_form, Form}).

named(Mod, Name, Path) ->
    case length([Seen || Seen <- Path, Seen =:= {Mod, Name}]) >= ?MAX_REPEATS of
        true -> throw(too_deep);
        false -> terms(definition(Mod, Name), Mod, [{Mod, Name} | Path])
    end.

%%% -------------------------------------------------------- alternatives

%% The alternatives of a type, each with the module its names resolve in.
alternatives({ann_type, _, [_Var, Type]}, Mod) -> alternatives(Type, Mod);
alternatives({type, _, union, Forms}, Mod) ->
    lists:append([alternatives(Form, Mod) || Form <- Forms]);
alternatives({user_type, _, Name, []}, Mod) -> alternatives(definition(Mod, Name), Mod);
alternatives({remote_type, _, [{atom, _, Mod}, {atom, _, Name}, []]}, _Mod) ->
    alternatives(definition(Mod, Name), Mod);
alternatives(Form, Mod) -> [{Form, Mod}].

matches(_Term, _Form, _Mod, Depth) when Depth > 64 -> false;
matches(Term, {atom, _, Atom}, _Mod, _Depth) -> Term =:= Atom;
matches(Term, {integer, _, Int}, _Mod, _Depth) -> Term =:= Int;
matches(Term, {ann_type, _, [_Var, Type]}, Mod, Depth) -> matches(Term, Type, Mod, Depth);
matches(Term, {type, _, union, Forms}, Mod, Depth) ->
    lists:any(fun(Form) -> matches(Term, Form, Mod, Depth) end, Forms);
matches(Term, {type, _, tuple, Fields}, Mod, Depth) when is_list(Fields) ->
    is_tuple(Term) andalso tuple_size(Term) =:= length(Fields)
        andalso lists:all(fun({Field, Form}) -> matches(Field, Form, Mod, Depth) end,
                          lists:zip(tuple_to_list(Term), Fields));
matches(Term, {type, _, list, [Item]}, Mod, Depth) ->
    is_list(Term) andalso lists:all(fun(Element) -> matches(Element, Item, Mod, Depth) end, Term);
matches(Term, {type, _, nil, []}, _Mod, _Depth) -> Term =:= [];
matches(_Term, {type, _, Any, []}, _Mod, _Depth) when Any =:= term; Any =:= any -> true;
matches(Term, {type, _, atom, []}, _Mod, _Depth) -> is_atom(Term);
matches(Term, {type, _, binary, _}, _Mod, _Depth) -> is_binary(Term);
matches(Term, {type, _, boolean, []}, _Mod, _Depth) -> is_boolean(Term);
matches(Term, {type, _, float, []}, _Mod, _Depth) -> is_float(Term);
matches(Term, {type, _, integer, []}, _Mod, _Depth) -> is_integer(Term);
matches(Term, {type, _, non_neg_integer, []}, _Mod, _Depth) -> is_integer(Term) andalso Term >= 0;
matches(Term, {type, _, pos_integer, []}, _Mod, _Depth) -> is_integer(Term) andalso Term > 0;
matches(Term, {type, _, pid, []}, _Mod, _Depth) -> is_pid(Term);
matches(Term, {user_type, _, Name, []}, Mod, Depth) ->
    matches(Term, definition(Mod, Name), Mod, Depth + 1);
matches(Term, {remote_type, _, [{atom, _, Mod}, {atom, _, Name}, []]}, _Mod, Depth) ->
    matches(Term, definition(Mod, Name), Mod, Depth + 1);
matches(_Term, Form, _Mod, _Depth) -> error({unsupported_type_form, Form}).

%%% -------------------------------------------------------------- shared

%% The body of `-type Name() :: ...' (or `-opaque') in Mod's debug info.
definition(Mod, Name) ->
    {ok, {Mod, [{debug_info, {debug_info_v1, Backend, Data}}]}} =
        beam_lib:chunks(code:which(Mod), [debug_info]),
    {ok, Forms} = Backend:debug_info(erlang_v1, Mod, Data, []),
    case [Body || {attribute, _, Kind, {Type, Body, []}} <- Forms,
                  Kind =:= type orelse Kind =:= opaque, Type =:= Name] of
        [Body] -> Body;
        [] -> error({no_such_type, Mod, Name})
    end.

text(Form) ->
    Text = lists:flatten(erl_pp:form({attribute, 0, type, {t, Form, []}})),
    [_, Body] = string:split(Text, ":: "),
    unicode:characters_to_binary(string:trim(Body, trailing, ".\n")).
