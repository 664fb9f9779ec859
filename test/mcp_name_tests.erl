%% @doc mcp_name through the NIF: the digest suffix is SHA-256 (checked
%% against OTP's crypto), the length limit on both sides (at the value
%% `max_name_chars/0' reports, so the Erlang and Rust sides cannot drift),
%% keywords, plain snake_case labels, first_collision, and that every name
%% and label mangles to a Gleam identifier.
-module(mcp_name_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

suffix(Name) ->
    <<Hex:8/binary, _/binary>> = string:lowercase(binary:encode_hex(crypto:hash(sha256, Name))),
    <<"_", Hex/binary>>.

unchanged_identifier_test() ->
    ?assertEqual(<<"create_issue">>, mcp_name:mangle(<<"create_issue">>)).

changed_names_carry_sha256_suffix_test() ->
    ?assertEqual(<<"create_issue", (suffix(<<"createIssue">>))/binary>>, mcp_name:mangle(<<"createIssue">>)),
    ?assertEqual(<<"get_sum", (suffix(<<"get-sum">>))/binary>>, mcp_name:mangle(<<"get-sum">>)),
    ?assertEqual(<<"unnamed_e3b0c442">>, mcp_name:mangle(<<>>)),
    ?assertEqual(<<"n_2fa", (suffix(<<"2fa">>))/binary>>, mcp_name:mangle(<<"2fa">>)).

length_limit_test() ->
    Max = mcp_name:max_name_chars(),
    At = binary:copy(<<"a">>, Max),
    Over = binary:copy(<<"a">>, Max + 1),
    ?assertEqual(At, mcp_name:mangle(At)),
    ?assertEqual(<<At/binary, (suffix(Over))/binary>>, mcp_name:mangle(Over)),
    %% Labels are never truncated.
    ?assertEqual(Over, mcp_name:mangle_label(Over)).

keywords_and_aliases_test() ->
    ?assertEqual(<<"type", (suffix(<<"type">>))/binary>>, mcp_name:mangle(<<"type">>)),
    ?assertEqual(<<"list", (suffix(<<"list">>))/binary>>, mcp_name:mangle(<<"list">>)),
    ?assertEqual(<<"internal", (suffix(<<"internal">>))/binary>>, mcp_name:mangle(<<"internal">>)),
    ?assertEqual(<<"list_">>, mcp_name:mangle_label(<<"list">>)),
    ?assertEqual(<<"type_">>, mcp_name:mangle_label(<<"type">>)),
    ?assertEqual(<<"owner">>, mcp_name:mangle_label(<<"owner">>)).

labels_are_plain_snake_case_test() ->
    ?assertEqual(<<"dry_run">>, mcp_name:mangle_label(<<"dryRun">>)),
    ?assertEqual(<<"next_thought_needed">>, mcp_name:mangle_label(<<"nextThoughtNeeded">>)),
    ?assertEqual(<<"n_2fa">>, mcp_name:mangle_label(<<"2fa">>)),
    Kanji = <<16#540D/utf8>>,
    ?assertEqual(<<"unnamed", (suffix(Kanji))/binary>>, mcp_name:mangle_label(Kanji)).

first_collision_test() ->
    ?assertEqual(none, mcp_name:first_collision([<<"createIssue">>, <<"create_issue">>, <<"create-issue">>])),
    ?assertEqual({some, {<<"b">>, <<"b">>}}, mcp_name:first_collision([<<"a">>, <<"b">>, <<"c">>, <<"b">>, <<"a">>])),
    ?assertEqual(none, mcp_name:first_collision([])).

%% Arguments outside the contract (one an improper list), on purpose.
-dialyzer({[no_fail_call, no_improper_lists], bad_input_raises_badarg_test/0}).
bad_input_raises_badarg_test() ->
    ?assertError(badarg, mcp_name:mangle(<<255>>)),
    ?assertError(badarg, mcp_name:first_collision([<<"a">> | b])),
    ?assertError(badarg, mcp_name:first_collision([atom])).

dirty_threshold_test() ->
    [?assertEqual(<<(binary:copy(<<"a">>, mcp_name:max_name_chars()))/binary, (suffix(binary:copy(<<"a">>, Size)))/binary>>,
                  mcp_name:mangle(binary:copy(<<"a">>, Size)))
     || Size <- [mcp_name:dirty_threshold() - 1, mcp_name:dirty_threshold()]].

%% The digest a changed name carries: SHA-256's first eight hex characters
%% (computed here with crypto), on either side of the dirty threshold.
digest_is_the_suffix_a_changed_name_carries_test() ->
    ?assertEqual(<<"092c79e8">>, mcp_name:digest(<<"echo">>)),
    ?assertEqual(<<"echo_", (mcp_name:digest(<<"echo">>))/binary>>, mcp_name:mangle(<<"echo">>)),
    [?assertEqual(suffix(Name), <<"_", (mcp_name:digest(Name))/binary>>)
     || Size <- [0, mcp_name:dirty_threshold() - 1, mcp_name:dirty_threshold()],
        Name <- [binary:copy(<<"é"/utf8>>, Size div 2)]].

%% 64 names stay on the normal scheduler, 65 go dirty: same answers.
first_collision_dirty_by_count_test() ->
    [begin
         Names = [<<"n", (integer_to_binary(I))/binary>> || I <- lists:seq(1, Count)],
         ?assertEqual(none, mcp_name:first_collision(Names)),
         ?assertEqual({some, {<<"n1">>, <<"n1">>}}, mcp_name:first_collision(Names ++ [<<"n1">>]))
     end || Count <- [63, 64, 65]].

is_identifier(Name) ->
    re:run(Name, "^[a-z][a-z0-9_]*$") =/= nomatch.

prop_every_name_mangles_to_an_identifier() ->
    ?FORALL(Chars, list(oneof([range(0, 127), range(128, 16#10FFF)])),
            begin
                Name = unicode:characters_to_binary([C || C <- Chars, C < 16#D800 orelse C > 16#DFFF]),
                Mangled = mcp_name:mangle(Name),
                is_identifier(Mangled) andalso is_identifier(mcp_name:mangle_label(Name))
                    andalso (Mangled =:= Name orelse binary:longest_common_suffix([Mangled, suffix(Name)]) =:= 9)
            end).

identifier_property_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_every_name_mangles_to_an_identifier(),
                                              [{numtests, 500}, {to_file, user}]))}.
