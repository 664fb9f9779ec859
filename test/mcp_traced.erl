%% @doc Test helper: the calls of one function a process makes while a
%% fun runs, traced (`erlang:trace/3' with a global call pattern).
-module(mcp_traced).

-export([calls/3]).

%% @doc The argument lists of `Process''s calls of `{Module, Function,
%% Arity}' made while `Fun' runs (in this process), oldest last.
-spec calls(pid(), {module(), atom(), arity()}, fun(() -> term())) -> [[term()]].
calls(Process, MFA, Fun) ->
    Self = self(),
    Collector = spawn(fun() -> collect(Self, MFA, []) end),
    erlang:trace_pattern(MFA, true, [global]),
    erlang:trace(Process, true, [call, {tracer, Collector}]),
    try Fun()
    after
        erlang:trace(Process, false, [call]),
        erlang:trace_pattern(MFA, false, [global])
    end,
    Delivered = erlang:trace_delivered(Process),
    receive {trace_delivered, _, Delivered} -> ok end,
    Collector ! {done, Self},
    receive {traced, Collector, Calls} -> Calls end.

collect(Owner, {Module, Function, _} = MFA, Calls) ->
    receive
        {trace, _, call, {Module, Function, Args}} -> collect(Owner, MFA, [Args | Calls]);
        {done, Owner} -> Owner ! {traced, self(), Calls}
    end.
