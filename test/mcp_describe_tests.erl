%% mcp_describe: every constructor of the start, client, death and
%% retirement vocabularies reads as a sentence with no Erlang term syntax,
%% and has a rendering of its own (not the fallback); unknown terms still
%% read as words.
-module(mcp_describe_tests).

-include_lib("eunit/include/eunit.hrl").

-define(FALLBACK, "does not describe").

corruption() -> {corruption_report, 0, <<"unexpected character">>}.

deaths() ->
    [{transport_ended, {exit_status, 3}},
     {transport_ended, {exit_status, 137}},
     {transport_ended, {exited, {status, 1}}},
     {transport_ended, {exited, {signal, 9}}},
     {transport_ended, {exited, {signal, kill}}},
     {transport_ended, {exited, {peer_down, killed}}},
     {transport_ended, {exited, unknown}},
     {transport_ended, {exited, normal}},
     {transport_ended, {unconfirmed, {port_exited, epipe}}},
     transport_ended,
     {invalid_utf8, 12},
     {line_too_long, 16777217},
     {malformed_message, corruption()},
     {bad_message, <<"missing jsonrpc">>},
     {write_failed, busy},
     {write_failed, closed},
     {flooded, 33554432},
     {response_too_large, 3145728},
     {http_status, 400},
     {http_failed, {failed_connect, [{to_address, {"mcp.example.com", 443}}, {inet, [inet], nxdomain}]}},
     {http_failed, {failed_connect, [{to_address, {"mcp.example.com", 443}}, {inet, [inet], {tls_alert, {unknown_ca, "x"}}}]}},
     {http_failed, {failed_connect, [{to_address, {"mcp.example.com", 443}}, {inet, [inet], {tls_alert, {handshake_failure, "x"}}}]}},
     {authorization_failed, consent_needed},
     {authorization_failed, too_many_challenges},
     {authorization_failed, {resource_mismatch, <<"https://a/mcp">>}},
     {authorization_failed, {issuer_mismatch, <<"https://a">>}},
     {authorization_failed, iss_mismatch},
     {authorization_failed, state_mismatch},
     {authorization_failed, {token_refused, 400, <<"invalid_grant">>}},
     {authorization_failed, {registration_refused, 403}},
     {authorization_failed, no_client_registration},
     {authorization_failed, {body_too_long, 3145728}},
     {authorization_failed, {local_endpoint, <<"http://127.0.0.1:8080/admin">>}},
     stopped, retired, custodian_down, not_connected,
     {client_down, noproc},
     tools_not_declared,
     {version_unsupported, <<"2025-06-18">>, <<"1999-01-01">>},
     {handshake_failed, call_timed_out}]
    ++ [{authorization_failed, Reason} || Reason <- authorization_failures()].

%% What `mcp_oauth*' and `mcp_http' report as `{authorization_failed, _}'
%% and have a sentence for.
authorization_failures() ->
    [consent_needed, consent_timeout, too_many_challenges,
     {resource_mismatch, <<"https://elsewhere.example/mcp">>},
     {issuer_mismatch, <<"https://other.example">>}, iss_mismatch, iss_missing, state_mismatch,
     {token_refused, 401, <<"invalid_client">>}, {registration_refused, 201},
     {registration_refused, 400, <<"invalid_client_metadata">>}, no_client_registration,
     {token_store, {token_file_permissions, <<"/home/u/.config/mcp/oauth">>}},
     {token_unusable, malformed}, {token_unusable, too_long}, {token_type_unsupported, <<"DPoP">>},
     {unstated_endpoint, <<"token_endpoint">>}, no_token, no_refresh_token, {challenge_too_long, 400000},
     {private_endpoint, <<"https://10.0.0.1/token">>}, {unresolved_endpoint, <<"https://as.invalid/token">>},
     {plaintext_headers, <<"mcp.example.com">>}].

