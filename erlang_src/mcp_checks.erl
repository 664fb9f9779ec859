%% @doc Validation in steps: each check answers `{ok, Fields}' (a map merged
%% into the result) or `{error, Reason}'; the checks run in order and the
%% first error is the answer. Used where a spec or a command line is turned
%% into a map (`mcp_jail', `mcp_cli_args', `mcp_cli_config').
-module(mcp_checks).

-export([run/2]).

-spec run([fun(() -> {ok, map()} | {error, Reason})], map()) -> {ok, map()} | {error, Reason}.
run([], Result) -> {ok, Result};
run([Check | Rest], Result) ->
    case Check() of
        {ok, Fields} -> run(Rest, maps:merge(Result, Fields));
        {error, _} = Error -> Error
    end.
