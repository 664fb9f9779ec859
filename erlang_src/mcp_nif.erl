%% @doc The NIF library loader and its stubs. This is the only module that
%% declares NIFs; the library modules that wrap them (and tests) call it.
%% Each `_dirty' function runs on a dirty CPU scheduler; its plain twin on
%% the caller's (native/mcp_nif/src/lib.rs says which twins take a work
%% budget and answer `dirty').
%%
%% The library is `priv/libmcp_nif.so' of the `mcp' application (falling back
%% to `../priv' beside this beam when the application is not on the code
%% path). If it cannot be loaded (never built, built for another system)
%% the module still loads, so a caller gets a reason rather than `undef':
%% `loaded/0' answers `false', a warning is logged once, and every stub
%% raises `{mcp_nif_not_loaded, Sentence}', one sentence naming the file
%% tried and the command that builds it.
-module(mcp_nif).

-on_load(init/0).

-export([priv_file/1, loaded/0]).

%% mcp_json
-export([json_decode/4, json_encode/4]).
-nifs([json_decode/4, json_encode/4]).
-export([json_max_depth/0, json_max_integer_digits/0]).
-nifs([json_max_depth/0, json_max_integer_digits/0]).

%% ---- wire codecs (mcp_jsonrpc, mcp_protocol, mcp_stdio) ----
-export([jsonrpc_decode/1, jsonrpc_decode_dirty/1,
         protocol_decode_initialize_result/1, protocol_decode_tools_page/1,
         protocol_decode_call_tool_result/1,
         protocol_read/2, protocol_read_dirty/2,
         stdio_join_dirty/1,
         stdio_scan/4, stdio_scan_dirty/3,
         wire_limits/0, jsonrpc_error_codes/0]).
-nifs([jsonrpc_decode/1, jsonrpc_decode_dirty/1,
       protocol_decode_initialize_result/1, protocol_decode_tools_page/1,
       protocol_decode_call_tool_result/1,
       protocol_read/2, protocol_read_dirty/2,
       stdio_join_dirty/1,
       stdio_scan/4, stdio_scan_dirty/3,
       wire_limits/0, jsonrpc_error_codes/0]).

%% ---- code mode generator (mcp_schema, mcp_name, mcp_codegen) ----
-export([schema_plan_dirty/1,
         name_mangle/1, name_mangle_dirty/1, name_mangle_label/1, name_mangle_label_dirty/1,
         name_digest/1, name_digest_dirty/1, name_first_collision/1, name_first_collision_dirty/1,
         codegen_generate_dirty/2, codegen_describe/1,
         codegen_sanitize/2, codegen_sanitize_dirty/2, codegen_truncate/2, codegen_truncate_dirty/2,
         codegen_escape/1, codegen_escape_dirty/1, codegen_scan_for_at/1, codegen_scan_for_at_dirty/1]).
-nifs([schema_plan_dirty/1,
       name_mangle/1, name_mangle_dirty/1, name_mangle_label/1, name_mangle_label_dirty/1,
       name_digest/1, name_digest_dirty/1, name_first_collision/1, name_first_collision_dirty/1,
       codegen_generate_dirty/2, codegen_describe/1,
       codegen_sanitize/2, codegen_sanitize_dirty/2, codegen_truncate/2, codegen_truncate_dirty/2,
       codegen_escape/1, codegen_escape_dirty/1, codegen_scan_for_at/1, codegen_scan_for_at_dirty/1]).
-export([codegen_limits/0, codegen_requires_tasks_dirty/1]).
-nifs([codegen_limits/0, codegen_requires_tasks_dirty/1]).

%% mcp_codegen:describe/1 on long names
-export([codegen_describe_dirty/1]).
-nifs([codegen_describe_dirty/1]).

%% ---- interchange ----
-export([interchange_to_json/2, interchange_to_json_dirty/1, interchange_to_msgpack/2,
         interchange_to_msgpack_dirty/1, msgpack_decode/1, msgpack_decode_dirty/1,
         msgpack_encode/2, msgpack_encode_dirty/1, msgpack_to_json_line/1,
         msgpack_to_json_line_dirty/1, json_to_msgpack_bytes/1, json_to_msgpack_bytes_dirty/1,
         interchange_limits/0]).
-nifs([interchange_to_json/2, interchange_to_json_dirty/1, interchange_to_msgpack/2,
       interchange_to_msgpack_dirty/1, msgpack_decode/1, msgpack_decode_dirty/1,
       msgpack_encode/2, msgpack_encode_dirty/1, msgpack_to_json_line/1,
       msgpack_to_json_line_dirty/1, json_to_msgpack_bytes/1, json_to_msgpack_bytes_dirty/1,
       interchange_limits/0]).

%% ---- the port child's watch (mcp_port) ----
-export([child_watch_open/1, child_watch_exited/1, child_watch_kill/1]).
-nifs([child_watch_open/1, child_watch_exited/1, child_watch_kill/1]).

%% ---- jail (mcp_jail) ----
-export([jail_seccomp_filter/1]).
-nifs([jail_seccomp_filter/1]).

%% ---- event streams (mcp_event_stream) ----
-export([event_stream_new/1, event_stream_push/3, event_stream_push_dirty/2, event_stream_heard/1,
         event_stream_max_event_bytes/0]).
-nifs([event_stream_new/1, event_stream_push/3, event_stream_push_dirty/2, event_stream_heard/1,
       event_stream_max_event_bytes/0]).

-spec init() -> ok.
init() ->
    Path = library_path(),
    case erlang:load_nif(Path, 0) of
        ok ->
            _ = persistent_term:erase({?MODULE, not_loaded}),
            ok;
        {error, {_Reason, Text}} ->
            Sentence = unicode:characters_to_binary(
                         io_lib:format("the mcp package's native library ~ts.so did not load (~ts): build it "
                                       "with `rebar3 compile` in the mcp checkout (it needs cargo, the Rust "
                                       "toolchain; `sh native/build.sh` builds only the library)", [Path, Text])),
            persistent_term:put({?MODULE, not_loaded}, Sentence),
            logger:warning("~ts", [Sentence]),
            ok
    end.

%% @doc Whether the NIF library is loaded (`false': every stub raises).
-spec loaded() -> boolean().
loaded() ->
    persistent_term:get({?MODULE, not_loaded}, loaded) =:= loaded.

