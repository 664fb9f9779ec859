%% @doc `mcp-gen watch': keeps each server's generated module in step with
%% its listing, and says what happened, one line per event.
%%
%% `watch/2' runs in the process that owns the clients (`mcp_cli', which
%% connected them, wrote each module once and retires them all after it
%% returns). It subscribes to each client (`mcp_client:subscribe/1') and
%% monitors its actor, then waits:
%% <ul>
%% <li>`{mcp_tools_changed, Pid, _}': the listing is read (`mcp_client:tools/1');
%%     when its generation is newer than the one last seen, the module is
%%     generated again and written with `mcp_cli_files:write/1' (replaced
%%     atomically, and only when its bytes differ), and a line names the
%%     tools added, removed and changed (`diff/2');</li>
%% <li>`{mcp_reconnecting, Pid, Attempt, Reason}', `{mcp_reconnected, Pid,
%%     Attempt}': a line each; the client reconnects by itself (its
%%     `reconnect' option) and lists again;</li>
%% <li>`{mcp_gave_up, Pid, Reason}' (the server is gone for good: it died
%%     with no reconnect policy, or every attempt failed) and the actor's
%%     `DOWN': a line, and the server is no longer watched;</li>
%% <li>`{mcp_cli_signal, sigterm}' (Ctrl-C): `interrupted'.</li>
%% <li>`{mcp_cli_output, closed}' (nobody reads the lines any more, as
%%     `mcp_cli' finds out): `output_closed'.</li>
%% </ul>
%% It answers `ended' when no server is left. Lines go to the `Print' fun
%% (stdout in `bin/mcp-gen'); every server-chosen string in them (tool
%% names, reasons) is shown as `mcp_printable' makes it safe.
%%
%% Line formats (docs/cli.md, "watch"):
%% ```
%% SERVER: generation G: +ADDED... -REMOVED... ~CHANGED... (PATH rewritten | PATH unchanged
%%         | refused: WHY; PATH kept | cannot write PATH: WHY)
%% SERVER: died: WHY
%% SERVER: reconnecting (attempt N): WHY
%% SERVER: reconnected (attempt N)
%% SERVER: gave up reconnecting: WHY
%% SERVER: client gone: WHY
%% '''
-module(mcp_cli_watch).

-export([watch/2, diff/2, change_line/4, max_names_shown/0]).
-export_type([watched/0, diff/0]).

%% The names of one sign a change line shows (then how many more).
-define(MAX_NAMES_SHOWN, 32).

%% @doc The names of one sign (added, removed, changed) a change line shows
%% before `(+N more)'.
-spec max_names_shown() -> pos_integer().
max_names_shown() -> ?MAX_NAMES_SHOWN.

-type watched() :: #{client := mcp_client:client(),
                     server := binary(),                 % the name lines start with
                     name := binary(),                   % the name the module is generated under
                     out := {file:filename_all(), file:filename_all()},  % mcp_cli_files:paths/2
                     generation := pos_integer(),
                     tools := [mcp_protocol:tool_descriptor()]}.
-type diff() :: #{added := [binary()], removed := [binary()], changed := [binary()]}.
-type outcome() :: {rewritten | unchanged, file:filename_all()}
                 | {refused, iodata(), file:filename_all() | none}
                 | {write_failed, file:filename_all(), iodata()}.
-type print() :: fun((iodata()) -> term()).

