%% Test-only helpers the Gleam suites need and Gleam cannot express.
-module(mcp_test_ffi).
-export([rescue/1, bytes_of/2, os_process_alive/1, build_lib_dir/0, checkout_dir/0, read_text/1,
         describe_disagreements/0, term/1, death_reason/1, death_reasons_uncovered/1,
         death_reason_examples/0, death_reason_disagreements/0,
         everything_over_http/0, stop_http_peer/1,
         authorization_disagreements/0, protected_server/1, stop_protected_server/1,
         token_request_credentials/1, set_env/2, unset_env/1, directory_others_may_read/0,
         remove_directory/1, occupied_loopback_port/0, release_port/1,
         dpop_protected_server/0, proven_mcp_requests/1, token_request_assertions/1,
         kill_os_process/1, scratch_dir/0, remove_scratch_dir/1, erlang_accepts_reconnect/1]).

%% Runs Fun; `{error, Class}' (a binary) if it raised.
rescue(Fun) ->
    try Fun() of
        Value -> {ok, Value}
    catch
        Class:_ -> {error, atom_to_binary(Class)}
    end.

%% Count copies of the one-byte binary Byte.
bytes_of(Byte, Count) -> binary:copy(Byte, Count).


os_process_alive(OsPid) ->
    os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo yes") =:= "yes\n".

%% The directory holding this build's compiled applications (`mcp' among
%% them): an ERL_LIBS value for a child VM that needs `mcp_json'.
build_lib_dir() ->
    unicode:characters_to_binary(filename:dirname(filename:dirname(code:which(mcp_json)))).

%% SIGKILL to an OS process (a server the client runs).
kill_os_process(OsPid) ->
    [] = os:cmd("kill -9 " ++ integer_to_list(OsPid)),
    nil.

%% A new empty directory, and its removal with what it holds.
scratch_dir() ->
    unicode:characters_to_binary(string:trim(os:cmd("mktemp -d"))).

remove_scratch_dir(Dir) ->
    ok = file:del_dir_r(Dir),
    nil.

%% Whether the Erlang client, given a Gleam `Reconnect''s fields as its
%% `reconnect' option, makes a client (retired at once) rather than raising
%% `badarg'.
erlang_accepts_reconnect({reconnect, Attempts, Backoff, MaxBackoff, ResetAfter, Unresponsive}) ->
    Policy = #{attempts => Attempts, backoff_ms => Backoff, max_backoff_ms => MaxBackoff,
               reset_after_ms => ResetAfter, unresponsive_ms => Unresponsive},
    try mcp_client:prepare(#{executable => "/bin/true"}, #{reconnect => Policy}) of
        {ok, Client} ->
            {ok, no_resource} = mcp_client:shutdown(Client, 5000),
            true
    catch
        error:badarg -> false
    end.

%% The checkout this test runs in (the tests run in gleam/).
checkout_dir() ->
    {ok, Cwd} = file:get_cwd(),
    unicode:characters_to_binary(filename:dirname(Cwd)).

read_text(Path) ->
    {ok, Text} = file:read_file(Path),
    Text.

%% Every Erlang reason below, translated to its Gleam value
%% (`mcp_gleam_ffi') and described there, must read exactly as the command
%% line's sentence for the original (`mcp_describe'). Returns the
%% disagreements as text, so an empty list is agreement.
describe_disagreements() ->
    Deaths = [not_connected, retired, stopped, custodian_down,
              {transport_ended, {exited, {status, 3}}}, {transport_ended, {exited, {signal, 9}}},
              {transport_ended, {exited, unknown}}, {transport_ended, {exited, {peer_down, killed}}},
              {transport_ended, {unconfirmed, {port_exited, epipe}}},
              {write_failed, busy}, {write_failed, closed}, {write_failed, einval},
              {invalid_utf8, 7}, {line_too_long, 99}, {flooded, 1000},
              {malformed_message, {corruption_report, 3, <<"unexpected character">>}},
              {bad_message, <<"id is null">>},
              {client_down, noproc}, {client_down, {shutdown, crashed}},
              {transport_failed, {executable_not_found, "nope"}},
              tools_not_declared, {version_unsupported, <<"a">>, <<"b">>},
              {reconnecting, {transport_ended, {exited, {signal, 9}}}}],
    Retirements = [retirement_timed_out, {retirement_unconfirmed, {port_exited, epipe}},
                   {retirement_unconfirmed, {actor_down, noproc}},
                   {retirement_unconfirmed, {actor_down, killed}},
                   {retirement_unconfirmed, {watch_failed, eperm}}],
    Clients = [call_timed_out, too_many_pages, {listing_too_large, 4194304},
               {server_error, {rpc_error, -32602, <<"bad params">>, none}},
               {result_malformed, {protocol_fault, <<"$.content">>, <<"missing">>}},
               {result_malformed, {unsupported_version, <<"a">>, <<"b">>}}]
        ++ [{unavailable, Death} || Death <- Deaths],
    Starts = [{transport_failed, {executable_not_found, <<"nope">>}},
              {transport_failed, {spawn_failed, eacces}},
              {transport_failed, {spawn_failed, {weird, 1}}},
              {transport_failed, {bad_spawn, #{executable => 1}}},
              {transport_failed, {bad_transport_spec, {mcp_port, badarg}}},
              {transport_failed, already_connected},
              {transport_failed, native_library_not_loaded},
              {transport_failed, {not_parked, custodian_down}},
              {transport_failed, {not_parked, retired}},
              {transport_failed, {not_parked, {reconnecting, {transport_ended, {exited, {signal, 9}}}}}},
              {transport_failed, {jail_unavailable, {bwrap_not_found, "/no/bwrap"}}},
              {transport_failed, {bad_jail, {relative_path, "rel"}}},
              {transport_failed, {bad_stderr, {"/no/dir/err.log", enoent}}},
              {transport_failed, <<"the peer could not start">>},
              {transport_failed, {start_crashed, error, badarith}},
              {handshake_failed, call_timed_out},
              {version_unsupported, <<"a">>, <<"b">>}, tools_not_declared,
              {cleanup_unconfirmed, tools_not_declared, retirement_timed_out, no_client}]
        ++ [{handshake_failed, Client} || Client <- Clients],
    Check = fun(Translate, Describe, Cli, Reason) ->
                Gleam = mcp_gleam_ffi:Describe(mcp_gleam_ffi:Translate(Reason)),
                Erlang = unicode:characters_to_binary(mcp_describe:Cli(Reason)),
                case Gleam =:= Erlang of
                    true -> [];
                    false -> [unicode:characters_to_binary(
                                io_lib:format("~p:~n  gleam:  ~ts~n  erlang: ~ts", [Reason, Gleam, Erlang]))]
                end
            end,
    lists:append([Check(start_error, describe_start_error, start_error, R) || R <- Starts]
                 ++ [Check(client_error, describe_client_error, client_error, R) || R <- Clients]
                 ++ [Check(retirement_error, describe_retirement_error, retirement_error, R)
                     || R <- Retirements]).

%% Any Gleam value as the Erlang term it is.
term(Value) -> Value.

%% The Gleam `DeathReason' the adapter makes of an Erlang death reason.
death_reason(Reason) ->
    {unavailable, Translated} = mcp_gleam_ffi:client_error({unavailable, Reason}),
    Translated.

%% The alternatives of `mcp_client:death_reason()', read from its debug
%% info, that none of `Reasons' belongs to.
death_reasons_uncovered(Reasons) ->
    mcp_type_examples:uncovered(mcp_client, death_reason, Reasons).

%% How many terms `death_reason_disagreements/0' walks.
death_reason_examples() ->
    length(mcp_type_examples:examples(mcp_client, death_reason)).

%% Terms of `mcp_client:death_reason()' covering every alternative met in
%% it (through the types it names: evidence, faults, client errors), each
%% translated by the adapter and described: the disagreements with the
%% command line's sentence for the original, and the terms the adapter
%% does not translate, as text. An empty list is agreement.
death_reason_disagreements() ->
    lists:append([death_reason_disagreement(Reason)
                   || Reason <- mcp_type_examples:examples(mcp_client, death_reason)]).

death_reason_disagreement(Reason) ->
    disagreement(client_error, describe_client_error, client_error, {unavailable, Reason}).

%% server-everything serving Streamable HTTP on a free loopback port
%% (`mcp_http_peer', shared with the EUnit suites): its URL and the peer
%% to hand to `stop_http_peer/1'.
everything_over_http() ->
    Server = "../test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    Peer = mcp_http_peer:start(os:find_executable("node"), [Server, "streamableHttp"]),
    {unicode:characters_to_binary(mcp_http_peer:url(Peer)), Peer}.

stop_http_peer(Peer) -> mcp_http_peer:stop(Peer).

%% Every `{authorization_failed, Reason}' the Erlang side reports (and the
%% token store's refusal at connect), translated and described by the
%% adapter, against the command line's sentence for the original: the
%% disagreements as text, so an empty list is agreement.
authorization_disagreements() ->
    Reasons = [consent_needed, consent_timeout, {browser_not_found, <<"no-browser">>}, too_many_challenges,
               {resource_mismatch, <<"https://elsewhere.example/mcp">>}, no_resource_in_metadata,
               no_authorization_server, {bad_issuer, <<"(not a URL)">>},
               {no_authorization_server_metadata, <<"https://as.example">>},
               {issuer_mismatch, <<"https://other.example">>}, {issuer_mismatch, none},
               {no_endpoint, <<"token_endpoint">>}, {bad_endpoint, <<"authorization_endpoint">>},
               {plaintext_endpoint, <<"http://as.example/token">>}, no_client_registration,
               {registration_refused, 400, <<"invalid_client_metadata">>}, {registration_refused, 400, none},
               {registration_refused, 201}, state_mismatch, iss_mismatch, iss_missing,
               {authorization_denied, <<"access_denied">>}, no_authorization_code,
               {token_refused, 401, <<"invalid_client">>}, {token_refused, 500, none},
               {token_refused, 200, no_access_token}, bad_private_key,
               {token_store, {token_file_permissions, <<"/tmp/tokens">>}},
               {http_failed, <<"https://as.example/token">>, failed_connect},
               no_refresh_token, {session_down, killed}, {internal, error, [{mcp_oauth, token}]}],
    Deaths = [{unavailable, {authorization_failed, Reason}} || Reason <- Reasons],
    Starts = [{transport_failed, {oauth, {token_file_permissions, <<"/tmp/tokens">>}}},
              {transport_failed, {oauth, {token_file_unreadable, <<"/tmp/tokens/x.json">>}}},
              {transport_failed, {oauth, eacces}}],
    lists:append([disagreement(client_error, describe_client_error, client_error, E) || E <- Deaths]
                 ++ [disagreement(start_error, describe_start_error, start_error, E) || E <- Starts]).

disagreement(Translate, Describe, Cli, Reason) ->
    try mcp_gleam_ffi:Describe(mcp_gleam_ffi:Translate(Reason)) of
        Gleam ->
            case unicode:characters_to_binary(mcp_describe:Cli(Reason)) of
                Gleam -> [];
                Erlang -> [unicode:characters_to_binary(
                             io_lib:format("~p:~n  gleam:  ~ts~n  erlang: ~ts", [Reason, Gleam, Erlang]))]
            end
    catch
        Class:Why -> [unicode:characters_to_binary(io_lib:format("~p: not translated (~p:~p)", [Reason, Class, Why]))]
    end.

%% A protected MCP server and its authorization server (`mcp_oauth_fake',
%% shared with the EUnit suites): its URL and the fake. Its token endpoint
%% grants the one token `/mcp' accepts, or, `Refuse' true, answers 401
%% `invalid_client'.
protected_server(Refuse) ->
    Token = case Refuse of
                false -> fun(_) -> mcp_oauth_fake:token_answer(<<"tok-gleam-7c1d">>, []) end;
                true -> fun(_) -> {401, {object, [{<<"error">>, {string, <<"invalid_client">>}}]}} end
            end,
    Fake = mcp_oauth_fake:start(#{accepted => <<"tok-gleam-7c1d">>, token => Token}),
    {mcp_oauth_fake:url(Fake), Fake}.

stop_protected_server(Fake) -> mcp_oauth_fake:stop(Fake).

%% A protected server whose authorization server issues DPoP-bound tokens
%% to any grant, and which takes `Authorization: DPoP <token>' with a
%% `DPoP' proof (the EUnit suite mcp_oauth_dpop_tests checks the proof's
%% claims and signature).
dpop_protected_server() ->
    Token = <<"tok-gleam-dpop-3b9e">>,
    Grant = fun(_) -> {200, {object, [{<<"access_token">>, {string, Token}}, {<<"token_type">>, {string, <<"DPoP">>}},
                                      {<<"expires_in">>, {int, 3600}}]}} end,
    Bound = fun(#{headers := Headers, body := Body}) ->
                    Proven = proplists:is_defined(<<"dpop">>, Headers),
                    case proplists:get_value(<<"authorization">>, Headers) =:= <<"DPoP ", Token/binary>> of
                        true when Proven -> mcp_oauth_fake:answer(Body);
                        _ -> default
                    end
            end,
    Fake = mcp_oauth_fake:start(#{token => Grant, mcp => Bound}),
    {mcp_oauth_fake:url(Fake), Fake}.

%% How many requests so far reached `/mcp' with a DPoP token and a proof.
proven_mcp_requests(Fake) ->
    length([R || #{path := <<"/mcp">>, headers := Headers} = R <- mcp_oauth_fake:requests(Fake),
                 proplists:is_defined(<<"dpop">>, Headers),
                 <<"DPoP ", _/binary>> <- [proplists:get_value(<<"authorization">>, Headers, <<>>)]]).

%% The `assertion' of each token request so far.
token_request_assertions(Fake) ->
    [maps:get(<<"assertion">>, maps:from_list(uri_string:dissect_query(Body)), <<>>)
     || #{path := <<"/token">>, body := Body} <- mcp_oauth_fake:requests(Fake)].

%% The `client_id:client_secret' of each token request so far (HTTP Basic).
token_request_credentials(Fake) ->
    [base64:decode(Encoded)
     || #{path := <<"/token">>, headers := Headers} <- mcp_oauth_fake:requests(Fake),
        <<"Basic ", Encoded/binary>> <- [proplists:get_value(<<"authorization">>, Headers, <<>>)]].

set_env(Name, Value) ->
    true = os:putenv(unicode:characters_to_list(Name), unicode:characters_to_list(Value)),
    nil.

unset_env(Name) ->
    true = os:unsetenv(unicode:characters_to_list(Name)),
    nil.

%% A fresh directory mode 0755 (others may read it): a token store refused.
directory_others_may_read() ->
    Dir = filename:join(["/tmp", "mcp-gleam-oauth-" ++ binary_to_list(binary:encode_hex(crypto:strong_rand_bytes(8)))]),
    ok = file:make_dir(Dir),
    ok = file:change_mode(Dir, 8#755),
    unicode:characters_to_binary(Dir).

remove_directory(Dir) ->
    ok = file:del_dir(Dir),
    nil.

%% A loopback port held by a listening socket of the caller's, and its number.
occupied_loopback_port() ->
    {ok, Socket} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(Socket),
    {Socket, Port}.

release_port(Socket) ->
    ok = gen_tcp:close(Socket),
    nil.
