%% @doc How `bin/mcp-gen' authorizes with a remote server (OAuth 2.1,
%% `mcp_oauth'): the command-line flags, the config file's `"oauth"' object
%% of a remote entry, and the `mcp_oauth:config()' they make.
%%
%% Every remote server is opened with authorization on: a token stored by
%% `mcp-gen login' (or an earlier run) is used and renewed with no person;
%% a server that asks for consent when no browser is configured fails with
%% "run mcp-gen login". Secrets never appear on the command line: a client
%% secret is named by the environment variable holding it
%% (`--client-secret-env VAR', `"client_secret_env"'), a private key by
%% its PEM file; both are read when the client is opened and never echoed
%% (an error names the variable or the file, never the value). An
%% assertion (`--assertion-file', `--assertion-env': the JWT-bearer grant
%% of workload identity) and an identity provider's ID token
%% (`--id-token-file', `--id-token-env': enterprise-managed authorization,
%% exchanged at `--idp-token-endpoint') are named the same way and read
%% on each use. `--dpop' binds the tokens to a key (DPoP).
-module(mcp_cli_oauth).

-export([flags/0, options/1, from_config/1, config/3, help/0]).
-export_type([given/0]).

-type given() :: #{browser => string() | paste, client_id => binary(), client_secret_env => string(),
                   issuer => binary(),
                   private_key_file => string(), signing_alg => binary(),
                   grant => authorization_code | client_credentials,
                   client_metadata_url => binary(), scopes => [binary()], token_dir => string(),
                   redirect_port => string() | 1..65535, dpop => boolean(),
                   assertion => mcp_oauth_grant:source(), identity_assertion => mcp_oauth_grant:source(),
                   idp_token_endpoint => binary(), idp_client_id => binary(), idp_client_secret_env => string()}.

-spec flags() -> [{string(), atom(), value | switch | repeated}].
flags() ->
    [{"--browser", browser, value}, {"--client-id", client_id, value}, {"--issuer", issuer, value},
     {"--client-secret-env", client_secret_env, value}, {"--private-key-file", private_key_file, value},
     {"--signing-alg", signing_alg, value}, {"--client-credentials", client_credentials, switch},
     {"--client-metadata-url", client_metadata_url, value}, {"--scope", scope, repeated},
     {"--token-dir", token_dir, value}, {"--redirect-port", redirect_port, value},
     {"--paste-redirect", paste_redirect, switch}, {"--dpop", dpop, switch},
     {"--assertion-file", assertion_file, value}, {"--assertion-env", assertion_env, value},
     {"--id-token-file", id_token_file, value}, {"--id-token-env", id_token_env, value},
     {"--idp-token-endpoint", idp_token_endpoint, value}, {"--idp-client-id", idp_client_id, value},
     {"--idp-client-secret-env", idp_client_secret_env, value}].

-spec help() -> iolist().
help() ->
    "  --browser CMD    authorization: hand the authorization URL to CMD (run with\n"
    "                   the URL as its argument) instead of asking for `login`\n"
    "  --client-id ID   a client id registered with the authorization server\n"
    "  --client-secret-env VAR  its secret, read from the environment variable VAR\n"
    "  --issuer URL     the authorization server a secret, key or assertion belongs\n"
    "                   to: another is refused (default: the one met first)\n"
    "  --private-key-file PEM   authenticate with a signed JWT (private_key_jwt)\n"
    "  --signing-alg ALG        the JWT's algorithm (default ES256)\n"
    "  --client-credentials     no person: the client credentials grant\n"
    "  --client-metadata-url URL  this client's metadata document (its client id\n"
    "                   where the authorization server accepts one)\n"
    "  --scope SCOPE    ask for SCOPE instead of the server's (repeatable)\n"
    "  --token-dir DIR  keep tokens in DIR (default ~/.config/mcp/oauth, mode 0700)\n"
    "  --redirect-port N  receive the authorization at http://127.0.0.1:N/callback\n"
    "                   (a pre-registered client's fixed redirect URI; default: any port)\n"
    "  --paste-redirect print the URL and take the address the browser ends on,\n"
    "                   pasted on standard input (a browser on another machine)\n"
    "  --dpop           bind the tokens to a key of this client (DPoP, RFC 9449)\n"
    "  --assertion-file FILE, --assertion-env VAR  no person: the JWT-bearer grant\n"
    "                   of the assertion in FILE or VAR (workload identity)\n"
    "  --id-token-file FILE, --id-token-env VAR  no person: enterprise-managed\n"
    "                   authorization, the identity provider's ID token in FILE or VAR\n"
    "                   exchanged at --idp-token-endpoint URL (as --idp-client-id ID,\n"
    "                   --idp-client-secret-env VAR) for the authorization server\n".