%% @doc Watches the servers until none is left (`ended'), SIGTERM
%% (`interrupted') or the lines' reader is gone (`output_closed'). The
%% caller must be the process that receives `{mcp_cli_signal, sigterm}'
%% and `{mcp_cli_output, closed}'.
-spec watch([watched()], print()) -> ended | interrupted | output_closed.
watch(Servers, Print) ->
    Watching = lists:foldl(fun(Server, Acc) -> start_watching(Server, Print, Acc) end, #{}, Servers),
    loop(Watching, Print).

%% Subscribed first, then read: a change between the first listing and
%% the subscription is caught up here, a later one comes as a message.
start_watching(#{client := Client} = Server, Print, Watching) ->
    Pid = mcp_client:pid(Client),
    Monitor = erlang:monitor(process, Pid),
    Watched = Server#{monitor => Monitor, reconnecting => false},
    case mcp_client:subscribe(Client) of
        ok ->
            relisted(Watched, Print, Watching#{Pid => Watched});
        {error, Reason} ->
            Print([server(Watched), ": died: ", reason(Reason)]),
            erlang:demonitor(Monitor, [flush]),
            Watching
    end.

loop(Watching, _Print) when map_size(Watching) =:= 0 ->
    ended;
loop(Watching, Print) ->
    receive
        {mcp_tools_changed, Pid, _Generation} when is_map_key(Pid, Watching) ->
            loop(relisted(maps:get(Pid, Watching), Print, Watching), Print);
        {mcp_reconnecting, Pid, Attempt, Reason} when is_map_key(Pid, Watching) ->
            Watched = maps:get(Pid, Watching),
            Print([server(Watched), ": reconnecting (attempt ", attempt(Attempt), "): ", mcp_describe:death(Reason)]),
            loop(Watching#{Pid => Watched#{reconnecting => true}}, Print);
        {mcp_reconnected, Pid, Attempt} when is_map_key(Pid, Watching) ->
            Watched = maps:get(Pid, Watching),
            Print([server(Watched), ": reconnected (attempt ", attempt(Attempt), ")"]),
            loop(Watching#{Pid => Watched#{reconnecting => false}}, Print);
        {mcp_gave_up, Pid, Reason} when is_map_key(Pid, Watching) ->
            #{monitor := Monitor, reconnecting := Reconnecting} = Watched = maps:get(Pid, Watching),
            erlang:demonitor(Monitor, [flush]),
            Print([server(Watched), case Reconnecting of
                                        true -> ": gave up reconnecting: ";
                                        false -> ": died: "
                                    end, mcp_describe:death(Reason)]),
            loop(maps:remove(Pid, Watching), Print);
        {'DOWN', _Monitor, process, Pid, Why} when is_map_key(Pid, Watching) ->
            Print([server(maps:get(Pid, Watching)), ": client gone: ", mcp_describe:death({client_down, Why})]),
            loop(maps:remove(Pid, Watching), Print);
        {mcp_cli_signal, sigterm} ->
            interrupted;
        {mcp_cli_output, closed} ->
            output_closed
    end.

%% The current listing; a newer generation than the one known is
%% generated, written and reported. A client that cannot answer is left
%% to its death message (`mcp_gave_up') or its `DOWN'.
relisted(#{client := Client, generation := Known} = Watched, Print, Watching) ->
    case mcp_client:tools(Client) of
        {ok, {Generation, Tools}} when Generation > Known ->
            Outcome = regenerate(Watched, Tools),
            Print(change_line(server(Watched), Generation, diff(maps:get(tools, Watched), Tools), Outcome)),
            Watching#{mcp_client:pid(Client) => Watched#{generation => Generation, tools => Tools}};
        _Same ->
            Watching
    end.

regenerate(#{name := Name, out := Dirs}, Tools) ->
    case mcp_codegen:generate(Name, Tools) of
        {ok, {generated, ModuleName, Source, Surface}} ->
            case mcp_cli_files:paths(ModuleName, Dirs) of
                {ok, SourcePath, SurfacePath} ->
                    case mcp_cli_files:write([{SourcePath, Source}, {SurfacePath, Surface}]) of
                        {ok, Written} ->
                            {case lists:member(SourcePath, Written) of
                                 true -> rewritten;
                                 false -> unchanged
                             end, SourcePath};
                        {error, Path, Reason} ->
                            {write_failed, Path, file:format_error(Reason)}
                    end;
                error ->
                    {refused, ["unexpected module name ", name(ModuleName)], none}
            end;
        {error, Refusal} ->
            {refused, mcp_describe:refusal(Refusal), module_path(Name, Dirs)}
    end.

%% The path a refused module keeps, from the name alone (no module).
module_path(Name, Dirs) ->
    case mcp_cli_files:paths(<<"cap/mcp/", (mcp_name:mangle(Name))/binary>>, Dirs) of
        {ok, SourcePath, _} -> SourcePath;
        error -> none
    end.

%% @doc What changed from one listing to the next, by tool name: the names
%% only the new one has (in its order), those only the old one had (in
%% theirs), and those both have with a different descriptor (in the new
%% order). A name listed twice counts as all its descriptors together.
-spec diff([mcp_protocol:tool_descriptor()], [mcp_protocol:tool_descriptor()]) -> diff().
diff(Old, New) ->
    OldByName = by_name(Old),
    NewByName = by_name(New),
    #{added => [Name || Name <- names(New), not is_map_key(Name, OldByName)],
      removed => [Name || Name <- names(Old), not is_map_key(Name, NewByName)],
      changed => [Name || Name <- names(New), is_map_key(Name, OldByName),
                          maps:get(Name, OldByName) =/= maps:get(Name, NewByName)]}.

by_name(Tools) ->
    lists:foldl(fun(Tool, Acc) -> maps:update_with(element(2, Tool), fun(Ds) -> Ds ++ [Tool] end, [Tool], Acc) end,
                #{}, Tools).

%% Each name once, in listing order.
names(Tools) ->
    {Names, _} = lists:foldl(fun(Tool, {Acc, Seen}) ->
                                     Name = element(2, Tool),
                                     case is_map_key(Name, Seen) of
                                         true -> {Acc, Seen};
                                         false -> {[Name | Acc], Seen#{Name => true}}
                                     end
                             end, {[], #{}}, Tools),
    lists:reverse(Names).

%% @doc The line for a new generation: `SERVER: generation G: +a -b ~c
%% (PATH rewritten)'. `Server' is shown as given (the caller made it
%% printable); tool names and paths are made printable here. A new
%% generation that adds, removes and changes nothing reordered the tools.
-spec change_line(iodata(), pos_integer(), diff(), outcome()) -> iolist().
change_line(Server, Generation, #{added := Added, removed := Removed, changed := Changed}, Outcome) ->
    Changes = lists:append([shown(Sign, Names) || {Sign, Names} <- [{"+", Added}, {"-", Removed}, {"~", Changed}]]),
    [Server, ": generation ", integer_to_list(Generation), ": ",
     case Changes of
         [] -> "tools reordered";
         _ -> lists:join(" ", Changes)
     end,
     " (", outcome(Outcome), ")"].

%% At most `?MAX_NAMES_SHOWN' names of a sign, then how many more: a
%% server's listing bounds neither how many tools change nor how often.
shown(Sign, Names) when length(Names) > ?MAX_NAMES_SHOWN ->
    {Shown, More} = lists:split(?MAX_NAMES_SHOWN, Names),
    shown(Sign, Shown) ++ [["(", Sign, integer_to_list(length(More)), " more)"]];
shown(Sign, Names) ->
    [[Sign, name(Name)] || Name <- Names].

outcome({rewritten, Path}) -> [path(Path), " rewritten"];
outcome({unchanged, Path}) -> [path(Path), " unchanged"];
outcome({refused, Why, none}) -> ["refused: ", Why];
outcome({refused, Why, Path}) -> ["refused: ", Why, "; ", path(Path), " kept"];
outcome({write_failed, Path, Why}) -> ["cannot write ", path(Path), ": ", Why].

server(#{server := Server}) -> name(Server).

attempt(Attempt) when is_integer(Attempt) -> integer_to_list(Attempt);
attempt(Other) -> mcp_describe:words(Other).

%% `{unavailable, Reason}' as the death it reports; any other error in words.
reason({unavailable, Death}) -> mcp_describe:death(Death);
reason(Other) -> mcp_describe:client_error(Other).

path(Path) -> name(unicode:characters_to_binary(Path)).

name(Text) -> mcp_printable:printable(Text, line, mcp_printable:name_chars()).
