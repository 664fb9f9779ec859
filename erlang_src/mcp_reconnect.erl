%% @doc The reconnect policy of a client (the `reconnect' option,
%% `docs/client.md', "Servers that come back"), as pure functions: which
%% deaths are worth another connection, how long to wait before it, and
%% when to give up. The actor (`mcp_client_actor') performs what these
%% decide.
%%
%% Invariants:
%% <ul>
%% <li>Only a connection that was up is ever replaced, and only once its
%%     transport proved the old peer's end: a death whose evidence is
%%     unconfirmed, and the owner's own ending (`retired', `stopped',
%%     `custodian_down'), are never followed by another connection.</li>
%% <li>At most `attempts' connections are started in a row; the count
%%     starts again only after a connection stayed up for
%%     `reset_after_ms' (at least a second). So a server that dies at once
%%     after each handshake is started `attempts' times, then given up;
%%     one that stays up `reset_after_ms' each time is started again
%%     without end, at most once per `reset_after_ms'.</li>
%% <li>The wait before attempt N is `backoff_ms * 2^(N-1)', at most
%%     `max_backoff_ms'.</li>
%% <li>A server that stops answering is a death too: when a request's
%%     deadline passes and nothing came from the server for
%%     `unresponsive_ms', the actor pings it; a ping unanswered, with still
%%     nothing from the server, within `unresponsive_ms' ends the connection
%%     with `{unresponsive, SilentMs}' (the actor decides it; this module
%%     only holds the duration).</li>
%% </ul>
-module(mcp_reconnect).

-export([defaults/0, valid/1, out_of_range/1, range/1, with_defaults/1, next/4, max_attempts/0,
         min_reset_after_ms/0]).
-export_type([policy/0, decision/0, field/0]).

-type field() :: attempts | backoff_ms | max_backoff_ms | reset_after_ms | unresponsive_ms.

-type policy() :: #{attempts := 1..1000,
                    backoff_ms := non_neg_integer(),
                    max_backoff_ms := non_neg_integer(),
                    reset_after_ms := non_neg_integer(),
                    unresponsive_ms := pos_integer()}.
-type decision() :: {retry, Attempt :: pos_integer(), WaitMs :: non_neg_integer()} | give_up.

-define(MAX_ATTEMPTS, 1000).
%% The least `reset_after_ms': below it a server dying after every
%% handshake would start the count again each time, and never be given up.
-define(MIN_RESET_AFTER_MS, 1000).
%% The least `unresponsive_ms': a server is given at least this long to
%% say anything before it is pinged, and as long again to answer.
-define(MIN_UNRESPONSIVE_MS, 100).
%% Every duration is a timeout as the client's others: at most a day.
-define(MAX_MS, 86400000).

%% @doc The most attempts a policy may name.
-spec max_attempts() -> pos_integer().
max_attempts() -> ?MAX_ATTEMPTS.

%% @doc The least `reset_after_ms' a policy may name.
-spec min_reset_after_ms() -> pos_integer().
min_reset_after_ms() -> ?MIN_RESET_AFTER_MS.

%% @doc What a policy that names only `attempts' falls back to.
-spec defaults() -> #{backoff_ms := 500, max_backoff_ms := 30000, reset_after_ms := 60000,
                      unresponsive_ms := 10000}.
defaults() ->
    #{backoff_ms => 500, max_backoff_ms => 30000, reset_after_ms => 60000, unresponsive_ms => 10000}.

%% @doc Whether `Policy' is a policy: `attempts' from 1 to 1,000, and the
%% optional durations integers from 0 to a day (`reset_after_ms' from a
%% second, `unresponsive_ms' from 100 ms); no other key.
-spec valid(term()) -> boolean().
valid(#{attempts := _} = Policy) ->
    lists:all(fun(Key) -> lists:member(Key, fields()) end, maps:keys(Policy))
        andalso out_of_range(Policy) =:= none;
valid(_) ->
    false.

%% @doc The first field of `Policy' outside its range (an absent one is
%% taken as in range), with its value, or `none'.
-spec out_of_range(map()) -> {field(), term()} | none.
out_of_range(Policy) ->
    case [{Key, Value} || Key <- fields(), {Min, Max} <- [range(Key)], Value <- [maps:get(Key, Policy, Min)],
                          not (is_integer(Value) andalso Value >= Min andalso Value =< Max)] of
        [] -> none;
        [First | _] -> First
    end.

%% @doc A field's least and greatest value.
-spec range(field()) -> {non_neg_integer(), pos_integer()}.
range(attempts) -> {1, ?MAX_ATTEMPTS};
range(backoff_ms) -> {0, ?MAX_MS};
range(max_backoff_ms) -> {0, ?MAX_MS};
range(reset_after_ms) -> {?MIN_RESET_AFTER_MS, ?MAX_MS};
range(unresponsive_ms) -> {?MIN_UNRESPONSIVE_MS, ?MAX_MS}.

fields() -> [attempts, backoff_ms, max_backoff_ms, reset_after_ms, unresponsive_ms].

%% @doc A valid policy with every default filled in.
-spec with_defaults(map()) -> policy().
with_defaults(Policy) ->
    maps:merge(defaults(), Policy).

%% @doc What follows a death: `Reason' the death reason, `Evidence' the
%% transport's proof, `Made' the attempts made since the count last
%% started, `UpMs' how long the connection that died had been up (0 when
%% it never was).
-spec next(policy(), {Reason :: term(), Evidence :: term()}, Made :: non_neg_integer(),
           UpMs :: non_neg_integer()) -> decision().
next(_Policy, {Reason, _Evidence}, _Made, _UpMs)
  when Reason =:= retired; Reason =:= stopped; Reason =:= custodian_down ->
    give_up;
next(_Policy, {_Reason, {unconfirmed, _}}, _Made, _UpMs) ->
    give_up;
next(#{attempts := Attempts, backoff_ms := Backoff, max_backoff_ms := Max, reset_after_ms := Reset}, _Death,
     Made0, UpMs) ->
    Made = case UpMs >= Reset of
               true -> 0;
               false -> Made0
           end,
    case Made >= Attempts of
        true -> give_up;
        false -> {retry, Made + 1, wait_ms(Backoff, Max, Made)}
    end.

%% `Backoff * 2^Made', at most `Max' (a day at most, below 2^27: a
%% shift of 32 is past any ceiling, so the exponent need not grow with the
%% attempts).
wait_ms(Backoff, Max, Made) ->
    min(Max, Backoff bsl min(Made, 32)).