%% The library path the loader tries (without the `.so' extension).
-spec library_path() -> file:filename_all().
library_path() ->
    priv_file("libmcp_nif").

%% @doc The path of `Name' in the `mcp' application's `priv' directory (the
%% NIF library, the jail's launcher), found as the library is.
-spec priv_file(string()) -> file:filename_all().
priv_file(Name) ->
    Dir = case code:priv_dir(mcp) of
              {error, bad_name} ->
                  filename:join([filename:dirname(code:which(?MODULE)), "..", "priv"]);
              PrivDir ->
                  PrivDir
          end,
    filename:join(Dir, Name).

not_loaded() ->
    erlang:nif_error({mcp_nif_not_loaded,
                      persistent_term:get({?MODULE, not_loaded},
                                          iolist_to_binary(["the mcp package's native library ", library_path(),
                                                            ".so is not loaded: build it with `rebar3 compile` "
                                                            "in the mcp checkout"]))}).

json_decode(_, _, _, _) -> not_loaded().
json_encode(_, _, _, _) -> not_loaded().
json_max_depth() -> not_loaded().
json_max_integer_digits() -> not_loaded().

%% wire codecs
jsonrpc_decode(_) -> not_loaded().
jsonrpc_decode_dirty(_) -> not_loaded().
protocol_decode_initialize_result(_) -> not_loaded().
protocol_decode_tools_page(_) -> not_loaded().
protocol_decode_call_tool_result(_) -> not_loaded().
protocol_read(_, _) -> not_loaded().
protocol_read_dirty(_, _) -> not_loaded().
stdio_join_dirty(_) -> not_loaded().
stdio_scan(_, _, _, _) -> not_loaded().
stdio_scan_dirty(_, _, _) -> not_loaded().
wire_limits() -> not_loaded().
jsonrpc_error_codes() -> not_loaded().

%% interchange
interchange_to_json(_, _) -> not_loaded().
interchange_to_json_dirty(_) -> not_loaded().
interchange_to_msgpack(_, _) -> not_loaded().
interchange_to_msgpack_dirty(_) -> not_loaded().
msgpack_decode(_) -> not_loaded().
msgpack_decode_dirty(_) -> not_loaded().
msgpack_encode(_, _) -> not_loaded().
msgpack_encode_dirty(_) -> not_loaded().
msgpack_to_json_line(_) -> not_loaded().
msgpack_to_json_line_dirty(_) -> not_loaded().
json_to_msgpack_bytes(_) -> not_loaded().
json_to_msgpack_bytes_dirty(_) -> not_loaded().
interchange_limits() -> not_loaded().

%% code mode generator
schema_plan_dirty(_) -> not_loaded().
name_mangle(_) -> not_loaded().
name_mangle_dirty(_) -> not_loaded().
name_mangle_label(_) -> not_loaded().
name_mangle_label_dirty(_) -> not_loaded().
name_digest(_) -> not_loaded().
name_digest_dirty(_) -> not_loaded().
name_first_collision(_) -> not_loaded().
name_first_collision_dirty(_) -> not_loaded().
codegen_generate_dirty(_, _) -> not_loaded().
codegen_describe(_) -> not_loaded().
codegen_describe_dirty(_) -> not_loaded().
codegen_sanitize(_, _) -> not_loaded().
codegen_sanitize_dirty(_, _) -> not_loaded().
codegen_truncate(_, _) -> not_loaded().
codegen_truncate_dirty(_, _) -> not_loaded().
codegen_escape(_) -> not_loaded().
codegen_escape_dirty(_) -> not_loaded().
codegen_scan_for_at(_) -> not_loaded().
codegen_scan_for_at_dirty(_) -> not_loaded().
codegen_limits() -> not_loaded().
codegen_requires_tasks_dirty(_) -> not_loaded().

%% the port child's watch
child_watch_open(_) -> not_loaded().
child_watch_exited(_) -> not_loaded().
child_watch_kill(_) -> not_loaded().

%% jail
jail_seccomp_filter(_UnixSockets) -> not_loaded().

%% event streams
event_stream_new(_) -> not_loaded().
event_stream_push(_, _, _) -> not_loaded().
event_stream_push_dirty(_, _) -> not_loaded().
event_stream_heard(_) -> not_loaded().
event_stream_max_event_bytes() -> not_loaded().
