%% @doc The loopback redirect URI of the authorization-code flow (RFC 8252):
%% a listener on 127.0.0.1 at an ephemeral port that takes the one redirect
%% carrying the authorization response, and the hand-off of the
%% authorization URL to a person (printed) or to a browser command.
%%
%% Invariants: the listener binds 127.0.0.1 only; it answers each
%% connection with a fixed page (never echoing the query) and reads at
%% most `?MAX_REQUEST_BYTES' of a request; it returns the query of the
%% first `GET /callback' the caller accepts (its `state'), answering any
%% other request with an error page and waiting on, so a forged redirect
%% cannot end the flow; the wait is bounded by the caller's deadline. The browser command is run with the URL as its only argument
%% (`exec'ed by `/bin/sh -c' with both as positional parameters, never
%% interpolated); its stdout and stderr go to /dev/null, and it is left to
%% end on its own: its port is never closed, it is never killed.
-module(mcp_oauth_loopback).

-export([listen/0, listen/1, redirect_uri/1, await/3, await/4, close/1, open_browser/2]).

-define(MAX_REQUEST_BYTES, 8192).
%% How long one connection may take to send its request.
-define(REQUEST_MS, 2000).
%% How often a wait that also takes a pasted address looks for one.
-define(PASTE_POLL_MS, 100).
%% The browser command's stdout and stderr each go to /dev/null: never into
%% a pipe of ours, never merged.
-define(QUIET_SCRIPT, "exec \"$@\" >/dev/null 2>/dev/null").
-define(PAGE, <<"<!doctype html><title>mcp-gen</title><p>Authorization received; you may close this window.">>).
-define(REFUSED_PAGE, <<"<!doctype html><title>mcp-gen</title><p>This is not the authorization response mcp-gen "
                        "is waiting for; it was ignored.">>).

-spec listen() -> {ok, gen_tcp:socket()} | {error, term()}.
listen() ->
    listen(0).

%% @doc A listener on 127.0.0.1 at `Port' (0: an ephemeral port), for a
%% pre-registered client whose redirect URI names a fixed port.
-spec listen(0..65535) -> {ok, gen_tcp:socket()} | {error, term()}.
listen(Port) when is_integer(Port), Port >= 0, Port =< 65535 ->
    gen_tcp:listen(Port, [binary, {ip, {127, 0, 0, 1}}, {active, false}, {packet, http_bin},
                          {packet_size, ?MAX_REQUEST_BYTES}, {reuseaddr, true}]).

-spec redirect_uri(gen_tcp:socket()) -> binary().
redirect_uri(Listener) ->
    {ok, Port} = inet:port(Listener),
    <<"http://127.0.0.1:", (integer_to_binary(Port))/binary, "/callback">>.

-spec close(gen_tcp:socket()) -> ok.
close(Listener) ->
    gen_tcp:close(Listener).

%% @doc The query parameters of the first redirect that `Ours' accepts
%% (the flow's `state'), or `{error, timeout}' when none came within
%% `TimeoutMs'. A redirect `Ours' refuses (a forged request, a stale
%% tab) is answered with an error page and the wait goes on: it cannot
%% end the flow.
-spec await(gen_tcp:socket(), non_neg_integer(), fun(([{binary(), binary()}]) -> boolean())) ->
          {ok, [{binary(), binary()}]} | {error, term()}.
await(Listener, TimeoutMs, Ours) ->
    await(Listener, TimeoutMs, Ours, listener).

%% @doc `await/3', and with `pasted' also the address a person pastes on
%% standard input: the redirect their browser ended on, on a machine that
%% cannot reach this listener (a login over SSH). A line that is not the
%% awaited redirect is answered on standard error and the wait goes on.
-spec await(gen_tcp:socket(), non_neg_integer(), fun(([{binary(), binary()}]) -> boolean()), listener | pasted) ->
          {ok, [{binary(), binary()}]} | {error, term()}.
await(Listener, TimeoutMs, Ours, listener) ->
    accept(Listener, erlang:monotonic_time(millisecond) + TimeoutMs, Ours, none);
await(Listener, TimeoutMs, Ours, pasted) ->
    Waiter = self(),
    Ref = make_ref(),
    Reader = spawn_link(fun() -> read_lines(Waiter, Ref) end),
    try accept(Listener, erlang:monotonic_time(millisecond) + TimeoutMs, Ours, Ref)
    after
        unlink(Reader),
        exit(Reader, kill),
        receive {pasted, Ref, _} -> ok after 0 -> ok end
    end.

read_lines(Waiter, Ref) ->
    case io:get_line(standard_io, "") of
        Line when is_list(Line); is_binary(Line) ->
            Waiter ! {pasted, Ref, unicode:characters_to_binary(Line)},
            read_lines(Waiter, Ref);
        _ ->
            ok
    end.

