#!/usr/bin/env escript
%% An MCP server with 300 tools (tool_001 .. tool_300), more than the code
%% generator's limit of 256: bin/mcp-gen's refusal case. Listed in pages of
%% 100. MCP_MANY_TOOLS_COUNT=N serves N tools instead.
-mode(compile).

-include("example_stdio.hrl").

server_info() -> {<<"mcp-many-tools">>, <<"1.0.0">>}.

page_size() -> 100.

tools() ->
    [tool(tool_name(N), <<"One of many numbered tools.">>,
          object_schema([{<<"n">>, typed(<<"integer">>, <<"Any integer">>)}], []))
     || N <- lists:seq(1, tool_count())].

call_tool(Name, _Args) ->
    case lists:member(Name, [tool_name(N) || N <- lists:seq(1, tool_count())]) of
        true -> {ok, [text(Name)], false, none};
        false -> unknown_tool
    end.

tool_count() -> list_to_integer(os:getenv("MCP_MANY_TOOLS_COUNT", "300")).

tool_name(N) -> iolist_to_binary(io_lib:format("tool_~3..0b", [N])).
