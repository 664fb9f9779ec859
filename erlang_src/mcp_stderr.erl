%% @doc Where a spawned server's stderr goes: the spawn spec's
%% `stderr => inherit | discard | {file, Path} | {file, Path, MaxBytes}
%% | {labelled, Label}'.
%%
%% Invariants:
%% <ul>
%% <li>stderr is never merged into stdout (it would corrupt the JSON-RPC
%%     line stream). `inherit' (the default) leaves it on the VM's stderr.</li>
%% <li>An Erlang port cannot redirect its child's stderr, so `discard' and
%%     `file' wrap the command in `sh -c' (the `sh' of `/bin' or `/usr/bin'),
%%     which `exec's it: the port's child keeps its pid, so its exit status
%%     and its watch still witness the server (and, jailed, bwrap)
%%     itself.</li>
%% <li>A file is bounded: at most `MaxBytes' (default
%%     `default_file_bytes()', at most `max_file_bytes()') of each spawn's
%%     stderr are appended; past that the rest is read and dropped, so the
%%     server never blocks on, or gets EPIPE from, its stderr. The copy is
%%     `stdbuf -o0 head -c MaxBytes' (unbuffered: each read is written at
%%     once, so a SIGKILL loses nothing already read; `dd' counts a short
%%     read from a pipe as a whole block, so it cannot bound bytes) reading a
%%     private FIFO, started by the wrapper before it `exec's the server: a
%%     member of the server's process group, retired with it. It finishes
%%     writing shortly after the server exits, possibly after the server's
%%     exit status arrived. The file is opened for append in the VM first, so
%%     a path that cannot be written fails the open before anything is
%%     spawned (`{bad_stderr, {Path, Posix}}').</li>
%% <li>`relay' (what `mcp_port' uses for a jailed server whose spec says
%%     `inherit') gives the server a private FIFO as its stderr and copies
%%     it with `cat' to the VM's stderr: the server writes its diagnostics
%%     where an unjailed one would, but holds no descriptor of the VM's own
%%     (a terminal it could read keystrokes from or change the modes of, a
%%     log file it could reopen through `/proc/self/fd/2' for reading). The
%%     copy lives outside the jail, in the server's process group, and is
%%     retired with it. When the VM's stderr is a terminal the copy is
%%     `mcp-landlock --strip-controls' (`mcp_os::terminal_text'), which
%%     drops every control character but tab and newline, C1 controls and
%%     invalid UTF-8, so the server's escape sequences (window title,
%%     clipboard, cursor moves, a line forged with a carriage return) reach
%%     the terminal as inert text; to a file or pipe the bytes go
%%     unchanged (`cat').</li>
%% <li>`{labelled, Label}' puts each line on the VM's stderr after `Label'
%%     (so the lines of several servers sharing a terminal say whose they
%%     are): the same FIFO and process group as a file, the copy being
%%     `stdbuf -oL fold -b -w 4096 | sed -u', so a line is held in memory up
%%     to 4,096 bytes and a longer one comes out in labelled pieces of that
%%     size (a server cannot make the copy grow). `Label' is put in
%%     verbatim (`sed''s special characters escaped); one holding a newline
%%     or NUL is refused (`{bad_stderr, {labelled, Label}}').</li>
%% <li>The wrapper calls its tools by absolute path (found on the VM's
%%     `PATH' when the spec is opened), so a spawn that unsets `PATH' still
%%     works.</li>
%% </ul>
-module(mcp_stderr).

-export([wrap/3, default_file_bytes/0, max_file_bytes/0]).
-export_type([route/0]).
-export_type([stderr/0]).

-type stderr() :: inherit | discard | {file, file:filename_all()}
                | {file, file:filename_all(), pos_integer()} | {labelled, binary()}.
%% Where `wrap/3' sends stderr: a spec's `stderr', or `relay'.
-type route() :: stderr() | relay.

-define(DEFAULT_FILE_BYTES, (16 * 1024 * 1024)).
-define(MAX_FILE_BYTES, (1024 * 1024 * 1024)).

%% The wrappers' scripts. `$0' is a name for diagnostics; the command and
%% its arguments follow the script's own arguments.
-define(DISCARD, "exec \"$@\" 2>/dev/null").
-define(TO_FILE,
        "f=$1 n=$2 mktemp=$3 mkfifo=$4 stdbuf=$5 head=$6 cat=$7 rm=$8; shift 8; "
        "d=$(\"$mktemp\" -d) && \"$mkfifo\" -m 600 \"$d/stderr\" || exit 125; "
        "{ \"$rm\" -rf \"$d\"; \"$stdbuf\" -o0 \"$head\" -c \"$n\" >>\"$f\"; exec \"$cat\"; } "
        "<\"$d/stderr\" >/dev/null & "
        "exec \"$@\" 2>\"$d/stderr\"").
-define(RELAY,
        "mktemp=$1 mkfifo=$2 cat=$3 rm=$4 strip=$5; shift 5; "
        "d=$(\"$mktemp\" -d) && \"$mkfifo\" -m 600 \"$d/stderr\" || exit 125; "
        "{ \"$rm\" -rf \"$d\"; "
        "if [ -t 2 ]; then exec \"$strip\" --strip-controls >&2; else exec \"$cat\" >&2; fi; } "
        "<\"$d/stderr\" >/dev/null & "
        "exec \"$@\" 2>\"$d/stderr\"").
-define(LABELLED,
        "p=$1 mktemp=$2 mkfifo=$3 stdbuf=$4 fold=$5 sed=$6 rm=$7; shift 7; "
        "d=$(\"$mktemp\" -d) && \"$mkfifo\" -m 600 \"$d/stderr\" || exit 125; "
        "{ \"$rm\" -rf \"$d\"; \"$stdbuf\" -oL \"$fold\" -b -w 4096 | \"$sed\" -u \"s/^/$p/\" >&2; } "
        "<\"$d/stderr\" >/dev/null & "
        "exec \"$@\" 2>\"$d/stderr\"").

%% @doc Bytes of one spawn's stderr a file receives when the spec gives no bound.
-spec default_file_bytes() -> pos_integer().
default_file_bytes() -> ?DEFAULT_FILE_BYTES.

%% @doc The largest bound a spec may give.
-spec max_file_bytes() -> pos_integer().
max_file_bytes() -> ?MAX_FILE_BYTES.

%% @doc The program and argv that run `Program Args' with its stderr where
%% `Stderr' says.
-spec wrap(route(), string(), [string() | binary()]) ->
          {ok, string(), [string() | binary()]}
        | {error, {bad_stderr, term()} | {executable_not_found, string()}}.
wrap(inherit, Program, Args) ->
    {ok, Program, Args};
wrap(relay, Program, Args) ->
    case tools(["mktemp", "mkfifo", "cat", "rm"]) of
        {ok, Tools} -> shell(?RELAY, Tools ++ [filename:absname(mcp_nif:priv_file("mcp-landlock")), Program | Args]);
        {error, _} = Error -> Error
    end;
wrap(discard, Program, Args) ->
    shell(?DISCARD, [Program | Args]);
wrap({file, Path}, Program, Args) ->
    wrap({file, Path, ?DEFAULT_FILE_BYTES}, Program, Args);
wrap({file, Path, MaxBytes}, Program, Args)
  when is_integer(MaxBytes), MaxBytes > 0, MaxBytes =< ?MAX_FILE_BYTES ->
    case writable(Path) of
        {ok, File} ->
            case tools(["mktemp", "mkfifo", "stdbuf", "head", "cat", "rm"]) of
                {ok, Tools} -> shell(?TO_FILE, [File, integer_to_list(MaxBytes)] ++ Tools ++ [Program | Args]);
                {error, _} = Error -> Error
            end;
        {error, _} = Error ->
            Error
    end;
wrap({labelled, Label}, Program, Args) when is_binary(Label) ->
    case binary:match(Label, [<<"\n">>, <<0>>]) of
        nomatch ->
            case tools(["mktemp", "mkfifo", "stdbuf", "fold", "sed", "rm"]) of
                {ok, Tools} -> shell(?LABELLED, [sed_replacement(Label) | Tools] ++ [Program | Args]);
                {error, _} = Error -> Error
            end;
        _ ->
            {error, {bad_stderr, {labelled, Label}}}
    end;
wrap(Other, _Program, _Args) ->
    {error, {bad_stderr, Other}}.

%% `Label' as the replacement of `sed''s `s/^/.../': `\', `/' and `&' escaped.
sed_replacement(Label) ->
    << <<(case Byte of $\\ -> <<"\\\\">>; $/ -> <<"\\/">>; $& -> <<"\\&">>; _ -> <<Byte>> end)/binary>>
       || <<Byte>> <= Label >>.

shell(Script, Args) ->
    case os:find_executable("sh", "/bin:/usr/bin") of
        false -> {error, {executable_not_found, "sh"}};
        Sh -> {ok, Sh, ["-c", Script, "mcp-stderr" | Args]}
    end.

%% The file as an absolute path, once it is known that it can be appended to.
writable(Path) ->
    try filename:absname(Path) of
        File ->
            case file:open(File, [append, raw]) of
                {ok, Device} -> ok = file:close(Device), {ok, File};
                {error, Posix} -> {error, {bad_stderr, {File, Posix}}}
            end
    catch
        error:_ -> {error, {bad_stderr, {file, Path}}}
    end.

tools(Names) ->
    Found = [{Name, os:find_executable(Name)} || Name <- Names],
    case [Name || {Name, false} <- Found] of
        [] -> {ok, [Path || {_, Path} <- Found]};
        [Missing | _] -> {error, {executable_not_found, Missing}}
    end.