%% Accepts in slices of `?PASTE_POLL_MS' while a paste may come.
accept(Listener, Deadline, Ours, Pasted) ->
    Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
    receive
        {pasted, Pasted, Line} ->
            case pasted_params(Line) of
                {ok, Params} ->
                    case Ours(Params) of
                        true -> {ok, Params};
                        false -> refused_paste(Listener, Deadline, Ours, Pasted)
                    end;
                error ->
                    refused_paste(Listener, Deadline, Ours, Pasted)
            end
    after 0 ->
        Slice = case Pasted of
                    none -> Left;
                    _ -> min(Left, ?PASTE_POLL_MS)
                end,
        case gen_tcp:accept(Listener, Slice) of
            {error, timeout} when Pasted =/= none, Left > 0 -> accept(Listener, Deadline, Ours, Pasted);
            Accepted -> accepted(Accepted, Listener, Deadline, Ours, Pasted)
        end
    end.

refused_paste(Listener, Deadline, Ours, Pasted) ->
    io:format(standard_error, "mcp-gen: that is not the address the authorization sent your browser to; "
                              "paste the whole address from its address bar~n", []),
    accept(Listener, Deadline, Ours, Pasted).

%% The query of a pasted `http://127.0.0.1:PORT/callback?...' address.
pasted_params(Line) ->
    case uri_string:parse(string:trim(Line)) of
        #{path := <<"/callback">>, query := Query} -> {ok, query(Query)};
        _ -> error
    end.

accepted(Accepted, Listener, Deadline, Ours, Pasted) ->
    case Accepted of
        {ok, Socket} ->
            %% One connection gets at most `?REQUEST_MS' to send its
            %% request: an idle one cannot hold the listener until the deadline.
            Left = min(?REQUEST_MS, max(0, Deadline - erlang:monotonic_time(millisecond))),
            Params = case request_path(Socket, Left) of
                         {ok, <<"/callback?", Query/binary>>} -> query(Query);
                         _ -> none
                     end,
            Taken = Params =/= none andalso Ours(Params),
            _ = gen_tcp:send(Socket, page(Taken)),
            gen_tcp:close(Socket),
            case Taken of
                true -> {ok, Params};
                false -> accept(Listener, Deadline, Ours, Pasted)
            end;
        {error, Reason} ->
            {error, Reason}
    end.

page(Taken) ->
    {Status, Page} = case Taken of
                         true -> {<<"200 OK">>, ?PAGE};
                         false -> {<<"400 Bad Request">>, ?REFUSED_PAGE}
                     end,
    [<<"HTTP/1.1 ">>, Status, <<"\r\ncontent-type: text/html\r\nconnection: close\r\ncontent-length: ">>,
     integer_to_binary(byte_size(Page)), <<"\r\n\r\n">>, Page].

request_path(Socket, Timeout) ->
    case gen_tcp:recv(Socket, 0, Timeout) of
        {ok, {http_request, 'GET', {abs_path, Path}, _}} -> drain(Socket, Timeout, Path);
        _ -> error
    end.

drain(Socket, Timeout, Path) ->
    case gen_tcp:recv(Socket, 0, Timeout) of
        {ok, http_eoh} -> {ok, Path};
        {ok, {http_header, _, _, _, _}} -> drain(Socket, Timeout, Path);
        _ -> error
    end.

query(Query) ->
    case uri_string:dissect_query(Query) of
        Pairs when is_list(Pairs) -> [{K, V} || {K, V} <- Pairs, is_binary(K), is_binary(V)];
        _ -> []
    end.

%% @doc Hands the authorization URL on: to `Browser' (an executable, run
%% with the URL as its argument), or, with `print' and `paste', to stderr
%% for a person (`paste' also asks for the address the browser ends on).
-spec open_browser(print | paste | string(), binary()) -> ok | {error, term()}.
open_browser(print, Url) ->
    io:format(standard_error, "mcp-gen: to authorize, open this URL in a browser:~n  ~ts~n", [Url]),
    ok;
open_browser(paste, Url) ->
    io:format(standard_error, "mcp-gen: to authorize, open this URL in a browser (on any machine):~n  ~ts~n"
                              "mcp-gen: then paste here the address the browser ends on "
                              "(http://127.0.0.1:...; the page itself may fail to load)~n", [Url]),
    ok;
open_browser(Browser, Url) ->
    case os:find_executable(Browser) of
        false ->
            {error, {browser_not_found, unicode:characters_to_binary(Browser)}};
        Executable ->
            _ = spawn(fun() ->
                              await_exit(open_port({spawn_executable, "/bin/sh"},
                                                   [{args, ["-c", ?QUIET_SCRIPT, "mcp-oauth-browser", Executable, Url]},
                                                    exit_status, hide]))
                      end),
            ok
    end.

%% The command is the person's (the browser it starts may stay open): its
%% port is never closed and it is never killed; this process waits for its
%% exit status.
await_exit(Port) ->
    receive {Port, {exit_status, _}} -> ok end.
