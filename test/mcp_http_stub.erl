%% @doc Test helper: a scriptable HTTP/1.1 server on a loopback port, for
%% the HTTP transport's hostile and unit tests. Each request (method, path,
%% lower-case headers, body) goes to the handler fun, whose answer is
%% written as given; connections are kept alive. Every request is also
%% reported to the process that started the stub as `{stub_request, Stub,
%% Request}'.
%%
%% A request for another host (as a proxy sees it: an absolute URI, or
%% CONNECT) is reported with `proxied_to => {Host, Port}'.
%%
%% Answers: `{reply, Status, Headers, Body}' (Content-Length added),
%% `{sse, Headers, Chunks}' (chunked event stream, then the end),
%% `{sse_forever, Headers, Chunks, Every}' (the chunks, then `: ping' every
%% `Every' ms until the client goes; `{sse_forever, Headers, Chunks, Every,
%% KeepAlive}' sends `KeepAlive' instead), `{sse_slow, Headers, Chunks, Every}'
%% (the chunks `Every' ms apart, then the end), `{raw, Bytes}' (then close), `hold'
%% (never answer), `{endless_body, Status}' (a body without end after the
%% headers), `endless_headers' (header lines without end),
%% `{endless_chunk_size, Headers}' (a 200 event stream whose first chunk's
%% size line never ends: digits without end, read by `httpc''s chunked
%% decoder after the headers were handed over).
-module(mcp_http_stub).

-export([start/1, start/2, port/1, url/1, stop/1]).

start(Handler) -> start(Handler, {127, 0, 0, 1}).

start(Handler, Ip) ->
    Owner = self(),
    Ref = make_ref(),
    Pid = spawn(fun() ->
                        {ok, Listen} = gen_tcp:listen(0, [binary, {ip, Ip}, {packet, http_bin}, {active, false},
                                                          {reuseaddr, true}]),
                        {ok, Port} = inet:port(Listen),
                        Owner ! {Ref, Port},
                        accept(Listen, Handler, Owner, self())
                end),
    receive {Ref, Port} -> #{pid => Pid, port => Port, ip => Ip} end.

port(#{port := Port}) -> Port.

url(#{port := Port, ip := {A, B, C, D}}) ->
    lists:flatten(io_lib:format("http://~b.~b.~b.~b:~b/mcp", [A, B, C, D, Port])).

stop(#{pid := Pid}) -> exit(Pid, kill), ok.

accept(Listen, Handler, Owner, Stub) ->
    case gen_tcp:accept(Listen) of
        {ok, Socket} ->
            Conn = spawn(fun() -> receive go -> serve(Socket, Handler, Owner, Stub) end end),
            ok = gen_tcp:controlling_process(Socket, Conn),
            link(Conn),
            Conn ! go,
            accept(Listen, Handler, Owner, Stub);
        {error, _} ->
            ok
    end.

serve(Socket, Handler, Owner, Stub) ->
    case read_request(Socket) of
        {ok, Request} ->
            Owner ! {stub_request, Stub, Request},
            case answer(Socket, Handler(Request)) of
                keep -> serve(Socket, Handler, Owner, Stub);
                close -> gen_tcp:close(Socket)
            end;
        closed ->
            ok
    end.

read_request(Socket) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, {http_request, Method, {abs_path, Path}, _}} -> headers(Socket, #{method => Method, path => Path, headers => []});
        %% As a proxy: an absolute URI (plain http), or CONNECT's authority.
        {ok, {http_request, Method, {absoluteURI, _, Host, Port, Path}, _}} ->
            headers(Socket, #{method => Method, path => Path, headers => [], proxied_to => {Host, Port}});
        {ok, {http_request, <<"CONNECT">>, {scheme, Host, Port}, _}} ->
            headers(Socket, #{method => 'CONNECT', path => <<>>, headers => [], proxied_to => {Host, Port}});
        _ -> closed
    end.

headers(Socket, Request = #{headers := Headers}) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, {http_header, _, Name, _, Value}} ->
            headers(Socket, Request#{headers := [{string:lowercase(iolist_to_binary(atom_or(Name))), Value} | Headers]});
        {ok, http_eoh} ->
            Length = binary_to_integer(proplists:get_value(<<"content-length">>, Headers, <<"0">>)),
            ok = inet:setopts(Socket, [{packet, raw}]),
            Body = case Length of
                       0 -> <<>>;
                       _ -> {ok, B} = gen_tcp:recv(Socket, Length), B
                   end,
            ok = inet:setopts(Socket, [{packet, http_bin}]),
            {ok, Request#{body => Body}};
        _ ->
            closed
    end.

atom_or(Name) when is_atom(Name) -> atom_to_binary(Name);
atom_or(Name) -> Name.

answer(Socket, {reply, Status, Headers, Body}) ->
    send(Socket, [status_line(Status), header_lines([{"content-length", integer_to_list(iolist_size(Body))} | Headers]),
                  "\r\n", Body]);
answer(Socket, {sse, Headers, Chunks}) ->
    start_sse(Socket, Headers),
    _ = [chunk(Socket, Chunk) || Chunk <- Chunks],
    send(Socket, "0\r\n\r\n");
answer(Socket, {sse_forever, Headers, Chunks, Every}) ->
    answer(Socket, {sse_forever, Headers, Chunks, Every, <<": ping\n">>});
answer(Socket, {sse_forever, Headers, Chunks, Every, KeepAlive}) ->
    start_sse(Socket, Headers),
    _ = [chunk(Socket, Chunk) || Chunk <- Chunks],
    forever(Socket, Every, KeepAlive);
answer(Socket, {sse_slow, Headers, Chunks, Every}) ->
    start_sse(Socket, Headers),
    _ = [begin timer:sleep(Every), chunk(Socket, Chunk) end || Chunk <- Chunks],
    send(Socket, "0\r\n\r\n");
answer(Socket, {raw, Bytes}) ->
    _ = gen_tcp:send(Socket, Bytes),
    close;
answer(_Socket, hold) ->
    receive after infinity -> close end;
answer(Socket, {endless_body, Status}) ->
    _ = gen_tcp:send(Socket, [status_line(Status), header_lines([{"content-length", "100000000000"}]), "\r\n"]),
    endless(Socket, binary:copy(<<"x">>, 65536));
answer(Socket, {endless_chunk_size, Headers}) ->
    start_sse(Socket, Headers),
    endless(Socket, binary:copy(<<"1">>, 65536));
answer(Socket, endless_headers) ->
    _ = gen_tcp:send(Socket, status_line(200)),
    endless(Socket, iolist_to_binary([header_lines([{"x-filler", binary:copy(<<"y">>, 1000)}]) || _ <- lists:seq(1, 64)])).

%% `Bytes' again and again until the client goes.
endless(Socket, Bytes) ->
    case gen_tcp:send(Socket, Bytes) of
        ok -> endless(Socket, Bytes);
        {error, _} -> close
    end.

start_sse(Socket, Headers) ->
    send(Socket, [status_line(200), header_lines([{"content-type", "text/event-stream"},
                                                  {"transfer-encoding", "chunked"} | Headers]), "\r\n"]).

forever(Socket, Every, KeepAlive) ->
    case chunk(Socket, KeepAlive) of
        ok -> timer:sleep(Every), forever(Socket, Every, KeepAlive);
        _ -> close
    end.

chunk(Socket, Data) ->
    gen_tcp:send(Socket, [integer_to_list(iolist_size(Data), 16), "\r\n", Data, "\r\n"]).

send(Socket, Bytes) ->
    case gen_tcp:send(Socket, Bytes) of
        ok -> keep;
        _ -> close
    end.

status_line(Status) -> ["HTTP/1.1 ", integer_to_list(Status), " X\r\n"].

header_lines(Headers) -> [[Name, ": ", Value, "\r\n"] || {Name, Value} <- Headers].
