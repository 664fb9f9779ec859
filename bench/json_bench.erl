%% @doc JSON decode (line -> term) and encode (term -> line): mcp_json side
%% by side with jiffy and mochijson2 (Debian's erlang-jiffy and
%% erlang-mochiweb), on the payloads of `bench_payloads'. Implementations
%% are interleaved round by round; each figure is the median of the rounds.
%% Also prints the parse-only ceiling ratio when the Rust timing binary's
%% output is given.
-module(json_bench).
-export([run/1, ratios/1]).

-define(ROUNDS, 15).
-define(SAMPLE_US, 5000).

run([PayloadDir | Rest]) ->
    ratios([PayloadDir]),
    ratios_without_busy_wait(PayloadDir),
    Ceiling = ceiling(Rest),
    io:format("~n== JSON decode (line -> term), MB/s, median of ~b interleaved rounds ==~n", [?ROUNDS]),
    io:format("~-12s ~10s ~10s ~10s ~12s ~12s ~14s~n",
              ["payload", "bytes", "mcp_json", "jiffy", "mochijson2", "vs jiffy", "vs mochijson2"]),
    Decoded = [decode_row(PayloadDir, Name, fun time_us/2) || Name <- bench_payloads:names()],
    io:format("~n== JSON decode, each call in a fresh process (default heap, as in a client actor) ==~n", []),
    io:format("~-12s ~10s ~10s ~10s ~12s ~12s ~14s~n",
              ["payload", "bytes", "mcp_json", "jiffy", "mochijson2", "vs jiffy", "vs mochijson2"]),
    [decode_row(PayloadDir, Name, fun time_fresh_us/2) || Name <- bench_payloads:names()],
    io:format("~n== JSON encode (term -> line), MB/s ==~n", []),
    io:format("~-12s ~10s ~10s ~10s ~12s ~12s ~14s~n",
              ["payload", "bytes", "mcp_json", "jiffy", "mochijson2", "vs jiffy", "vs mochijson2"]),
    [encode_row(Row) || Row <- Decoded],
    case Ceiling of
        [] -> ok;
        _ ->
            io:format("~n== Parse-only ceiling (Rust parser, no terms) vs full NIF decode ==~n", []),
            io:format("~-12s ~14s ~14s ~8s~n", ["payload", "ceiling MB/s", "NIF MB/s", "ratio"]),
            [io:format("~-12s ~14.1f ~14.1f ~8.2f~n", [Name, C, Ours, Ours / C])
             || {Name, _, Ours, _} <- Decoded, {N2, C} <- Ceiling, N2 =:= Name]
    end,
    ok.

%% The summary table: decode and encode as ratios to jiffy (time of jiffy /
%% time of mcp_json, so >1 is faster), and two ceilings for a decode, also
%% as ratios to jiffy's decode: copying the decoded term
%% (`erts_debug:copy_shared/1': building the same term from a term) and walking it
%% (`erts_debug:flat_size/1'), and one for an encode, as a ratio to
%% jiffy's encode: the encode NIF's fixed cost per call (`mcp_json:encode(null)':
%% the call, its arguments, the output binary), the most any encode through
%% one NIF call could reach. Interleaved (the two decodes, then the
%% rest); each cell is the ratio of the medians of the rounds, then in
%% parentheses that of the best rounds (steadier on a loaded machine).
ratios([PayloadDir]) ->
    io:format("~n== mcp_json vs jiffy (ratios, >1 is faster), ~s, median (best) of ~b interleaved rounds ==~n",
              [scheduler_flags(), ?ROUNDS]),
    io:format("| payload | bytes | decode | encode | copy ceiling | walk ceiling | encode call ceiling |~n"
              "|---|---|---|---|---|---|---|~n"),
    [ratio_row(PayloadDir, Name) || Name <- bench_payloads:names()],
    ok.