%% @doc The command's `oauth' options from its flags.
-spec options(#{atom() => term()}) -> {ok, #{oauth => given()}} | {error, iolist()}.
options(Flags) ->
    Given = maps:from_list(
              [{browser, B} || B <- [maps:get(browser, Flags, none)], B =/= none]
              ++ [{client_id, unicode:characters_to_binary(I)} || I <- [maps:get(client_id, Flags, none)], I =/= none]
              ++ [{issuer, unicode:characters_to_binary(I)} || I <- [maps:get(issuer, Flags, none)], I =/= none]
              ++ [{client_secret_env, E} || E <- [maps:get(client_secret_env, Flags, none)], E =/= none]
              ++ [{private_key_file, filename:absname(F)} || F <- [maps:get(private_key_file, Flags, none)], F =/= none]
              ++ [{signing_alg, unicode:characters_to_binary(A)} || A <- [maps:get(signing_alg, Flags, none)], A =/= none]
              ++ [{grant, client_credentials} || maps:get(client_credentials, Flags, false)]
              ++ [{client_metadata_url, unicode:characters_to_binary(U)} || U <- [maps:get(client_metadata_url, Flags, none)], U =/= none]
              ++ [{scopes, [unicode:characters_to_binary(S) || S <- Scopes]} || Scopes <- [maps:get(scope, Flags, [])], Scopes =/= []]
              ++ [{token_dir, filename:absname(D)} || D <- [maps:get(token_dir, Flags, none)], D =/= none]
              ++ [{redirect_port, P} || P <- [maps:get(redirect_port, Flags, none)], P =/= none]
              ++ [{browser, paste} || maps:get(paste_redirect, Flags, false)]
              ++ [{dpop, true} || maps:get(dpop, Flags, false)]
              ++ [{assertion, {file, filename:absname(F)}} || F <- [maps:get(assertion_file, Flags, none)], F =/= none]
              ++ [{assertion, {env, V}} || V <- [maps:get(assertion_env, Flags, none)], V =/= none]
              ++ [{identity_assertion, {file, filename:absname(F)}} || F <- [maps:get(id_token_file, Flags, none)], F =/= none]
              ++ [{identity_assertion, {env, V}} || V <- [maps:get(id_token_env, Flags, none)], V =/= none]
              ++ [{idp_token_endpoint, unicode:characters_to_binary(U)} || U <- [maps:get(idp_token_endpoint, Flags, none)], U =/= none]
              ++ [{idp_client_id, unicode:characters_to_binary(I)} || I <- [maps:get(idp_client_id, Flags, none)], I =/= none]
              ++ [{idp_client_secret_env, V} || V <- [maps:get(idp_client_secret_env, Flags, none)], V =/= none]),
    Twice = [Flag || {Flag, Keys} <- [{"--assertion-file and --assertion-env", [assertion_file, assertion_env]},
                                       {"--id-token-file and --id-token-env", [id_token_file, id_token_env]}],
                     lists:all(fun(Key) -> is_map_key(Key, Flags) end, Keys)],
    case {Twice, checked(Given)} of
        {[Both | _], _} -> {error, [Both, " are alternatives: give one"]};
        {[], Checked} -> given(Checked, Given)
    end.

given(Checked, Given) ->
    case Checked of
        ok when Given =:= #{} -> {ok, #{}};
        ok -> {ok, #{oauth => Given}};
        {error, _} = Error -> Error
    end.

checked(#{redirect_port := Port}) when is_list(Port) ->
    case string:to_integer(Port) of
        {N, ""} when N >= 1, N =< 65535 -> ok;
        _ -> {error, "--redirect-port takes a port number from 1 to 65535"}
    end;
checked(#{assertion := _, identity_assertion := _}) ->
    {error, "an assertion (--assertion-*) and an ID token (--id-token-*) are alternatives: give one"};
checked(#{identity_assertion := _} = Given) when not is_map_key(idp_token_endpoint, Given) ->
    {error, "an ID token (--id-token-*) needs --idp-token-endpoint URL"};
checked(#{client_secret_env := _, private_key_file := _}) ->
    {error, "--client-secret-env and --private-key-file are alternatives: give one"};
checked(#{grant := client_credentials} = Given) when not is_map_key(client_id, Given) ->
    {error, "--client-credentials needs --client-id and its secret or key"};
checked(#{grant := client_credentials} = Given)
  when not is_map_key(client_secret_env, Given), not is_map_key(private_key_file, Given) ->
    {error, "--client-credentials needs --client-secret-env VAR or --private-key-file PEM"};
checked(_Given) ->
    ok.

%% @doc A remote entry's `"oauth"' object: `client_id', `issuer', `client_secret_env',
%% `private_key_file', `signing_alg', `grant' (`"authorization_code"' or
%% `"client_credentials"'), `client_metadata_url', `scopes' (strings),
%% `redirect_port' (1..65535), `dpop' (a boolean), `assertion_file' or
%% `assertion_env' (the JWT-bearer grant's assertion), `id_token_file' or
%% `id_token_env' with `idp_token_endpoint', `idp_client_id' and
%% `idp_client_secret_env' (enterprise-managed authorization).
-spec from_config(none | {given, mcp_json:json()}) -> {ok, #{oauth => given()}} | {error, iolist()}.
from_config(none) ->
    {ok, #{}};
from_config({given, {object, Members}}) ->
    Pairs = [config_pair(Key, Value) || {Key, Value} <- Members],
    case [Bad || {error, Bad} <- Pairs] of
        [] -> {ok, #{oauth => maps:from_list([Pair || {ok, Pair} <- Pairs])}};
        [Bad | _] -> {error, ["has an \"oauth\" ", Bad]}
    end;
from_config({given, _}) ->
    {error, "has \"oauth\" that is not an object"}.

config_pair(<<"client_id">>, {string, V}) -> {ok, {client_id, V}};
config_pair(<<"issuer">>, {string, V}) -> {ok, {issuer, V}};
config_pair(<<"client_secret_env">>, {string, V}) -> {ok, {client_secret_env, binary_to_list(V)}};
config_pair(<<"private_key_file">>, {string, V}) -> {ok, {private_key_file, binary_to_list(V)}};
config_pair(<<"signing_alg">>, {string, V}) -> {ok, {signing_alg, V}};
config_pair(<<"grant">>, {string, <<"client_credentials">>}) -> {ok, {grant, client_credentials}};
config_pair(<<"grant">>, {string, <<"authorization_code">>}) -> {ok, {grant, authorization_code}};
config_pair(<<"client_metadata_url">>, {string, V}) -> {ok, {client_metadata_url, V}};
config_pair(<<"scopes">>, {array, Items}) -> {ok, {scopes, [S || {string, S} <- Items]}};
config_pair(<<"redirect_port">>, {int, Port}) when Port >= 1, Port =< 65535 -> {ok, {redirect_port, Port}};
config_pair(<<"dpop">>, {bool, Dpop}) -> {ok, {dpop, Dpop}};
config_pair(<<"assertion_file">>, {string, V}) -> {ok, {assertion, {file, binary_to_list(V)}}};
config_pair(<<"assertion_env">>, {string, V}) -> {ok, {assertion, {env, binary_to_list(V)}}};
config_pair(<<"id_token_file">>, {string, V}) -> {ok, {identity_assertion, {file, binary_to_list(V)}}};
config_pair(<<"id_token_env">>, {string, V}) -> {ok, {identity_assertion, {env, binary_to_list(V)}}};
config_pair(<<"idp_token_endpoint">>, {string, V}) -> {ok, {idp_token_endpoint, V}};
config_pair(<<"idp_client_id">>, {string, V}) -> {ok, {idp_client_id, V}};
config_pair(<<"idp_client_secret_env">>, {string, V}) -> {ok, {idp_client_secret_env, binary_to_list(V)}};
config_pair(Key, _) -> {error, ["key ", mcp_printable:printable(Key, line, mcp_printable:name_chars()),
                                " that is unknown or of the wrong type"]}.

%% @doc The `mcp_oauth:config()' of a run: the config file's options under
%% the command line's, with the secret and key read now. `login' hands the
%% URL to a person (printed) unless `--browser' names a command.
-spec config(login | atom(), given(), given()) -> {ok, mcp_oauth:config()} | {error, iolist()}.
config(Subcommand, FromFile, FromFlags) ->
    Given = maps:merge(FromFile, FromFlags),
    Browser = case {Given, Subcommand} of
                  {#{browser := Command}, _} -> Command;
                  {_, login} -> print;
                  _ -> none
              end,
    Base = maps:merge(maps:with([client_id, issuer, client_metadata_url, scopes, grant, dpop, assertion, identity_assertion,
                                 idp_token_endpoint, idp_client_id], Given),
                      maps:from_list([{redirect_port, port(P)} || P <- [maps:get(redirect_port, Given, none)], P =/= none]
                                     ++ [{grant, G} || G <- [assertion_grant(Given)], G =/= none])),
    Store = {dir, maps:get(token_dir, Given, mcp_oauth_token_store:default_dir())},
    case {secrets(Given), idp_secret(Given)} of
        {{ok, Secrets}, {ok, IdpSecret}} -> {ok, maps:merge(maps:merge(Base#{browser => Browser, store => Store}, Secrets), IdpSecret)};
        {{error, _} = Error, _} -> Error;
        {_, {error, _} = Error} -> Error
    end.

%% The grant an assertion or an ID token names (no person).
assertion_grant(#{assertion := _}) -> jwt_bearer;
assertion_grant(#{identity_assertion := _}) -> token_exchange;
assertion_grant(_) -> none.

idp_secret(#{idp_client_secret_env := Var}) ->
    case os:getenv(Var) of
        false -> {error, ["the identity provider's client secret's variable ", Var, " is not set"]};
        Secret -> {ok, #{idp_client_secret => unicode:characters_to_binary(Secret)}}
    end;
idp_secret(_Given) ->
    {ok, #{}}.

port(Port) when is_integer(Port) -> Port;
port(Port) -> list_to_integer(Port).

secrets(#{client_secret_env := Var}) ->
    case os:getenv(Var) of
        false -> {error, ["the client secret's variable ", Var, " is not set"]};
        Secret -> {ok, #{client_secret => unicode:characters_to_binary(Secret)}}
    end;
secrets(#{private_key_file := File} = Given) ->
    case file:read_file(File) of
        {ok, Pem} -> {ok, #{private_key_pem => Pem, signing_algorithm => maps:get(signing_alg, Given, <<"ES256">>)}};
        {error, Reason} -> {error, ["the private key file ", File, " cannot be read: ", file:format_error(Reason)]}
    end;
secrets(_Given) ->
    {ok, #{}}.
