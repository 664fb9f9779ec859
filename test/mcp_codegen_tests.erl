%% @doc mcp_codegen through the NIF: the golden files (the same ones the Rust
%% tests pin, so the NIF's SHA-256 digest is proven to be the production one),
%% the hostile corpus with its expected outcomes, the error vocabulary, and
%% the text functions on both sides of their caps and dirty thresholds.
-module(mcp_codegen_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

fixtures_dir() -> filename:join([filename:dirname(?FILE), "fixtures", "codegen"]).

read_json(File) ->
    {ok, Bytes} = file:read_file(filename:join(fixtures_dir(), File)),
    {ok, Json} = mcp_json:decode(Bytes),
    Json.

member(Key, {object, Members}) ->
    case lists:keyfind(Key, 1, Members) of
        {Key, Value} -> {some, Value};
        false -> none
    end.

text(Key, Tool) ->
    case member(Key, Tool) of
        {some, {string, Text}} -> {some, Text};
        _ -> none
    end.

%% A test-only reading of one listed tool (the wire codec is not under test).
tool_descriptor(Tool) ->
    {some, Name} = text(<<"name">>, Tool),
    {some, Schema} = member(<<"inputSchema">>, Tool),
    {tool_descriptor, Name, text(<<"title">>, Tool), text(<<"description">>, Tool), Schema,
     member(<<"outputSchema">>, Tool), member(<<"annotations">>, Tool), member(<<"execution">>, Tool)}.

tools_of({array, Tools}) -> [tool_descriptor(T) || T <- Tools];
tools_of(Listing) ->
    {some, Tools} = member(<<"tools">>, Listing),
    tools_of(Tools).

golden(Server, Ext) ->
    {ok, Bytes} = file:read_file(filename:join(fixtures_dir(), Server ++ Ext)),
    Bytes.

goldens_test_() ->
    Listings = filelib:wildcard("*.listing.json", fixtures_dir()),
    ?assert(length(Listings) >= 3),
    [{Listing, fun() ->
         Server = lists:sublist(Listing, length(Listing) - length(".listing.json")),
         Tools = tools_of(read_json(Listing)),
         {ok, {generated, Module, Source, Surface}} = mcp_codegen:generate(list_to_binary(Server), Tools),
         ?assertEqual(golden(Server, ".gleam"), Source),
         ?assertEqual(golden(Server, ".surface"), Surface),
         ?assertEqual(golden(Server, ".module"), <<Module/binary, "\n">>)
     end} || Listing <- Listings].

%% ---- hostile corpus ----

hostile_test_() ->
    {array, Cases} = read_json("hostile.json"),
    [{binary_to_list(Name), fun() -> check_case(Case) end}
     || Case <- Cases, {some, {string, Name}} <- [member(<<"case">>, Case)]].

strings(Key, Expect) ->
    case member(Key, Expect) of
        {some, {array, Items}} -> [S || {string, S} <- Items];
        none -> []
    end.

check_case(Case) ->
    {some, {string, Server}} = member(<<"server">>, Case),
    {some, Tools} = member(<<"tools">>, Case),
    {some, Expect} = member(<<"expect">>, Case),
    Result = mcp_codegen:generate(Server, tools_of(Tools)),
    case {member(<<"ok">>, Expect), member(<<"error">>, Expect), Result} of
        {{some, Ok}, none, {ok, {generated, Module, Source, Surface} = Generated}} ->
            assert_invariants(Generated),
            case member(<<"module">>, Ok) of
                {some, {string, Expected}} -> ?assertEqual(Expected, Module);
                none -> ok
            end,
            _ = [?assertNotEqual(nomatch, binary:match(Source, S)) || S <- strings(<<"contains">>, Ok)],
            _ = [?assertEqual(nomatch, binary:match(Source, S)) || S <- strings(<<"lacks">>, Ok)],
            _ = [?assertNotEqual(nomatch, binary:match(Surface, S)) || S <- strings(<<"surface_contains">>, Ok)],
            [?assertEqual(nomatch, binary:match(Surface, S)) || S <- strings(<<"surface_lacks">>, Ok)];
        {none, {some, {array, [{string, Tag} | Fields]}}, {error, Error}} ->
            [ActualTag | ActualFields] = tuple_to_list(Error),
            ?assertEqual(Tag, atom_to_binary(ActualTag)),
            lists:foreach(fun({null, _}) -> ok;
                             ({{int, N}, Actual}) -> ?assertEqual(N, Actual);
                             ({{string, S}, Actual}) -> ?assertEqual(S, Actual)
                          end, lists:zip(Fields, ActualFields)),
            ?assert(byte_size(mcp_codegen:describe(Error)) > 0);
        Other ->
            error({unexpected_outcome, Other})
    end.

assert_invariants({generated, _Module, Source, Surface}) ->
    ?assertEqual(ok, mcp_codegen:scan_for_at(Source)),
    ?assertEqual(nomatch, re:run(Source, "[\\x00-\\x09\\x0b-\\x1f\\x7f]", [unicode])),
    Comments = fun(Text) -> [Line || Line <- binary:split(Text, <<"\n">>, [global]),
                                     string:prefix(string:trim(Line, leading), "//") =/= nomatch] end,
    lists:foreach(fun(Line) -> ?assert(Line =:= <<"///">> orelse binary:part(Line, 0, 4) =:= <<"/// ">>) end,
                  Comments(Source)),
    %% The surface adds its own `// ' lines (the header, the task-only tools),
    %% where server text appears only as an escaped literal.
    lists:foreach(fun(Line) -> ?assert(Line =:= <<"///">> orelse string:prefix(Line, "/// ") =/= nomatch
                                       orelse string:prefix(Line, "// ") =/= nomatch) end,
                  Comments(Surface)).

%% ---- refusals and their descriptions ----

object_tool(Name) -> {tool_descriptor, Name, none, none, {object, [{<<"type">>, {string, <<"object">>}}]}, none, none, none}.

%% requires_tasks/1 is the generator's own rule: the tool it names is the
%% one the generated module has no function for.
requires_tasks_is_the_generators_rule_test() ->
    WithExecution = fun(Execution) -> setelement(8, object_tool(<<"t">>), Execution) end,
    Task = fun(Support) -> WithExecution({some, {object, [{<<"taskSupport">>, Support}]}}) end,
    ?assert(mcp_codegen:requires_tasks(Task({string, <<"required">>}))),
    [?assertNot(mcp_codegen:requires_tasks(Tool))
     || Tool <- [Task({string, <<"optional">>}), Task({string, <<"forbidden">>}), Task({bool, true}),
                 WithExecution(none), WithExecution({some, {object, []}})]],
    {ok, {generated, _, Source, _}} = mcp_codegen:generate(<<"s">>, [Task({string, <<"required">>}),
                                                                      object_tool(<<"kept">>)]),
    ?assertEqual(nomatch, binary:match(Source, <<"pub fn t(">>)),
    ?assertNotEqual(nomatch, binary:match(Source, <<"pub fn kept(">>)).

%% The limits are checked at the values the Erlang functions report, so the
%% Erlang and Rust sides cannot drift apart unnoticed.
tool_count_limit_test() ->
    Max = mcp_codegen:max_tools(),
    Tools = fun(N) -> [object_tool(integer_to_binary(I)) || I <- lists:seq(1, N)] end,
    ?assertMatch({ok, {generated, <<"cap/mcp/s">>, _, _}}, mcp_codegen:generate(<<"s">>, Tools(Max))),
    ?assertEqual({error, {too_many_tools, Max + 1, Max}}, mcp_codegen:generate(<<"s">>, Tools(Max + 1))).

surface_limit_is_the_reported_one_test() ->
    Max = mcp_codegen:max_surface_bytes(),
    Desc = binary:copy(<<"word ">>, mcp_codegen:description_chars() div 5),
    Tools = [setelement(4, object_tool(integer_to_binary(I)), {some, Desc}) || I <- lists:seq(1, Max div byte_size(Desc) + 1)],
    ?assertMatch({error, {surface_too_large, Bytes, Max}} when Bytes > Max, mcp_codegen:generate(<<"s">>, Tools)).

%% Occurrences of `q' in the generated source (no boilerplate has one).
qs(Tool) ->
    {ok, {generated, _, Source, _}} = mcp_codegen:generate(<<"s">>, [Tool]),
    length(binary:matches(Source, <<"q">>)).

description_cap_is_the_reported_one_test() ->
    Max = mcp_codegen:description_chars(),
    Described = fun(N) -> setelement(4, object_tool(<<"t">>), {some, binary:copy(<<"q">>, N)}) end,
    ?assertEqual(Max, qs(Described(Max))),
    ?assertEqual(Max - 1, qs(Described(Max + 1))).

note_cap_is_the_reported_one_test() ->
    Max = mcp_codegen:note_chars(),
    Noted = fun(N) ->
                Property = {object, [{<<"type">>, {string, <<"string">>}},
                                     {<<"description">>, {string, binary:copy(<<"q">>, N)}}]},
                {tool_descriptor, <<"t">>, none, none,
                 {object, [{<<"properties">>, {object, [{<<"p">>, Property}]}}]}, none, none, none}
            end,
    ?assertEqual(Max, qs(Noted(Max))),
    ?assertEqual(Max - 1, qs(Noted(Max + 1))).

shape_depth_is_the_reported_one_test() ->
    Nested = fun(N) ->
                 Arrays = lists:foldl(fun(_, Inner) -> {object, [{<<"type">>, {string, <<"array">>}}, {<<"items">>, Inner}]} end,
                                      {object, [{<<"type">>, {string, <<"string">>}}]}, lists:seq(1, N)),
                 {tool_descriptor, <<"t">>, none, none,
                  {object, [{<<"properties">>, {object, [{<<"p">>, Arrays}]}}]}, none, none, none}
             end,
    Depth = mcp_codegen:shape_depth(),
    Shown = fun(N) ->
                {ok, {generated, _, Source, _}} = mcp_codegen:generate(<<"s">>, [Nested(N)]),
                Source
            end,
    Lists = fun(N) -> binary:copy(<<"List(">>, N) end,
    ?assertNotEqual(nomatch, binary:match(Shown(Depth), <<(Lists(Depth))/binary, "String">>)),
    ?assertNotEqual(nomatch, binary:match(Shown(Depth + 1), <<(Lists(Depth))/binary, 16#2026/utf8>>)).

name_collision_names_both_originals_test() ->
    Tools = [object_tool(<<"a">>), object_tool(<<"getX">>), object_tool(<<"getX">>)],
    ?assertEqual({error, {tool_name_collision, <<"getX">>, <<"getX">>}}, mcp_codegen:generate(<<"s">>, Tools)).

%% Ends with a refusal outside generate_error(), on purpose.
-dialyzer({no_fail_call, describe_test/0}).
describe_test() ->
    ?assertEqual(<<"the server lists 300 tools, more than the 256 a module is generated for">>,
                 mcp_codegen:describe({too_many_tools, 300, 256})),
    ?assertEqual(<<"tool names \"a\" and \"b\" mangle to the same Gleam name">>,
                 mcp_codegen:describe({tool_name_collision, <<"a">>, <<"b">>})),
    ?assertEqual(<<"the tool surface is 70000 bytes after truncation, more than the 65536 allowed">>,
                 mcp_codegen:describe({surface_too_large, 70000, 65536})),
    ?assertEqual(<<"an @ at byte 7 of the generated source is outside a comment or string: the sanitizer failed">>,
                 mcp_codegen:describe({sanitizer_breach, 7})),
    ?assertError(badarg, mcp_codegen:describe({sanitizer_breach, -1})),
    ?assertError(badarg, mcp_codegen:describe(whatever)).

%% Arguments outside the contract (one an improper list), on purpose.
-dialyzer({[no_fail_call, no_improper_lists], bad_terms_raise_badarg_test/0}).
bad_terms_raise_badarg_test() ->
    ?assertError(badarg, mcp_codegen:generate(<<"s">>, [{tool_descriptor, <<"x">>}])),
    ?assertError(badarg, mcp_codegen:generate(<<"s">>, [object_tool(<<255>>)])),
    ?assertError(badarg, mcp_codegen:generate(<<"s">>, [object_tool(<<"x">>) | improper])),
    ?assertError(badarg, mcp_codegen:generate(<<"s">>, [setelement(3, object_tool(<<"x">>), {some, 1})])),
    ?assertError(badarg, mcp_codegen:generate(<<"s">>, [setelement(5, object_tool(<<"x">>), {bad, 1})])),
    ?assertError(badarg, mcp_codegen:generate(not_a_binary, [])).

descriptor_options_are_read_test() ->
    Tool = {tool_descriptor, <<"t">>, {some, <<"Title">>}, {some, <<"Desc">>},
            {object, [{<<"type">>, {string, <<"object">>}}]}, {some, null}, {some, {object, []}},
            {some, {object, [{<<"taskSupport">>, {string, <<"optional">>}}]}}},
    {ok, {generated, _, Source, Surface}} = mcp_codegen:generate(<<"s">>, [Tool]),
    ?assertNotEqual(nomatch, binary:match(Source, <<"/// Desc\npub fn t() -> mcp.Outcome {">>)),
    ?assertEqual(<<"import cap/mcp/s\n// The tools of MCP server \"s\", as functions of cap/mcp/s: "
                   "call them as s.name(...); each returns an Outcome.\n/// Desc\nt: fn() -> Outcome\n">>,
                 Surface).

%% A tool that may only run as a task gets no function (a call could never
%% succeed): the module is empty and the surface names the tool.
task_only_tool_is_left_out_test() ->
    TaskOnly = {tool_descriptor, <<"research">>, none, none, {object, []}, none, none,
                {some, {object, [{<<"taskSupport">>, {string, <<"required">>}}]}}},
    {ok, {generated, _, Source, Surface}} = mcp_codegen:generate(<<"s">>, [TaskOnly]),
    ?assertEqual(<<"\n">>, Source),
    ?assertNotEqual(nomatch, binary:match(Surface, <<"// - research (tool \"research\")\n">>)),
    %% Its name takes no part in the collision check.
    {ok, {generated, _, Both, _}} = mcp_codegen:generate(<<"s">>, [TaskOnly, object_tool(<<"Research">>)]),
    ?assertNotEqual(nomatch, binary:match(Both, <<"pub fn research_">>)).

%% ---- text functions ----

%% Ends with a negative cap, outside the contract, on purpose.
-dialyzer({no_fail_call, sanitize_test/0}).
sanitize_test() ->
    ?assertEqual(<<"a b c">>, mcp_codegen:sanitize(<<" a\nb\r\n\tc ">>, 400)),
    ?assertEqual(<<"xy">>, mcp_codegen:sanitize(<<"x", 16#202E/utf8, 0, 16#2066/utf8, "y">>, 400)),
    ?assertEqual(<<"a b">>, mcp_codegen:sanitize(<<"a", 16#2028/utf8, "b">>, 400)),
    ?assertEqual(<<"abc">>, mcp_codegen:sanitize(<<"abc">>, 3)),
    ?assertEqual(<<"ab", 16#2026/utf8>>, mcp_codegen:sanitize(<<"abcd">>, 3)),
    ?assertError(badarg, mcp_codegen:sanitize(<<255>>, 3)),
    ?assertError(badarg, mcp_codegen:sanitize(<<"a">>, -1)).

truncate_test() ->
    ?assertEqual(<<"caf", 16#E9/utf8>>, mcp_codegen:truncate(<<"caf", 16#E9/utf8>>, 4)),
    ?assertEqual(<<"ca", 16#2026/utf8>>, mcp_codegen:truncate(<<"caf", 16#E9/utf8, "s">>, 3)),
    ?assertEqual(<<>>, mcp_codegen:truncate(<<"abc">>, 0)).

escape_test() ->
    ?assertEqual(<<"\"a\\\"b\\\\c\"">>, mcp_codegen:escape(<<"a\"b\\c">>)),
    ?assertEqual(<<"\"\\u{a}\\u{202e}\\u{1f600}\"">>, mcp_codegen:escape(<<"\n", 16#202E/utf8, 16#1F600/utf8>>)),
    ?assertEqual(<<"\"@external\"">>, mcp_codegen:escape(<<"@external">>)).

scan_for_at_test() ->
    ?assertEqual(ok, mcp_codegen:scan_for_at(<<"/// @x\nfn f() { \"@\" }">>)),
    ?assertEqual({error, 0}, mcp_codegen:scan_for_at(<<"@external">>)),
    ?assertEqual({error, 5}, mcp_codegen:scan_for_at(<<"// c\n@x">>)),
    ?assertEqual({error, 1}, mcp_codegen:scan_for_at(<<255, "@">>)).

%% Both sides of the dirty threshold give the same answer.
dirty_threshold_test() ->
    Threshold = mcp_codegen:dirty_threshold(),
    [begin
         Text = binary:copy(<<"a">>, Size),
         ?assertEqual(Size, byte_size(mcp_codegen:sanitize(Text, Size))),
         ?assertEqual(Size + 2, byte_size(mcp_codegen:escape(Text))),
         ?assertEqual(Size, byte_size(mcp_codegen:truncate(Text, Size))),
         ?assertEqual({error, Size}, mcp_codegen:scan_for_at(<<Text/binary, "@">>))
     end || Size <- [Threshold - 1, Threshold]].

%% ---- properties ----

hostile_char() ->
    oneof([range($a, $z), range($A, $Z), range($0, $9),
           elements([$@, $", $\\, $\n, $\r, $/, $*, $-, $., $\s, 0, 16#7F, 16#85, 16#202E, 16#2028, 16#1F600])]).

hostile_text() -> ?LET(Chars, list(hostile_char()), unicode:characters_to_binary(Chars)).

prop_generated_modules_keep_the_invariants() ->
    ?FORALL({Server, Names, Descriptions}, {hostile_text(), list(hostile_text()), list(hostile_text())},
            begin
                Tools = [{tool_descriptor, Name, none, {some, Desc},
                          {object, [{<<"properties">>, {object, [{Name, {object, [{<<"type">>, {string, <<"string">>}}]}}]}}]},
                          none, none, none}
                         || {Name, Desc} <- lists:zip(Names, lists:sublist(Descriptions ++ Names, length(Names)))],
                case mcp_codegen:generate(Server, Tools) of
                    {ok, Generated} -> assert_invariants(Generated), true;
                    {error, {tool_name_collision, A, B}} -> mcp_name:mangle(A) =:= mcp_name:mangle(B)
                end
            end).

generated_modules_keep_the_invariants_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_generated_modules_keep_the_invariants(),
                                              [{numtests, 300}, {to_file, user}]))}.
