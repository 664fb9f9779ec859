%% @doc The listing a client actor keeps and follows (`mcp_client_actor'):
%% the pages of a `tools/list' put together (bounded cursors, no cursor
%% followed twice, at most `mcp_client:max_tool_pages()' pages, at most
%% `mcp_client:max_listing_bytes()' of page lines read), the listing kept with its
%% generation (one more whenever it differs, told to subscribers), and the
%% re-listing a server's `notifications/tools/list_changed' starts.
%% Functions of the actor's state (`mcp_client_actor.hrl'); the effects
%% are the actor's.
%%
%% A page is read in the actor, which keeps the listing: its terms take
%% some 25 times its bytes while it is read (two pages of 15.6 MB, read
%% whole, take an actor to 809 MB). So a page's line comes to the actor
%% validated and unread (`routed_result'), and is read only while the
%% lines of the pages of every listing in progress, this one with them,
%% take at most `mcp_client:max_listing_bytes()' (listings run side by
%% side, each holding its pages until its last: sixteen callers listing at
%% once must not hold sixteen budgets); a page past that answers its
%% listing `{listing_too_large, MaxBytes}' without being read.
-module(mcp_client_listing).

-export([started/0, page/4, in_progress/1, tools/2]).
-export([next_page/6, listed/2, noticed/2, renewed_listing/1, relist/1, start_relist/1, relisted/1]).
-export_type([listing/0]).

-include("mcp_client_actor.hrl").

%% A listing in progress: the pages read so far, their tools (newest page
%% first), the digests of the cursors followed, and the bytes of the page
%% lines read.
-opaque listing() :: {Pages :: non_neg_integer(), Acc :: [[term()]], Seen :: [binary()], Bytes :: non_neg_integer()}.

%% @doc A listing with no page read yet.
-spec started() -> listing().
started() -> {0, [], [], 0}.

%% @doc A page's validated line, for the request `Id' of kind `Kind' (a
%% listing's `{list, Listing}' or `{list_then_call, Call, Listing}'), while
%% the other listings in progress have read `Elsewhere' bytes: read as a
%% page when the budget has room for it, counted in the kind's listing;
%% else `{listing_too_large, MaxBytes}', unread.
-spec page(pos_integer(), binary(), mcp_request_table:kind(), non_neg_integer()) -> {mcp_request_table:kind(), term()}.
page(Id, Line, {list, Listing}, Elsewhere) ->
    {Read, Page} = read_page(Id, Line, Listing, Elsewhere),
    {{list, Read}, Page};
page(Id, Line, {list_then_call, Call, Listing}, Elsewhere) ->
    {Read, Page} = read_page(Id, Line, Listing, Elsewhere),
    {{list_then_call, Call, Read}, Page}.

%% @doc The page bytes read by the listings among `Kinds' (the requests
%% pending), for `page/4': a listing's next page in flight, or that
%% request waiting for a re-probe (`{reprobe, Kind, ...}', the modern era's
%% `-32022'), holds the pages read so far.
-spec in_progress([mcp_request_table:kind()]) -> non_neg_integer().
in_progress([]) -> 0;
in_progress([Kind | Kinds]) -> held_bytes(Kind) + in_progress(Kinds).

held_bytes({list, {_, _, _, Bytes}}) when is_integer(Bytes) -> Bytes;
held_bytes({list_then_call, _, {_, _, _, Bytes}}) when is_integer(Bytes) -> Bytes;
held_bytes({reprobe, Kind, _, _}) -> held_bytes(Kind);
held_bytes(_Kind) -> 0.

read_page(Id, Line, {Pages, Acc, Seen, Bytes} = Listing, Elsewhere) ->
    Max = mcp_client:max_listing_bytes(),
    case Elsewhere + Bytes + byte_size(Line) > Max of
        true -> {Listing, {error, {listing_too_large, Max}}};
        false -> {{Pages, Acc, Seen, Bytes + byte_size(Line)}, read_page(Id, Line)}
    end.

read_page(Id, Line) ->
    case mcp_protocol:read(Line, #{Id => tools_page}) of
        {answer, Id, Answer} -> Answer;
        %% The line was validated as a result to `Id': read again, it is
        %% that answer; anything else is named, not trusted.
        _ -> {error, {result_malformed, {protocol_fault, <<"$">>, <<"a page read twice read differently">>}}}
    end.

%% @doc Every tool of a listing whose last page holds `Tools', in order.
-spec tools([term()], listing()) -> [term()].
tools(Tools, {_, Acc, _, _}) -> lists:append(lists:reverse([Tools | Acc])).

%% The longest line read as a `notifications/tools/list_changed'.
-define(MAX_NOTICE_BYTES, 4096).

%% The next page of a listing (`Kind' makes the request kind of the
%% listing so far).
next_page(_Kind, _Listing, {ok, {tools_page, _, {some, Cursor}}}, From, _Deadline, Data)
  when byte_size(Cursor) > ?MAX_CURSOR_BYTES ->
    %% The client echoes a cursor back: bounded, its echo (encoding, digest)
    %% stays far below a millisecond on the actor's scheduler.
    mcp_client_actor:reply(From, {error, {result_malformed, {protocol_fault, <<"$.nextCursor">>,
                                                       <<"longer than ", (integer_to_binary(?MAX_CURSOR_BYTES))/binary, " bytes">>}}}),
    {ok, Data};
next_page(Kind, {Pages, Acc, Seen, Bytes}, {ok, {tools_page, Tools, {some, Cursor}}}, From, Deadline, Data) ->
    %% Cursors are kept as digests: up to 64 KiB each.
    Digest = erlang:md5(Cursor),
    case Pages + 1 >= mcp_client:max_tool_pages() orelse lists:member(Digest, Seen) of
        true ->
            mcp_client_actor:reply(From, {error, too_many_pages}),
            {ok, Data};
        false ->
            mcp_client_actor:send_request(From, Kind({Pages + 1, [Tools | Acc], [Digest | Seen], Bytes}), Deadline, <<"tools/list">>,
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
%% perhaps more) that holds the method's name or an escape (a name may be
%% written `notifications\/tools\/list_changed'): a longer line that
%% holds those words is dropped as any notification is, after the
%% validating scan, so the actor builds no line a server sends it to drop.

noticed(Line, #data{list_changed = true} = Data) when byte_size(Line) =< ?MAX_NOTICE_BYTES ->
    %% The method's name as written, or any escape (`\/' is JSON's too).
    case binary:match(Line, [<<"notifications/tools/list_changed">>, <<"\\">>]) of
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
    %% The listing's copy stays in the re-lister: its exit reason, which the
    %% actor's `DOWN' would copy back, names nothing of it.
    {_Pid, Monitor} = spawn_monitor(fun() -> _ = gen_statem:call(Actor, {list_tools, Timeout}), exit(relisted) end),
    Data#data{relist = {running, Monitor}, relist_again = false, relist_at = erlang:monotonic_time(millisecond)}.

relisted(#data{relist_again = true} = Data) ->
    Data#data{relist = {waiting, erlang:start_timer(?RELIST_INTERVAL_MS, self(), relist)}, relist_again = false};
relisted(Data) ->
    Data#data{relist = idle}.