client_errors() ->
    [{unavailable, Death} || Death <- deaths()]
    ++ [call_timed_out,
        {server_error, {rpc_error, -32602, <<"unknown tool">>, none}},
        {result_malformed, {protocol_fault, <<"$.content">>, <<"expected array">>}},
        {result_malformed, {unsupported_version, <<"2025-06-18">>, <<"1999">>}},
        too_many_pages, {listing_too_large, 4194304}].

start_errors() ->
    [{transport_failed, {executable_not_found, <<"srv">>}},
     {transport_failed, {unsupported_proxy, "https_proxy"}},
     {transport_failed, {executable_not_found, "srv"}},
     {transport_failed, {spawn_failed, eacces}},
     {transport_failed, already_connected},
     {transport_failed, native_library_not_loaded},
     {transport_failed, {not_parked, stopped}},
     {transport_failed, {not_parked, custodian_down}},
     {transport_failed, {bad_stderr, {"/nonexistent/err.log", enoent}}},
     {transport_failed, {bad_stderr, loud}},
     {transport_failed, {bad_spawn, #{}}},
     {transport_failed, {bad_transport_spec, {x, y}}},
     {transport_failed, {jail_unavailable, {bwrap_not_found, "bwrap"}}},
     {transport_failed, {jail_unavailable, {bwrap_not_found, "/opt/bwrap"}}},
     {transport_failed, {jail_unavailable, {probe_failed, 1, <<"bwrap: No permissions to create new namespace">>}}},
     {transport_failed, {jail_unavailable, probe_timed_out}},
     {transport_failed, {jail_unavailable, {unsupported_architecture, "riscv64-unknown-linux-gnu"}}},
     {transport_failed, {jail_unavailable, {launcher_missing, "/opt/mcp/priv/mcp-landlock"}}},
     {transport_failed, {jail_unavailable, landlock_unavailable}},
     {transport_failed, {bad_jail, {unknown_option, network}}},
     {transport_failed, {bad_jail, {unknown_profile, loose}}},
     {transport_failed, {bad_jail, {not_a_boolean, {net, yes}}}},
     {transport_failed, {bad_jail, {not_a_list, {read, "/etc"}}}},
     {transport_failed, {bad_jail, {not_a_path, 3}}},
     {transport_failed, {bad_jail, {relative_path, "work"}}},
     {transport_failed, {bad_jail, {parent_reference, "/a/../b"}}},
     {transport_failed, {bad_jail, {nul_character, "/a\0"}}},
     {transport_failed, {bad_jail, {missing_grant, "/nope"}}},
     {transport_failed, {bad_jail, {executable_hidden, "/tmp/s"}}},
     {transport_failed, {bad_jail, {executable_hidden, {"/tmp/x/node_modules/.bin/s", "/tmp/x/node_modules/s/cli.js",
                                                        "/tmp/x/node_modules"}}}},
     {transport_failed, {bad_jail, {cd_hidden, "/tmp/w"}}},
     {version_unsupported, <<"2025-06-18">>, <<"1999-01-01">>},
     tools_not_declared,
     {cleanup_unconfirmed, {handshake_failed, call_timed_out}, retirement_timed_out, client}]
    ++ [{handshake_failed, Error} || Error <- client_errors()].

retirement_errors() ->
    [retirement_timed_out,
     {retirement_unconfirmed, {port_exited, epipe}},
     {retirement_unconfirmed, {actor_down, noproc}}].

retirements() ->
    [no_resource, {exited, 137}, {exited, {status, 0}}, {exited, {signal, 9}},
     {exited, {signal, kill}}, {exited, {peer_down, killed}}, {exited, unknown}].

refusals() ->
    [{too_many_tools, 300, 256}, {tool_name_collision, <<"a-b">>, <<"a_b">>},
     {surface_too_large, 70000, 65536}, {sanitizer_breach, 12}].

every_constructor_reads_as_a_sentence_test_() ->
    Cases = [{death, D} || D <- deaths()]
        ++ [{client_error, E} || E <- client_errors()]
        ++ [{start_error, E} || E <- start_errors()]
        ++ [{retirement_error, E} || E <- retirement_errors()]
        ++ [{retirement, E} || E <- retirements()]
        ++ [{refusal, E} || E <- refusals()],
    [{lists:flatten(io_lib:format("~p ~0p", [F, T])),
      fun() ->
              Text = flat(mcp_describe:F(T)),
              assert_sentence(Text),
              ?assertEqual(nomatch, string:find(Text, ?FALLBACK))
      end} || {F, T} <- Cases].

%% An improper list among the unknown terms, on purpose.
-dialyzer({no_improper_lists, unknown_terms_still_read_as_words_test_/0}).
unknown_terms_still_read_as_words_test_() ->
    Unknown = [{weird, 1, <<"x">>, [a, b], #{k => v}, self(), make_ref(), 1.5},
               [1, 2 | 3], {}, {{nested, {deeper, {deepest, {gone, x}}}}},
               lists:seq(1, 100), <<255, 0>>, fun() -> ok end],
    [{lists:flatten(io_lib:format("~p ~0p", [F, T])),
      fun() -> assert_sentence(flat(mcp_describe:F(T))) end}
     || T <- Unknown, F <- [death, client_error, start_error, retirement_error, refusal]].

assert_sentence(Text) ->
    ?assert(length(Text) > 10),
    ?assertEqual(nomatch, re:run(Text, "[{}\\[\\]]|<<|>>|#\\{|#Ref|#Fun|<\\d+\\.\\d+\\.\\d+>", [unicode])),
    ?assertNot(lists:member($\n, Text)).

%% A server that prints a banner on stdout: a common mistake.
banner_on_stdout_explains_itself_test() ->
    Text = flat(mcp_describe:start_error({handshake_failed, {unavailable, {malformed_message, corruption()}}})),
    ?assertEqual("the handshake failed because the server wrote a line that is not JSON (unexpected "
                 "character at byte 0); servers must keep stdout for protocol messages, so a banner "
                 "or log line printed there ends the session: see its stderr above", Text).

%% A remote server's retirement ends a session, not the server.
remote_retirement_says_the_server_runs_on_test_() ->
    [?_assertEqual(Expected, flat(mcp_describe:retirement({exited, {peer_down, {http_session, Session}}})))
     || {Session, Expected} <-
            [{deleted, "every connection to the remote server closed and its HTTP session was ended "
                       "with DELETE; the server itself runs on"},
             {no_session, "every connection to the remote server closed (it kept no HTTP session); "
                          "the server itself runs on"},
             {{status, 405}, "every connection to the remote server closed (it answered the session's "
                             "DELETE with HTTP 405); the server itself runs on"},
             {{failed, timeout}, "every connection to the remote server closed (the session's DELETE "
                                 "failed: timeout); the server itself runs on"}]].

%% -32601 to the handshake: not an MCP server of this era, or an echo (cat).
method_not_found_at_the_handshake_names_the_likely_causes_test() ->
    Text = flat(mcp_describe:start_error({handshake_failed, {server_error, {rpc_error, -32601, <<"Method not found">>, none}}})),
    ?assertMatch({match, _}, re:run(Text, "-32601 \\(method not found\\), so it is not an MCP server of this "
                                          "protocol era \\(--era chooses another\\), or it is a program that "
                                          "writes back what it reads, as cat does$")),
    %% other server errors keep the server's own words
    ?assertEqual("the handshake failed: server error -32602: bad params",
                 flat(mcp_describe:start_error({handshake_failed, {server_error, {rpc_error, -32602, <<"bad params">>, none}}}))).

evidence_names_the_signal_test() ->
    ?assertEqual("with exit status 137 (128 + SIGKILL)", flat(mcp_describe:evidence({exit_status, 137}))),
    ?assertEqual("killed by SIGKILL (signal 9)", flat(mcp_describe:evidence({exited, {signal, 9}}))),
    ?assertEqual("with exit status 1", flat(mcp_describe:evidence({exited, {status, 1}}))).

server_text_is_printable_and_capped_test() ->
    Text = flat(mcp_describe:client_error({server_error, {rpc_error, -1, <<"bad\e[2J", 0:8000000>>, none}})),
    ?assertEqual(nomatch, string:find(Text, "\e")),
    ?assert(length(Text) < 500).

%% Two 8 MB names that collide: the refusal stays one short line.
collision_refusal_is_capped_test() ->
    A = binary:copy(<<"a">>, 8 * 1024 * 1024),
    Text = flat(mcp_describe:refusal({tool_name_collision, <<A/binary, "-x">>, <<A/binary, "_x">>})),
    ?assert(length(Text) =< 2 * 400 + 1),
    ?assertMatch({match, _}, re:run(Text, "^tool names \"a+…", [unicode])).

flat(IoData) -> unicode:characters_to_list(IoData).

%% The path is the fault's own JSON path notation (brackets are its syntax).
result_fault_names_its_path_test() ->
    ?assertEqual("the server's result is malformed at $.tools[3].name: expected string",
                 flat(mcp_describe:client_error({result_malformed, {protocol_fault, <<"$.tools[3].name">>,
                                                                      <<"expected string">>}}))).

jail_errors_name_the_path_test_() ->
    Text = fun(Reason) -> flat(mcp_describe:start_error({transport_failed, Reason})) end,
    [?_assertEqual("the server was not started: the jail is not valid: the granted path /nope does not exist",
                   Text({bad_jail, {missing_grant, "/nope"}})),
     ?_assertEqual("the server was not started: the jail cannot run here (no bwrap at /opt/bwrap)",
                   Text({jail_unavailable, {bwrap_not_found, "/opt/bwrap"}})),
     ?_assertEqual("the server was not started: the jail is not valid: the path work is not absolute",
                   Text({bad_jail, {relative_path, "work"}})),
     ?_assertEqual("the server was not started: the jail is not valid: the executable /tmp/x/.bin/s is a link to "
                   "/tmp/x/s/cli.js, which is hidden inside the jail (under /tmp, /run or a denied path), so the link "
                   "leads nowhere there; granting the link's directory does not show its target: grant /tmp/x with "
                   "--allow-read",
                   Text({bad_jail, {executable_hidden, {"/tmp/x/.bin/s", "/tmp/x/s/cli.js", "/tmp/x"}}}))].

%% A jailed launcher that ended before the handshake: the launcher, its
%% caches, --allow-net.
offline_launcher_names_the_cache_and_allow_net_test() ->
    Text = flat(mcp_describe:offline_launcher(#{launcher => uvx, caches => ["/h/.cache/uv", "/h/.local/share/uv/tools"]})),
    assert_sentence(Text),
    ?assertEqual("uvx runs without the network in the jail, from its cache (/h/.cache/uv, /h/.local/share/uv/tools): "
                 "a package that is not in the cache yet cannot be fetched; --allow-net gives it the network (what it "
                 "fetches stays in the jail's copy and is gone after the run), or fill the cache outside the jail "
                 "first (docs/jail.md, \"Launchers\")", Text).

%% A line past a lowered cap is not said to pass the 16 MiB default as if
%% that were the limit in force, nor to lack a newline.
line_too_long_names_the_length_and_the_spawn_option_test() ->
    Text = flat(mcp_describe:death({line_too_long, 16})),
    ?assertNotEqual(nomatch, string:find(Text, "at least 16 bytes")),
    ?assertNotEqual(nomatch, string:find(Text, "max_line_bytes")),
    ?assertEqual(nomatch, string:find(Text, "without a newline")).
