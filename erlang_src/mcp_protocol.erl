%% @doc MCP protocol messages (`mcp/protocol'): the params the client sends,
%% total decoders for the results it reads, and `read/2', the client actor's
%% reading of a whole inbound line.
%%
%% The decoders take the `json()' a response carried and never raise on
%% one (a term outside `json()' raises `badarg'). Every fault names its path,
%% `$.tools[3].inputSchema'-style, with a short fixed reason (`missing',
%% `empty', `expected a string', `expected a boolean', `expected an object',
%% `expected an array'). Strict where the client depends on a member,
%% tolerant elsewhere: unknown members are ignored; schemas, annotations,
%% `execution' and `structuredContent' cross raw; an optional member given
%% as `null' counts as absent; where a key repeats, its first occurrence is
%% read.
%%
%% Invariants: the declared client capabilities are exactly `{object, []}'
%% (no sampling, roots or elicitation); a decoded `initialize_result()' has a
%% protocol version in `supported_versions()'; one bad tool entry fails the
%% whole page. The decoders run in the Rust core on a dirty CPU scheduler
%% (`read/2' by the line's size).
-module(mcp_protocol).

-export([requested_version/0, supported_versions/0,
         initialize_params/2, initialize_params/3, decode_initialize_result/1,
         tools_list_params/1, decode_tools_page/1,
         tools_call_params/2, tools_call_params_text/2, tools_call_request/2, decode_call_tool_result/1, read/2]).
-export_type([initialize_result/0, tools_capability/0, server_info/0, tool_descriptor/0,
              tools_page/0, call_tool_result/0, msgpack_call_tool_result/0, content_block/0,
              protocol_fault/0, expectation/0, reading/0, line_fault/0]).

-include("mcp_scheduling.hrl").

-type json() :: mcp_json:json().
-type tools_capability() :: {tools_capability, ListChanged :: boolean()}.
-type server_info() :: {server_info, Name :: binary(), Version :: binary()}.
-type initialize_result() :: {initialize_result, ProtocolVersion :: binary(),
        Tools :: {some, tools_capability()} | none,
        ServerInfo :: server_info(),
        Instructions :: {some, binary()} | none}.
-type tool_descriptor() :: {tool_descriptor, Name :: binary(),
        Title :: {some, binary()} | none, Description :: {some, binary()} | none,
        InputSchema :: json(), OutputSchema :: {some, json()} | none,
        Annotations :: {some, json()} | none,
        Execution :: {some, json()} | none}.
-type tools_page() :: {tools_page, [tool_descriptor()], NextCursor :: {some, binary()} | none}.
-type content_block() :: {text, binary()} | {other, Kind :: binary()}.
-type call_tool_result() :: {call_tool_result, [content_block()], IsError :: boolean(),
        StructuredContent :: {some, json()} | none}.
%% A `tools/call' result read with `call_tool_msgpack' (`read/2'): its
%% `structuredContent' as a msgpack value, or the fault that keeps it from
%% having one (as `mcp_interchange:to_msgpack/1' names it).
-type msgpack_call_tool_result() :: {msgpack_call_tool_result, [content_block()], IsError :: boolean(),
        StructuredContent :: {some, {ok, mcp_interchange:msgpack()}
                                    | {error, mcp_interchange:interchange_fault()}} | none}.
-type protocol_fault() :: {protocol_fault, Path :: binary(), Reason :: binary()}
                        | {unsupported_version, Requested :: binary(), Offered :: binary()}.
-type expectation() :: initialize | tools_page | call_tool | call_tool_msgpack | routed_call_tool
                     | routed_call_tool_msgpack | routed_result | ping.
%% `{input_required, Result}': a `tools/call' result whose `resultType' is
%% `"input_required"', kept whole (`mcp_input:read_input_required/1').
-type answer() :: {ok, initialize_result() | tools_page() | call_tool_result() | msgpack_call_tool_result()
                       | {input_required, json()}}
                | ok
                | {error, {server_error, mcp_jsonrpc:rpc_error()}}
                | {error, {result_malformed, protocol_fault()}}.
-type reading() :: {answer, Id :: integer(), answer()} | {routed, Id :: integer()} | {reply, Response :: binary()}
                   | {question, Response :: binary()}
                 | ignored.
-type line_fault() :: mcp_jsonrpc:message_fault() | {invalid_utf8, LineOffset :: non_neg_integer()}.

%% @doc The revision the client asks for (defined once, in the Rust core that
%% checks the server's answer: `protocol::REQUESTED_VERSION').
-spec requested_version() -> binary().
requested_version() -> maps:get(requested_version, mcp_nif:wire_limits()).

%% @doc The revisions the client accepts, newest first (`protocol::SUPPORTED_VERSIONS').
-spec supported_versions() -> [binary(), ...].
supported_versions() -> maps:get(supported_versions, mcp_nif:wire_limits()).

%% @doc `initialize' params; `capabilities' is the empty object.
-spec initialize_params(binary(), binary()) -> json().
initialize_params(ClientName, ClientVersion) ->
    initialize_params(ClientName, ClientVersion, {object, []}).

%% @doc `initialize_params/2' declaring `Capabilities' (`mcp_input:capabilities/1').
-spec initialize_params(binary(), binary(), json()) -> json().
initialize_params(ClientName, ClientVersion, Capabilities) when is_binary(ClientName), is_binary(ClientVersion) ->
    {object, [{<<"protocolVersion">>, {string, requested_version()}},
              {<<"capabilities">>, Capabilities},
              {<<"clientInfo">>, {object, [{<<"name">>, {string, ClientName}},
                                           {<<"version">>, {string, ClientVersion}}]}}]}.

%% @doc Decodes an `initialize' result; a version outside
%% `supported_versions()' is `{unsupported_version, Requested, Offered}'.
-spec decode_initialize_result(json()) -> {ok, initialize_result()} | {error, protocol_fault()}.
decode_initialize_result(Result) -> mcp_nif:protocol_decode_initialize_result(Result).

%% @doc `tools/list' params: `{}' or `{"cursor": Cursor}'.
-spec tools_list_params({some, binary()} | none) -> json().
tools_list_params(none) -> {object, []};
tools_list_params({some, Cursor}) when is_binary(Cursor) -> {object, [{<<"cursor">>, {string, Cursor}}]}.

%% @doc Decodes a `tools/list' result page.
-spec decode_tools_page(json()) -> {ok, tools_page()} | {error, protocol_fault()}.
decode_tools_page(Result) -> mcp_nif:protocol_decode_tools_page(Result).

%% @doc `tools/call' params: `{"name": Name, "arguments": Arguments}'.
-spec tools_call_params(binary(), json()) -> json().
tools_call_params(Name, Arguments) when is_binary(Name) ->
    {object, [{<<"name">>, {string, Name}}, {<<"arguments">>, Arguments}]}.

%% @doc `tools_call_params/2' as JSON text, encoded by the caller of a tool
%% (raises as `mcp_json:encode/1' for arguments that are not JSON).
-spec tools_call_params_text(binary(), json()) -> binary().
tools_call_params_text(Name, Arguments) ->
    mcp_json:encode(tools_call_params(Name, Arguments)).

%% @doc A `tools/call' request around params already encoded
%% (`tools_call_params_text/2'): the bytes `mcp_json:encode/1' gives for
%% `mcp_jsonrpc:request({id_int, Id}, <<"tools/call">>, {some, Params})'.
-spec tools_call_request(pos_integer(), binary()) -> [binary(), ...].
tools_call_request(Id, ParamsText) when is_integer(Id), Id > 0, is_binary(ParamsText) ->
    [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(Id), <<",\"method\":\"tools/call\",\"params\":">>,
     ParamsText, <<"}">>].

%% @doc Decodes a `tools/call' result: text blocks keep their text, every
%% other block is `{other, Type}'; `isError' defaults to false; `content' may
%% be absent only beside `structuredContent'.
-spec decode_call_tool_result(json()) -> {ok, call_tool_result()} | {error, protocol_fault()}.
decode_call_tool_result(Result) -> mcp_nif:protocol_decode_call_tool_result(Result).

%% @doc One inbound line as the client actor needs it, in one pass over the
%% line (`docs/client.md'): `Expected' maps the integer ids of the pending
%% requests to what their results are decoded as.
%% <ul>
%% <li>A response to a pending id is `{answer, Id, Answer}': `{ok, Result}'
%%     decoded as expected (`ok' for `ping', whose result is only
%%     validated), `{error, {server_error, rpc_error()}}', or
%%     `{error, {result_malformed, protocol_fault()}}'. A `tools/call'
%%     result's `structuredContent' is built once, from its bytes, as the
%%     term the expectation names: `json()' in a `call_tool_result()' for
%%     `call_tool', a msgpack value in a `msgpack_call_tool_result()' for
%%     `call_tool_msgpack' (what `decode_call_tool_result/1' and then
%%     `mcp_interchange:to_msgpack/1' would give, without the `json()' in
%%     between).</li>
%% <li>A complete `tools/call' result to an id expecting `routed_call_tool'
%%     (`routed_call_tool_msgpack') on a line of at least 1,024 bytes is
%%     `{routed, Id}': the whole line validated (its envelope, and its
%%     result without building it), for the waiting caller to read again
%%     with `call_tool' (`call_tool_msgpack'), which then gives its answer.
%%     A shorter line, an `input_required' result and an error are read as
%%     for `call_tool' (`call_tool_msgpack'): one read, where building the
%%     answer costs less than a second read of the line.</li>
%% <li>A server request is `{reply, Response}': the response to write back
%%     (compact JSON, no newline): an empty result for `ping', `-32601' for
%%     any other method; an `elicitation/create' (its method however
%%     written) is `{question, Response}', `Response' its `-32601' for when
%%     nothing else answers it. The request's id is echoed in this same
%%     call.</li>
%% <li>A notification, or a response to an id not in `Expected' (string,
%%     unknown or bignum ids), is `ignored': validated, nothing built.</li>
%% <li>A line that is not JSON-RPC is `{error, message_fault()}' as for
%%     `mcp_jsonrpc:decode/1', except that corruption caused by bytes that are
%%     not UTF-8 is `{error, {invalid_utf8, LineOffset}}' at the first such
%%     byte.</li>
%% </ul>
%% Lines of at least `mcp_json:dirty_threshold()' bytes are read on a dirty
%% CPU scheduler, smaller ones on the caller's.
-spec read(binary(), #{integer() => expectation()}) -> reading() | {error, line_fault()}.
read(Line, Expected) when byte_size(Line) >= ?DIRTY_THRESHOLD, is_map(Expected) ->
    mcp_nif:protocol_read_dirty(Line, Expected);
read(Line, Expected) when is_binary(Line), is_map(Expected) ->
    mcp_nif:protocol_read(Line, Expected).
