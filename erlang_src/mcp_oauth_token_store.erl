%% @doc Where the tokens of one remote MCP server are kept between runs:
%% a file only the user can read, or a store the harness supplies.
%%
%% A store is `none' (nothing kept), `{dir, Dir}' (one file per server,
%% named by the SHA-256 of its URL, holding the authorization server's
%% issuer, the client registration and the tokens), or `{callback, Load,
%% Save}' (funs of the harness: `Load(ServerUrl) -> {ok, Map} | none',
%% `Save(ServerUrl, Map) -> ok').
%%
%% Invariants: the directory is created with mode 0700 and each file with
%% 0600 (written beside it and renamed into place, so no reader sees half
%% a file); a directory or file that group or others may read or write is
%% refused (`{error, {token_file_permissions, Path}}') and never read. The
%% map held is `record()'; its values are returned to the caller only,
%% never in an error.
-module(mcp_oauth_token_store).

-export([load/2, save/3, default_dir/0]).
-export_type([store/0, record/0]).

-type store() :: none | {dir, file:filename_all()}
               | {callback, fun((binary()) -> {ok, record()} | none), fun((binary(), record()) -> ok)}.
-type record() :: #{binary() => binary() | integer() | [binary()]}.

%% @doc `~/.config/mcp/oauth': the directory mcp-gen keeps tokens in.
-spec default_dir() -> file:filename_all().
default_dir() ->
    filename:join(filename:basedir(user_config, "mcp"), "oauth").

-spec load(store(), binary()) -> {ok, record()} | none | {error, term()}.
load(none, _ServerUrl) ->
    none;
load({callback, Load, _Save}, ServerUrl) ->
    Load(ServerUrl);
load({dir, Dir}, ServerUrl) ->
    Path = path(Dir, ServerUrl),
    case private(Dir) of
        ok ->
            case private(Path) of
                ok -> read(Path);
                {error, enoent} -> none;
                {error, _} = Error -> Error
            end;
        {error, enoent} -> none;
        {error, _} = Error -> Error
    end.

-spec save(store(), binary(), record()) -> ok | {error, term()}.
save(none, _ServerUrl, _Record) ->
    ok;
save({callback, _Load, Save}, ServerUrl, Record) ->
    Save(ServerUrl, Record);
save({dir, Dir}, ServerUrl, Record) ->
    case ensure_dir(Dir) of
        ok ->
            Path = path(Dir, ServerUrl),
            Temporary = Path ++ ".new",
            Json = {object, [{K, json(V)} || {K, V} <- lists:sort(maps:to_list(Record))]},
            _ = file:delete(Temporary),
            case file:open(Temporary, [write, exclusive, binary, raw]) of
                {ok, Fd} ->
                    ok = file:change_mode(Temporary, 8#600),
                    Written = file:write(Fd, mcp_json:encode(Json)),
                    ok = file:close(Fd),
                    case Written of
                        ok -> file:rename(Temporary, Path);
                        {error, Reason} -> {error, {token_file_not_written, Reason}}
                    end;
                {error, Reason} ->
                    {error, {token_file_not_written, Reason}}
            end;
        {error, _} = Error ->
            Error
    end.

ensure_dir(Dir) ->
    case private(Dir) of
        ok -> ok;
        {error, enoent} ->
            ok = filelib:ensure_dir(filename:join(Dir, "x")),
            file:change_mode(Dir, 8#700);
        {error, _} = Error -> Error
    end.

path(Dir, ServerUrl) ->
    Name = binary:encode_hex(crypto:hash(sha256, ServerUrl)),
    filename:join(unicode:characters_to_list(Dir), string:lowercase(binary_to_list(Name)) ++ ".json").

%% A path only its owner may read or write.
private(Path) ->
    case file:read_link_info(Path) of
        {ok, {file_info, _, Type, _, _, _, _, Mode, _, _, _, _, _, _}} when Type =:= regular; Type =:= directory ->
            case Mode band 8#077 of
                0 -> ok;
                _ -> {error, {token_file_permissions, unicode:characters_to_binary(Path)}}
            end;
        {ok, _} -> {error, {token_file_permissions, unicode:characters_to_binary(Path)}};
        {error, Reason} -> {error, Reason}
    end.

read(Path) ->
    case file:read_file(Path) of
        {ok, Bytes} ->
            case mcp_json:decode(Bytes) of
                {ok, {object, Members}} -> {ok, maps:from_list([{K, V} || {K, J} <- Members, {ok, V} <- [value(J)]])};
                _ -> {error, {token_file_unreadable, unicode:characters_to_binary(Path)}}
            end;
        {error, Reason} ->
            {error, {token_file_unreadable, Reason}}
    end.

json(V) when is_binary(V) -> {string, V};
json(V) when is_integer(V) -> {int, V};
json(V) when is_list(V) -> {array, [{string, S} || S <- V]}.

value({string, V}) -> {ok, V};
value({int, V}) -> {ok, V};
value({array, Items}) -> {ok, [S || {string, S} <- Items]};
value(_) -> error.
