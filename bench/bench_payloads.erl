%% @doc Deterministic benchmark payloads (same bytes every run, no RNG):
%% a ~200 B JSON-RPC request, a ~600 KiB tweets-like document, a ~64 KiB
%% `tools/list` page, a ~4 MiB `tools/call` result with one big text block
%% and an array of 10,000 numbers. Written as JSON lines into the
%% directory given.
-module(bench_payloads).
-export([write_all/1, names/0]).

names() -> ["request", "tweets", "tools_list", "call_result", "numbers"].

write_all(Dir) ->
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    [ok = file:write_file(filename:join(Dir, Name ++ ".json"), mcp_json:encode(payload(Name)))
     || Name <- names()],
    ok.

payload("tweets") -> tweets(1200);
payload("tools_list") -> tools_list(96);
payload("call_result") -> call_result(4 * 1024 * 1024);
payload("request") -> request();
payload("numbers") -> numbers(10000).

%% A `tools/call' request as mcp_client sends it.
request() ->
    {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 42}}, {<<"method">>, {string, <<"tools/call">>}},
              {<<"params">>, {object, [{<<"name">>, {string, <<"search_repositories">>}},
                                       {<<"arguments">>, {object, [{<<"query">>, {string, <<"language:erlang stars:>100">>}},
                                                                   {<<"page">>, {int, 1}}, {<<"perPage">>, {int, 30}}]}},
                                       {<<"_meta">>, {object, [{<<"progressToken">>, {int, 42}}]}}]}}]}.

%% Integers and floats, alternating.
numbers(N) ->
    {_, Items} = lists:foldl(fun(I, {Seed, Acc}) ->
                                 S = lcg(Seed),
                                 Item = case I rem 2 of 0 -> {int, S - 1073741824}; 1 -> {float, S / 4096} end,
                                 {S, [Item | Acc]}
                             end, {3, []}, lists:seq(1, N)),
    {array, lists:reverse(Items)}.

%% A pseudo-random but fixed sequence: a linear congruential generator.
lcg(Seed) -> (Seed * 1103515245 + 12345) rem 2147483648.

words() -> {<<"the">>, <<"quick">>, <<"brown">>, <<"fox">>, <<"jumps">>, <<"über"/utf8>>,
            <<"lazy">>, <<"dog">>, <<"日本語"/utf8>>, <<"😀"/utf8>>, <<"naïve"/utf8>>,
            <<"\"quoted\"">>, <<"tab\there">>, <<"line\nbreak">>, <<"json">>, <<"mcp">>}.

text(Seed, N) -> text(Seed, N, []).
text(Seed, 0, Acc) -> {Seed, iolist_to_binary(lists:join(<<" ">>, Acc))};
text(Seed, N, Acc) ->
    S = lcg(Seed),
    W = element(1 + S rem tuple_size(words()), words()),
    text(S, N - 1, [W | Acc]).

tweets(N) ->
    {_, Tweets} = lists:foldl(fun(I, {Seed, Acc}) -> {S2, T} = tweet(I, Seed), {S2, [T | Acc]} end,
                              {42, []}, lists:seq(1, N)),
    {object, [{<<"statuses">>, {array, lists:reverse(Tweets)}},
              {<<"search_metadata">>, {object, [{<<"count">>, {int, N}}, {<<"completed_in">>, {float, 0.087}}]}}]}.

tweet(I, Seed) ->
    {S1, Text} = text(Seed, 12),
    {S2, Bio} = text(S1, 6),
    {S2, {object, [
        {<<"id">>, {int, 505874924095815681 + I}},
        {<<"id_str">>, {string, integer_to_binary(505874924095815681 + I)}},
        {<<"created_at">>, {string, <<"Sun Aug 31 00:29:15 +0000 2014">>}},
        {<<"text">>, {string, Text}},
        {<<"truncated">>, {bool, false}},
        {<<"retweet_count">>, {int, S2 rem 1000}},
        {<<"favorited">>, {bool, S1 rem 2 =:= 0}},
        {<<"coordinates">>, null},
        {<<"geo">>, {object, [{<<"lat">>, {float, (S1 rem 18000) / 100.0 - 90}}, {<<"lon">>, {float, (S2 rem 36000) / 100.0 - 180}}]}},
        {<<"entities">>, {object, [{<<"hashtags">>, {array, [{string, <<"mcp">>}, {string, <<"beam">>}]}},
                                   {<<"urls">>, {array, []}}]}},
        {<<"user">>, {object, [{<<"id">>, {int, 1186275104 + I}}, {<<"name">>, {string, <<"user ", (integer_to_binary(I))/binary>>}},
                               {<<"description">>, {string, Bio}}, {<<"followers_count">>, {int, S1 rem 100000}},
                               {<<"verified">>, {bool, false}}]}}]}}.

tools_list(N) ->
    {object, [{<<"tools">>, {array, [tool(I) || I <- lists:seq(1, N)]}}, {<<"nextCursor">>, {string, <<"page-2">>}}]}.

tool(I) ->
    {_, Desc} = text(I, 40),
    Prop = fun(Name, Type, D) -> {Name, {object, [{<<"type">>, {string, Type}}, {<<"description">>, {string, D}}]}} end,
    {object, [{<<"name">>, {string, <<"tool_", (integer_to_binary(I))/binary>>}},
              {<<"description">>, {string, Desc}},
              {<<"inputSchema">>, {object, [{<<"type">>, {string, <<"object">>}},
                  {<<"properties">>, {object, [Prop(<<"owner">>, <<"string">>, <<"Repository owner">>),
                                               Prop(<<"count">>, <<"integer">>, <<"How many">>),
                                               Prop(<<"ratio">>, <<"number">>, <<"A ratio">>),
                                               Prop(<<"draft">>, <<"boolean">>, <<"Is a draft">>),
                                               {<<"labels">>, {object, [{<<"type">>, {string, <<"array">>}}, {<<"items">>, {object, [{<<"type">>, {string, <<"string">>}}]}}]}}]}},
                  {<<"required">>, {array, [{string, <<"owner">>}]}}]}},
              {<<"annotations">>, {object, [{<<"readOnlyHint">>, {bool, true}}]}}]}.

call_result(Bytes) ->
    {_, Line} = text(7, 200),
    Block = binary:copy(<<Line/binary, "\n">>, Bytes div (byte_size(Line) + 1)),
    {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 7}},
              {<<"result">>, {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, Block}}]}]}},
                                       {<<"isError">>, {bool, false}}]}}]}.
