%% @doc The listing a client actor keeps and follows (`mcp_client_actor'):
%% the pages of a `tools/list' put together (bounded cursors, no cursor
%% followed twice, at most `mcp_client:max_tool_pages()' pages), the
%% listing kept with its generation (one more whenever it differs, told
%% to subscribers), and the re-listing a server's
%% `notifications/tools/list_changed' starts. Functions of the actor's
%% state (`mcp_client_actor.hrl'); the effects are the actor's.
-module(mcp_client_listing).

-export([next_page/6, listed/2, noticed/2, renewed_listing/1, relist/1, start_relist/1, relisted/1]).

-include("mcp_client_actor.hrl").

%% The longest line read as a `notifications/tools/list_changed'.
-define(MAX_NOTICE_BYTES, 4096).

%% The next page of a listing (`Kind' makes the request kind of the pages,
%% tools and cursor digests so far).
next_page(_Kind, _Progress, {ok, {tools_page, _, {some, Cursor}}}, From, _Deadline, Data)
  when byte_size(Cursor) > ?MAX_CURSOR_BYTES ->
    %% The client echoes a cursor back: bounded, its echo (encoding, digest)
    %% stays far below a millisecond on the actor's scheduler.
    mcp_client_actor:reply(From, {error, {result_malformed, {protocol_fault, <<"$.nextCursor">>,
                                                       <<"longer than ", (integer_to_binary(?MAX_CURSOR_BYTES))/binary, " bytes">>}}}),
    {ok, Data};
next_page(Kind, {Pages, Acc, Seen}, {ok, {tools_page, Tools, {some, Cursor}}}, From, Deadline, Data) ->
    %% Cursors are kept as digests: up to 64 KiB each.
    Digest = erlang:md5(Cursor),
    case Pages + 1 >= mcp_client:max_tool_pages() orelse lists:member(Digest, Seen) of
        true ->
            mcp_client_actor:reply(From, {error, too_many_pages}),
            {ok, Data};
        false ->
            mcp_client_actor:send_request(From, Kind(Pages + 1, [Tools | Acc], [Digest | Seen]), Deadline, <<"tools/list">>,
                         {some, mcp_protocol:tools_list_params({some, Cursor})}, Data)
    end.

%% A whole listing: in the modern era the tools with invalid `x-mcp-header'
%% annotations are left out and each kept tool's header map is kept. It
%% becomes the current listing (`stored/2').
listed(Tools, #data{era = modern} = Data) ->
    {Kept, LeftOut} = mcp_request_headers:split_tools(Tools),
    Listed = [Tool || {Tool, _} <- Kept],
    {Listed, stored(Listed, Data#data{tool_headers = maps:from_list([{element(2, Tool), Map} || {Tool, Map} <- Kept]),
                                      left_out = LeftOut})};
listed(Tools, Data) ->
    {Tools, stored(Tools, Data)}.

%% A listing that differs from the last is a new generation, and every
%% subscriber hears of it: `{mcp_tools_changed, Actor, Generation}'.
stored(Tools, #data{listing = Tools} = Data) ->
    Data;
stored(Tools, #data{generation = Generation} = Data) ->
    Next = Generation + 1,
    mcp_client_actor:tell({mcp_tools_changed, self(), Next}, Data),
    Data#data{listing = Tools, generation = Next}.

%%% ------------------------------------------------------------ re-listing
%%
%% A server that declared `tools.listChanged' says its tools changed with
%% `notifications/tools/list_changed'; the actor then lists them again as
%% any caller would (a process of its own calls `list_tools', so the
%% listing has the callers' deadline, page and size bounds, and calls go on
%% meanwhile). Re-listings start at least `?RELIST_INTERVAL_MS' apart,
%% however the notices are spaced; notices that come while a listing runs
%% or waits are one more listing after it; a failed listing is not retried
%% until the next notice. A notice is read for its method only on a line
%% of at most `?MAX_NOTICE_BYTES' (the notice is some 60 bytes, a `_meta'
%% perhaps more): a longer line that holds those words is dropped as any
%% notification is, after the validating scan, so the actor builds no
%% line a server sends it to drop.

noticed(Line, #data{list_changed = true} = Data) when byte_size(Line) =< ?MAX_NOTICE_BYTES ->
    case binary:match(Line, <<"notifications/tools/list_changed">>) of
        nomatch ->
            Data;
        _ ->
            case mcp_jsonrpc:decode(Line) of
                {ok, {notification, <<"notifications/tools/list_changed">>, _}} -> relist(Data);
                _ -> Data
            end
    end;
noticed(_Line, Data) ->
    Data.

renewed_listing(#data{listing = none} = Data) -> Data;
renewed_listing(Data) -> relist(Data).

relist(#data{relist = idle, relist_at = At} = Data) ->
    case At =:= undefined orelse erlang:monotonic_time(millisecond) - At >= ?RELIST_INTERVAL_MS of
        true -> start_relist(Data);
        false -> Data#data{relist = {waiting, erlang:start_timer(At + ?RELIST_INTERVAL_MS, self(), relist, [{abs, true}])}}
    end;
relist(Data) -> Data#data{relist_again = true}.

start_relist(#data{options = Options} = Data) ->
    Actor = self(),
    Timeout = maps:get(list_timeout_ms, Options, 30000),
    {_Pid, Monitor} = spawn_monitor(fun() -> exit({relisted, gen_statem:call(Actor, {list_tools, Timeout})}) end),
    Data#data{relist = {running, Monitor}, relist_again = false, relist_at = erlang:monotonic_time(millisecond)}.

relisted(#data{relist_again = true} = Data) ->
    Data#data{relist = {waiting, erlang:start_timer(?RELIST_INTERVAL_MS, self(), relist)}, relist_again = false};
relisted(Data) ->
    Data#data{relist = idle}.
