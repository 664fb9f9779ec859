%% @doc A peer measured beside us: an external program (another client, or
%% this VM under other flags) run to completion, whose last output line is
%% one JSON object of its measurements. `run/1' answers them as a map with
%% the keys `seq', `p50', `p99', `conc', `conc64', `cpu', `cpu16' and
%% `red16', each present when the program printed the matching member
%% (`sequential_per_s', `p50_ms', `p99_ms', `concurrent_per_s',
%% `concurrent64_per_s', `cpu_us_per_call', `cpu16_us_per_call',
%% `reductions16_per_call').
-module(bench_peer).

-export([run/1]).

-define(MEMBERS, [{<<"sequential_per_s">>, seq}, {<<"p50_ms">>, p50}, {<<"p99_ms">>, p99},
                  {<<"concurrent_per_s">>, conc}, {<<"concurrent64_per_s">>, conc64},
                  {<<"cpu_us_per_call">>, cpu}, {<<"cpu16_us_per_call">>, cpu16},
                  {<<"reductions16_per_call">>, red16}]).

-spec run([string()]) -> #{atom() => number()} | {error, term()}.
run([Exe | Args]) ->
    Port = open_port({spawn_executable, Exe}, [{args, Args}, binary, exit_status, use_stdio, {line, 65536}]),
    collect(Port, []).

collect(Port, Lines) ->
    receive
        {Port, {data, {eol, Line}}} -> collect(Port, [Line | Lines]);
        {Port, {data, {noeol, _}}} -> collect(Port, Lines);
        {Port, {exit_status, 0}} -> measurements(Lines);
        {Port, {exit_status, S}} -> {error, {exit_status, S}}
    after 300000 -> {error, timeout}
    end.

measurements([Last | _]) ->
    {ok, {object, Members}} = mcp_json:decode(Last),
    maps:from_list([{Key, number(Value)} || {Name, Key} <- ?MEMBERS,
                                            {Member, Value} <- Members, Member =:= Name]);
measurements([]) -> {error, no_output}.

number({float, F}) -> F;
number({int, I}) -> I.
