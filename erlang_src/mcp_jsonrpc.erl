%% @doc The JSON-RPC 2.0 envelope (`mcp/jsonrpc'): a total decoder for one
%% inbound line, encoders of the four message kinds as `json()' terms, and
%% the standard error codes.
%%
%% `decode/1' never raises on a binary: a line that is not JSON is
%% `{malformed_message, corruption_report()}', JSON that is not a JSON-RPC
%% 2.0 message is `{bad_message, Reason}' (a short fixed phrase). Strict
%% envelope: `jsonrpc' is exactly `"2.0"'; an id is an integer (any size) or
%% a string; a response has exactly one of `result'/`error'; `params' is an
%% object or an array; a duplicated envelope key (`jsonrpc', `id', `method',
%% `result', `error', `params', and `code'/`message'/`data' inside `error')
%% and a batch are faults. Tolerant content: unknown members are ignored and
%% `params', `result' and error `data' cross as raw `json()'.
%%
%% Decoding runs in the Rust core; lines of at least
%% `mcp_json:dirty_threshold()' bytes are decoded on a dirty CPU scheduler.
%% The encoders build `json()' terms in Erlang (no NIF round trip for the
%% caller's params); `mcp_json:encode_line/1' turns them into wire lines. The
%% client sends the requests and notifications built here; its answers to a
%% server's requests are built by `mcp_protocol:read/2'.
-module(mcp_jsonrpc).

-export([decode/1, request/3, notification/2, result_response/2, error_response/3,
         parse_error/0, invalid_request/0, method_not_found/0, invalid_params/0,
         internal_error/0]).
-export_type([id/0, rpc_error/0, inbound/0, message_fault/0, params/0]).

-include("mcp_scheduling.hrl").

-type json() :: mcp_json:json().
-type id() :: {id_int, integer()} | {id_string, binary()}.
-type params() :: {some, json()} | none.
-type rpc_error() :: {rpc_error, Code :: integer(), Message :: binary(),
                      Data :: {some, json()} | none}.
-type inbound() :: {response, id(), {ok, json()} | {error, rpc_error()}}
                 | {server_request, id(), Method :: binary(), Params :: params()}
                 | {notification, Method :: binary(), Params :: params()}.
-type message_fault() :: {malformed_message, mcp_json:corruption_report()}
                       | {bad_message, Reason :: binary()}.

%% @doc Decodes one line (without its newline).
-spec decode(binary()) -> {ok, inbound()} | {error, message_fault()}.
decode(Line) when byte_size(Line) >= ?DIRTY_THRESHOLD -> mcp_nif:jsonrpc_decode_dirty(Line);
decode(Line) when is_binary(Line) -> mcp_nif:jsonrpc_decode(Line).

%% @doc `{"jsonrpc":"2.0","id":Id,"method":Method[,"params":Params]}'.
-spec request(id(), binary(), params()) -> json().
request(Id, Method, Params) when is_binary(Method) ->
    envelope([{<<"id">>, id_json(Id)}, {<<"method">>, {string, Method}} | params_members(Params)]).

%% @doc `{"jsonrpc":"2.0","method":Method[,"params":Params]}'.
-spec notification(binary(), params()) -> json().
notification(Method, Params) when is_binary(Method) ->
    envelope([{<<"method">>, {string, Method}} | params_members(Params)]).

%% @doc `{"jsonrpc":"2.0","id":Id,"result":Result}'.
-spec result_response(id(), json()) -> json().
result_response(Id, Result) ->
    envelope([{<<"id">>, id_json(Id)}, {<<"result">>, Result}]).

%% @doc `{"jsonrpc":"2.0","id":Id,"error":{"code":Code,"message":Message}}'.
-spec error_response(id(), integer(), binary()) -> json().
error_response(Id, Code, Message) when is_integer(Code), is_binary(Message) ->
    Error = {object, [{<<"code">>, {int, Code}}, {<<"message">>, {string, Message}}]},
    envelope([{<<"id">>, id_json(Id)}, {<<"error">>, Error}]).

%% @doc -32700. The standard error codes are defined once, in the Rust core
%% (`jsonrpc::PARSE_ERROR' ... `INTERNAL_ERROR'), and read from there.
-spec parse_error() -> integer().
parse_error() -> element(1, mcp_nif:jsonrpc_error_codes()).

%% @doc -32600.
-spec invalid_request() -> integer().
invalid_request() -> element(2, mcp_nif:jsonrpc_error_codes()).

%% @doc -32601, the code the client answers a server request with.
-spec method_not_found() -> integer().
method_not_found() -> element(3, mcp_nif:jsonrpc_error_codes()).

%% @doc -32602.
-spec invalid_params() -> integer().
invalid_params() -> element(4, mcp_nif:jsonrpc_error_codes()).

%% @doc -32603.
-spec internal_error() -> integer().
internal_error() -> element(5, mcp_nif:jsonrpc_error_codes()).

envelope(Members) -> {object, [{<<"jsonrpc">>, {string, <<"2.0">>}} | Members]}.

id_json({id_int, Int}) when is_integer(Int) -> {int, Int};
id_json({id_string, String}) when is_binary(String) -> {string, String}.

params_members({some, Params}) -> [{<<"params">>, Params}];
params_members(none) -> [].
