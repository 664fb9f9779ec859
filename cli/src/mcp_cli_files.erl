%% @doc Where `bin/mcp-gen' puts a generated module and its surface, and
%% how it writes them: `DIR/cap/mcp/<segment>.gleam' and
%% `SURFACEDIR/<segment>.surface' (`generate --out', `watch',
%% `new-harness').
%%
%% Invariants:
%% <ul>
%% <li>The segment is a plain Gleam identifier (`module_segment/1'), so a
%%     name a server chose cannot lead outside the output directory.</li>
%% <li>A file whose bytes equal the new ones is not touched: its mtime and
%%     inode stay, so a build tool watching the directory sees nothing.</li>
%% <li>A file that differs is replaced with `rename(2)' of a temporary file
%%     written beside it: a reader sees the old bytes or the new ones, never
%%     a part. The temporary file (`.<name>.<os pid>.<n>.tmp', not a
%%     `.gleam' file) is created exclusively, so it never writes through an
%%     existing file or link, and it is removed when the write fails.</li>
%% </ul>
-module(mcp_cli_files).

-export([paths/2, module_segment/1, write/1]).

%% @doc The module's and the surface's paths for a generated module name,
%% under `{SourceDir, SurfaceDir}'; `error' for a name that is not
%% `cap/mcp/<segment>'.
-spec paths(binary(), {file:filename_all(), file:filename_all()}) ->
          {ok, Source :: file:filename_all(), Surface :: file:filename_all()} | error.
paths(ModuleName, {SourceDir, SurfaceDir}) ->
    case module_segment(ModuleName) of
        {ok, Segment} ->
            {ok, filename:join([SourceDir, "cap", "mcp", <<Segment/binary, ".gleam">>]),
             filename:join(SurfaceDir, <<Segment/binary, ".surface">>)};
        error ->
            error
    end.

%% @doc `cap/mcp/<segment>' where the segment is a plain Gleam identifier,
%% so it is safe as a file name (no separator, no `..').
-spec module_segment(binary()) -> {ok, binary()} | error.
module_segment(<<"cap/mcp/", Segment/binary>>) ->
    case re:run(Segment, "^[a-z][a-z0-9_]*$", [{capture, none}]) of
        match -> {ok, Segment};
        nomatch -> error
    end;
module_segment(_) ->
    error.

%% @doc Each file given its bytes, in order: those that differ replaced
%% atomically, the others left alone. Answers the paths written (`[]'
%% when every file already held its bytes), or the first that failed.
-spec write([{file:filename_all(), binary()}]) ->
          {ok, Written :: [file:filename_all()]} | {error, file:filename_all(), file:posix() | badarg | terminated}.
write(Files) ->
    write(Files, []).

write([], Written) ->
    {ok, lists:reverse(Written)};
write([{Path, Bytes} | Rest], Written) ->
    case file:read_file(Path) of
        {ok, Bytes} ->
            write(Rest, Written);
        _Different ->
            case replace(Path, Bytes) of
                ok -> write(Rest, [Path | Written]);
                {error, Reason} -> {error, Path, Reason}
            end
    end.

replace(Path, Bytes) ->
    Temporary = filename:join(filename:dirname(Path),
                              iolist_to_binary([".", filename:basename(Path), ".", os:getpid(), ".",
                                                integer_to_list(erlang:unique_integer([positive])), ".tmp"])),
    case filelib:ensure_dir(Path) of
        ok -> renamed(write_new(Temporary, Bytes), Temporary, Path);
        {error, _} = Error -> Error
    end.

renamed(ok, Temporary, Path) ->
    case file:rename(Temporary, Path) of
        ok -> ok;
        {error, _} = Error -> _ = file:delete(Temporary), Error
    end;
renamed({error, _} = Error, _Temporary, _Path) ->
    Error.

%% A file that did not exist, its bytes on disk before it is renamed.
write_new(Path, Bytes) ->
    case file:open(Path, [write, exclusive, raw, binary]) of
        {ok, Device} ->
            Written = case file:write(Device, Bytes) of
                          ok -> file:datasync(Device);
                          {error, _} = Error -> Error
                      end,
            Closed = file:close(Device),
            case {Written, Closed} of
                {ok, ok} -> ok;
                _ -> _ = file:delete(Path), first_error([Written, Closed])
            end;
        {error, _} = Error ->
            Error
    end.

first_error([{error, _} = Error | _]) -> Error;
first_error([_ | Rest]) -> first_error(Rest).
