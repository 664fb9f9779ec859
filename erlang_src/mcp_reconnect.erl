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
%%     `reset_after_ms'. So a server that dies at once after each
%%     handshake is started `attempts' times, then given up.</li>
%% <li>The wait before attempt N is `backoff_ms * 2^(N-1)', at most
%%     `max_backoff_ms'.</li>
%% </ul>
-module(mcp_reconnect).

-export([defaults/0, valid/1, with_defaults/1, next/4, max_attempts/0]).
-export_type([policy/0, decision/0]).

-type policy() :: #{attempts := 1..1000,
                    backoff_ms := non_neg_integer(),
                    max_backoff_ms := non_neg_integer(),
                    reset_after_ms := non_neg_integer()}.
-type decision() :: {retry, Attempt :: pos_integer(), WaitMs :: non_neg_integer()} | give_up.

-define(MAX_ATTEMPTS, 1000).
%% Every duration is a timeout as the client's others: 0 to a day.
-define(IS_MS(T), (is_integer(T) andalso T >= 0 andalso T =< 86400000)).

%% @doc The most attempts a policy may name.
-spec max_attempts() -> pos_integer().
max_attempts() -> ?MAX_ATTEMPTS.

%% @doc What a policy that names only `attempts' falls back to.
-spec defaults() -> #{backoff_ms := 500, max_backoff_ms := 30000, reset_after_ms := 60000}.
defaults() ->
    #{backoff_ms => 500, max_backoff_ms => 30000, reset_after_ms => 60000}.

%% @doc Whether `Policy' is a policy: `attempts' from 1 to 1,000, and the
%% optional durations integers from 0 to a day; no other key.
-spec valid(term()) -> boolean().
valid(#{attempts := Attempts} = Policy) when is_integer(Attempts), Attempts >= 1, Attempts =< ?MAX_ATTEMPTS ->
    Durations = maps:without([attempts], Policy),
    lists:all(fun(Key) -> lists:member(Key, [backoff_ms, max_backoff_ms, reset_after_ms]) end, maps:keys(Durations))
        andalso lists:all(fun(T) -> ?IS_MS(T) end, maps:values(Durations));
valid(_) ->
    false.

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

%% `Backoff * 2^Made', at most `Max' (the exponent is bounded by the
%% attempts, at most 1,000: computed by doubling until past `Max').
wait_ms(Backoff, Max, Made) ->
    wait_ms(Backoff, Max, Made, Backoff).

wait_ms(_Backoff, Max, _Made, Wait) when Wait >= Max -> Max;
wait_ms(_Backoff, _Max, 0, Wait) -> Wait;
wait_ms(Backoff, _Max, _Made, 0) -> Backoff;
wait_ms(Backoff, Max, Made, Wait) -> wait_ms(Backoff, Max, Made - 1, Wait * 2).