ratio_row(Dir, Name) ->
    {ok, Line} = file:read_file(filename:join(Dir, Name ++ ".json")),
    Bytes = byte_size(Line),
    %% The decodes first, while no decoded term is alive in this process (a
    %% big live term makes every garbage collection here slower, for both
    %% implementations alike).
    [Dec, JDec] = interleaved_with_best([{decode, fun() -> {ok, _} = mcp_json:decode(Line) end},
                                         {jiffy_decode, fun() -> jiffy:decode(Line) end}], Bytes, fun time_us/2),
    {ok, Ours} = mcp_json:decode(Line),
    Jiffy = jiffy:decode(Line),
    [Copy, Walk, Enc, JEnc] = interleaved_with_best([{copy, fun() -> erts_debug:copy_shared(Ours) end},
                                                     {walk, fun() -> erts_debug:flat_size(Ours) end},
                                                     {encode, fun() -> mcp_json:encode(Ours) end},
                                                     {jiffy_encode, fun() -> jiffy:encode(Jiffy) end}], Bytes, fun time_us/2),
    %% (apart, in batches of its own size: interleaved with a 600 KB
    %% encode it disturbed the encodes' medians)
    [Call] = interleaved_with_best([{call, fun() -> mcp_json:encode(null) end}], 189, fun time_us/2),
    CallRate = fun({Median, Best}) -> {Median * Bytes / 189, Best * Bytes / 189} end,
    %% (rates: a ratio of rates is the inverse ratio of times)
    Ratio = fun({Median, Best}, {BaseMedian, BaseBest}) -> io_lib:format("~.2f (~.2f)", [Median / BaseMedian, Best / BaseBest]) end,
    io:format("| ~s | ~b | ~s | ~s | ~s | ~s | ~s |~n",
              [Name, Bytes, Ratio(Dec, JDec), Ratio(Enc, JEnc), Ratio(Copy, JDec), Ratio(Walk, JDec), Ratio(CallRate(Call), JEnc)]).

%% The VM of ratios_without_busy_wait/1 is marked by a plain `-no_busy_wait'.
scheduler_flags() ->
    case init:get_argument(no_busy_wait) of
        {ok, _} -> "+sbwt none +sbwtdcpu none +sbwtdio none";
        error -> "default flags"
    end.

%% The same table in a fresh VM whose schedulers do not busy-wait.
ratios_without_busy_wait(PayloadDir) ->
    Paths = lists:append([["-pa", filename:dirname(code:which(M))] || M <- [mcp_json, jiffy, json_bench]]),
    Command = lists:join(" ", ["erl", "+sbwt", "none", "+sbwtdcpu", "none", "+sbwtdio", "none", "-noshell" | Paths]
                              ++ ["-no_busy_wait", "-eval", "'json_bench:ratios([\"" ++ PayloadDir ++ "\"]), halt().'"]),
    io:format("~s", [os:cmd(lists:flatten(Command))]).

%% "name MB/s" lines printed by the parse_ceiling example.
ceiling([]) -> [];
ceiling([File | _]) ->
    {ok, Text} = file:read_file(File),
    [{binary_to_list(N), binary_to_float(V)} ||
        Line <- binary:split(Text, <<"\n">>, [global, trim_all]),
        [N, V] <- [binary:split(Line, <<" ">>)]].

decode_row(Dir, Name, Timer) ->
    {ok, Line} = file:read_file(filename:join(Dir, Name ++ ".json")),
    Impls = [{mcp_json, fun() -> {ok, _} = mcp_json:decode(Line) end},
             {jiffy, fun() -> jiffy:decode(Line) end},
             {mochijson2, fun() -> mochijson2:decode(Line) end}],
    [Ours, Jiffy, Mochi] = interleaved(Impls, byte_size(Line), Timer),
    row(Name, byte_size(Line), Ours, Jiffy, Mochi),
    {Name, Line, Ours, Jiffy}.

encode_row({Name, Line, _, _}) ->
    {ok, Ours} = mcp_json:decode(Line),
    JiffyTerm = jiffy:decode(Line),
    MochiTerm = mochijson2:decode(Line),
    Impls = [{mcp_json, fun() -> mcp_json:encode(Ours) end},
             {jiffy, fun() -> jiffy:encode(JiffyTerm) end},
             {mochijson2, fun() -> iolist_to_binary(mochijson2:encode(MochiTerm)) end}],
    [O, J, M] = interleaved(Impls, byte_size(Line), fun time_us/2),
    row(Name, byte_size(Line), O, J, M).

row(Name, Bytes, Ours, Jiffy, Mochi) ->
    io:format("~-12s ~10b ~10.1f ~10.1f ~10.1f ~11.2fx ~13.2fx~n",
              [Name, Bytes, Ours, Jiffy, Mochi, Ours / Jiffy, Ours / Mochi]).

%% MB/s per implementation: each round runs every implementation once, in
%% rotating order, timed by Timer.
interleaved(Impls, Bytes, Timer) ->
    [Bytes / median_us(Samples) || Samples <- samples(Impls, Bytes, Timer)].

%% The same, as `{MedianRate, BestRate}' per implementation.
interleaved_with_best(Impls, Bytes, Timer) ->
    %% (a walk of a term that is mostly one binary can time at 0 us)
    Floor = fun(Us) -> max(Us, 1.0e-3) end,
    [{Bytes / Floor(median_us(Samples)), Bytes / Floor(lists:min(Samples))} || Samples <- samples(Impls, Bytes, Timer)].

%% Microseconds per call, one list per implementation, one sample a round.
samples(Impls, Bytes, Timer) ->
    Count = length(Impls),
    Rounds = [begin
                  Order = rotate(lists:seq(1, Count), R rem Count),
                  maps:from_list([{I, Timer(element(2, lists:nth(I, Impls)), Bytes)} || I <- Order])
              end || R <- lists:seq(1, ?ROUNDS)],
    [[maps:get(I, Round) || Round <- Rounds] || I <- lists:seq(1, Count)].

rotate(List, N) -> {A, B} = lists:split(N, List), B ++ A.

%% Microseconds for one call. A call shorter than a millisecond is timed
%% in a batch that takes at least ?SAMPLE_US (`batch/1'): a timing of a few
%% hundred microseconds (a small input's encode) moved a ratio by a third
%% from one run to the next. A longer call is timed alone, right after a
%% garbage collection, as any call was before.
time_us(Fun, _Bytes) ->
    timed(Fun, batch(Fun)).

timed(Fun, Batch) ->
    erlang:garbage_collect(),
    {Us, _} = timer:tc(fun() -> repeat(Fun, Batch) end),
    Us / Batch.

%% One call when it takes a millisecond; otherwise calls doubled from one
%% until a batch takes a millisecond, then scaled to ?SAMPLE_US.
batch(Fun) -> batch(Fun, 1).

batch(Fun, N) ->
    case timer:tc(fun() -> repeat(Fun, N) end) of
        {Us, _} when Us >= 1000, N =:= 1 -> 1;
        {Us, _} when Us >= 1000 -> max(1, ceil(N * ?SAMPLE_US / Us));
        _ -> batch(Fun, N * 2)
    end.

%% Microseconds for one call in a new process, whose heap starts at the
%% default size, so an implementation cannot profit from a heap grown by an
%% earlier one (small inputs batched by their size: a calibration would grow
%% the heap first).
time_fresh_us(Fun, Bytes) ->
    Parent = self(),
    Batch = max(1, 2000000 div max(Bytes, 1) div 50),
    Pid = spawn(fun() -> Parent ! {self(), timed(Fun, Batch)} end),
    receive {Pid, Us} -> Us end.

repeat(_, 0) -> ok;
repeat(Fun, N) -> _ = Fun(), repeat(Fun, N - 1).

median_us(Samples) ->
    Sorted = lists:sort(Samples),
    lists:nth((length(Sorted) + 1) div 2, Sorted).
