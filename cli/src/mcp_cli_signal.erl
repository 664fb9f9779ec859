%% @doc SIGTERM as a message, for `bin/mcp-gen'.
%%
%% The BEAM cannot handle SIGINT (it belongs to the break handler, which the
%% wrapper disables with `+Bi'); the wrapper traps INT and TERM and sends the
%% VM SIGTERM. `install/1' replaces the kernel's default SIGTERM handler
%% (which would run `init:stop/0' and leave the server to die on its own)
%% with one that sends `{mcp_cli_signal, sigterm}' to the given process, so
%% the command line can shut its server down through `mcp_client:shutdown/2'
%% before halting.
-module(mcp_cli_signal).
-behaviour(gen_event).

-export([install/1]).
-export([init/1, handle_event/2, handle_call/2, handle_info/2, terminate/2]).

%% @doc Route the VM's SIGTERM to `Listener' as `{mcp_cli_signal, sigterm}'.
-spec install(pid()) -> ok.
install(Listener) ->
    ok = os:set_signal(sigterm, handle),
    case gen_event:swap_handler(erl_signal_server, {erl_signal_handler, []}, {?MODULE, Listener}) of
        ok -> ok;
        {error, _NoDefaultHandler} -> gen_event:add_handler(erl_signal_server, ?MODULE, Listener)
    end.

-spec init(pid() | {pid(), term()}) -> {ok, pid()}.
init({Listener, _SwappedOutState}) when is_pid(Listener) -> {ok, Listener};
init(Listener) when is_pid(Listener) -> {ok, Listener}.

-spec handle_event(term(), pid()) -> {ok, pid()}.
handle_event(sigterm, Listener) ->
    Listener ! {mcp_cli_signal, sigterm},
    {ok, Listener};
handle_event(sigquit, Listener) ->              % as the kernel's default handler does
    erlang:halt(),
    {ok, Listener};
handle_event(sigusr1, Listener) ->
    erlang:halt("Received SIGUSR1"),
    {ok, Listener};
handle_event(_Other, Listener) ->
    {ok, Listener}.

-spec handle_call(term(), pid()) -> {ok, ok, pid()}.
handle_call(_Request, Listener) -> {ok, ok, Listener}.

-spec handle_info(term(), pid()) -> {ok, pid()}.
handle_info(_Info, Listener) -> {ok, Listener}.

-spec terminate(term(), pid()) -> ok.
terminate(_Reason, _Listener) -> ok.
