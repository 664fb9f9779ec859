%% @doc Package launchers under the jail (`npx', `npm exec', `uvx',
%% `uv tool run', `pipx run'): which one a jailed target runs, the package caches it
%% reads and writes, and the variable that makes it work offline.
%% `mcp_jail' gives each existing cache a private copy-on-write view (the
%% jail's init mounts it, `mcp_os::copy_on_write') and, without the
%% network, sets the offline variable, so a package already in the cache
%% starts jailed with no flag and one that is not fails at once, in
%% words (`mcp_describe:offline_launcher/1'). docs/jail.md, "Launchers".
%%
%% Invariants:
%% <ul>
%% <li>Recognized by the executable's name or the real path it leads to
%%     (`/usr/bin/npx' links to `npx-cli.js'), and for `npm', `uv' and
%%     `pipx' by the subcommand among the arguments: nothing else is a
%%     launcher.</li>
%% <li>Caches are named by the child's environment as the launcher itself
%%     reads it (`npm_config_cache', `UV_CACHE_DIR', `UV_TOOL_DIR',
%%     `PIPX_HOME', `XDG_CACHE_HOME', `XDG_DATA_HOME', `XDG_STATE_HOME',
%%     `HOME'); a relative or missing one names nothing.</li>
%% <li>The offline variable never overrides one the child's environment
%%     sets.</li>
%% </ul>
-module(mcp_jail_launcher).

-export([detect/1, offline_env/1, private_env/1]).
-export_type([launcher/0]).

-type launcher() :: #{launcher := npx | npm_exec | uvx | uv_tool_run | pipx_run,
                      caches := [string()]}.

%% @doc The launcher `Target' runs (`none' if it is none of them) and
%% the cache directories it uses, existing or not, as absolute paths.
-spec detect(#{executable := string(), args := [string() | binary()],
               env := [{string(), string()}], _ => _}) -> none | launcher().
detect(#{executable := Executable, args := Args, env := Env}) ->
    Names = [filename:basename(Path) || Path <- [Executable, mcp_jail:real_path(Executable)]],
    Words = [Word || Arg <- lists:sublist(Args, 2), Word <- [unicode:characters_to_list(Arg)], is_list(Word)],
    case kind(Names, Words) of
        none -> none;
        Kind -> #{launcher => Kind, caches => [Path || {_, Path} <- located(family(Kind), Env), absolute(Path)]}
    end.

kind(Names, Words) ->
    Is = fun(Candidates) -> lists:any(fun(Name) -> lists:member(Name, Candidates) end, Names) end,
    case {Is(["npx", "npx-cli.js"]), Is(["npm", "npm-cli.js"]), Is(["uvx"]), Is(["uv"]), Is(["pipx"]), Words} of
        {true, _, _, _, _, _} -> npx;
        {_, true, _, _, _, [Exec | _]} when Exec =:= "exec"; Exec =:= "x" -> npm_exec;
        {_, _, true, _, _, _} -> uvx;
        {_, _, _, true, _, ["tool", "run"]} -> uv_tool_run;
        {_, _, _, _, true, ["run" | _]} -> pipx_run;
        _ -> none
    end.

family(npx) -> npm;
family(npm_exec) -> npm;
family(uvx) -> uv;
family(uv_tool_run) -> uv;
family(pipx_run) -> pipx.

%% npm's cache (`npm_config_cache', else `~/.npm': the packages, the
%% installs `npx' made under `_npx', the logs); uv's cache (`UV_CACHE_DIR',
%% else `$XDG_CACHE_HOME/uv', else `~/.cache/uv') and its tool directory
%% (`UV_TOOL_DIR', else `$XDG_DATA_HOME/uv/tools', else
%% `~/.local/share/uv/tools'), which `uvx' locks and looks in; pipx's home
%% (`PIPX_HOME', else `$XDG_DATA_HOME/pipx', else `~/.local/share/pipx':
%% shared libraries, its Pythons), the environments `pipx run' keeps
%% (`$XDG_CACHE_HOME/pipx', else `~/.cache/pipx') and its logs
%% (`$XDG_STATE_HOME/pipx', else `~/.local/state/pipx'). Each as
%% `{Variable, Path}': the variable that moves it, and `none' for a path
%% the environment does not name.
located(npm, Env) ->
    [{"npm_config_cache", first(Env, [{"npm_config_cache", ""}, {"NPM_CONFIG_CACHE", ""}, {"HOME", ".npm"}])}];
located(uv, Env) ->
    [{"UV_CACHE_DIR", first(Env, [{"UV_CACHE_DIR", ""}, {"XDG_CACHE_HOME", "uv"}, {"HOME", ".cache/uv"}])},
     {"UV_TOOL_DIR", first(Env, [{"UV_TOOL_DIR", ""}, {"XDG_DATA_HOME", "uv/tools"}, {"HOME", ".local/share/uv/tools"}])}];
located(pipx, Env) ->
    [{"PIPX_HOME", first(Env, [{"PIPX_HOME", ""}, {"XDG_DATA_HOME", "pipx"}, {"HOME", ".local/share/pipx"}])},
     {"XDG_CACHE_HOME", first(Env, [{"XDG_CACHE_HOME", "pipx"}, {"HOME", ".cache/pipx"}])},
     {"XDG_STATE_HOME", first(Env, [{"XDG_STATE_HOME", "pipx"}, {"HOME", ".local/state/pipx"}])}].

%% The first variable of `Choices' set (non-empty) in `Env', joined with
%% its relative part.
first(_Env, []) ->
    none;
first(Env, [{Name, Relative} | Rest]) ->
    case lists:keyfind(Name, 1, Env) of
        {Name, Value} when Value =/= "" -> filename:join([Value | [Relative || Relative =/= ""]]);
        _ -> first(Env, Rest)
    end.

absolute(none) -> false;
absolute(Path) -> filename:pathtype(Path) =:= absolute andalso not lists:member(0, Path).

%% @doc For the launcher `Target' runs, each cache that is not a
%% directory on the host, moved by its variable into the jail's private
%% `/tmp' (`/tmp/mcp-launcher-cache/VARIABLE'), where the launcher can
%% create it: there is no view of a cache that does not exist, and the
%% read-only mounts would refuse to create it (npm's `EROFS', with the
%% network). Empty for any other target.
-spec private_env(#{executable := string(), args := [string() | binary()],
                    env := [{string(), string()}], _ => _}) -> [{string(), string()}].
private_env(#{env := Env} = Target) ->
    case detect(Target) of
        none -> [];
        #{launcher := Kind} ->
            [{Variable, "/tmp/mcp-launcher-cache/" ++ Variable}
             || {Variable, Path} <- located(family(Kind), Env), not (absolute(Path) andalso filelib:is_dir(Path))]
    end.

%% @doc The variable that keeps the launcher off the network, unless
%% `Env' sets it already: npm's `offline' (cache only, `ENOTCACHED' at
%% once for anything else), `UV_OFFLINE', and pip's `PIP_NO_INDEX' for
%% the installs `pipx run' makes.
-spec offline_env(launcher()) -> [{string(), string()}].
offline_env(#{launcher := Kind}) ->
    case family(Kind) of
        npm -> [{"npm_config_offline", "true"}];
        uv -> [{"UV_OFFLINE", "1"}];
        pipx -> [{"PIP_NO_INDEX", "1"}]
    end.
