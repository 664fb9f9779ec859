%% Every public function of the package answers every value its types
%% admit: it returns, within a hang guard, a value of its declared shape
%% (`Ok'/`Error' for a `Result'), and never raises.
%%
%% The functions come from the package interface, which the test exports
%% itself (`gleam export package-interface', by the compiler running
%% `gleam test') into build/package-interface.json on every run, so a
%% function added later is called too and `gleam test' needs no step
%% before it. Each parameter type has ordinary values and hostile
%% ones (`values/1'); each function is called once with ordinary values and
%% then, parameter by parameter, with each hostile value of that parameter's
%% type. A parameter type with no entry in `values/1' fails the test,
%% naming the type. Each call runs in a process of its own, which owns
%% whatever the call creates (clients are retired with it).
-module(totality_test).

%% `channel/0' is shared with beyond_limits_test.gleam.
-export([channel/0]).
-export([every_public_function_answers_hostile_values_test_/0,
         the_check_reports_a_function_that_raises_test/0,
         the_check_reports_a_result_of_the_wrong_shape_test/0]).

-define(INTERFACE, "build/package-interface.json").
%% A hang guard per call, not a timed assertion.
-define(HANG_GUARD_MS, 30000).

every_public_function_answers_hostile_values_test_() ->
    {timeout, 900, fun every_public_function_answers_hostile_values/0}.

every_public_function_answers_hostile_values() ->
    Functions = public_functions(),
    case length(Functions) >= 80 of
        true -> ok;
        false -> erlang:error({too_few_functions_in_the_interface, length(Functions)})
    end,
    case [{Module, Name, Type} || {Module, Name, Params, _Return} <- Functions,
                                  Type <- Params, not has_values(Type)] of
        [] -> ok;
        Untyped -> erlang:error({parameter_types_without_hostile_values, Untyped})
    end,
    Failures = lists:append([failures(Function) || Function <- Functions]),
    case Failures of
        [] -> ok;
        _ -> erlang:error({functions_that_did_not_answer, length(Failures), Failures})
    end.

%% The check can fail: a function that raises, and one whose `Result' is
%% not `Ok'/`Error', are reported.
the_check_reports_a_function_that_raises_test() ->
    [{_, raised, {error, badarg}}] = call_checked(erlang, binary_to_atom, [fun() -> 1 end], result),
    ok.

the_check_reports_a_result_of_the_wrong_shape_test() ->
    [{_, wrong_shape, 3}] = call_checked(erlang, abs, [fun() -> -3 end], result),
    [] = call_checked(erlang, abs, [fun() -> -3 end], int),
    ok.

%% ---- the interface

%% [{ErlangModule, Function, [ParamType], ReturnShape}]
public_functions() ->
    {ok, Text} = file:read_file(export_interface()),
    {ok, Interface} = mcp_json:decode(Text),
    {object, Modules} = get(<<"modules">>, Interface),
    [{binary_to_atom(binary:replace(Module, <<"/">>, <<"@">>, [global])), binary_to_atom(Name),
      [type(get(<<"type">>, Param)) || Param <- array(get(<<"parameters">>, Function))],
      shape(type(get(<<"return">>, Function)))}
     || {Module, Definitions} <- Modules,
        {Name, Function} <- members(get(<<"functions">>, Definitions))].

%% `gleam export package-interface' by the compiler that runs this test
%% (the VM's parent), or else `gleam' on PATH or in MCP_GLEAM_HOME.
export_interface() ->
    Gleam = case [G || G <- [parent_executable(), os:find_executable("gleam"), gleam_home()],
                       is_list(G), filename:basename(G) =:= "gleam"] of
                [First | _] -> First;
                [] -> erlang:error({no_gleam_compiler, "the test exports the package interface with gleam: "
                                                      "put gleam on PATH or set MCP_GLEAM_HOME"})
            end,
    Port = open_port({spawn_executable, Gleam}, [{args, ["export", "package-interface", "--out", ?INTERFACE]},
                                                 exit_status, stderr_to_stdout, binary]),
    case collect(Port, []) of
        {0, _} -> ?INTERFACE;
        {Status, Output} -> erlang:error({package_interface_not_exported, Gleam, Status, Output})
    end.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(lists:reverse(Acc))}
    end.

parent_executable() ->
    case file:read_file("/proc/" ++ os:getpid() ++ "/stat") of
        {ok, Stat} ->
            %% pid (comm) state ppid ...: the fields after the last ')'
            [_, After] = string:split(Stat, <<")">>, trailing),
            [_State, PPid | _] = string:lexemes(After, " "),
            case file:read_link("/proc/" ++ binary_to_list(PPid) ++ "/exe") of
                {ok, Path} -> Path;
                {error, _} -> false
            end;
        {error, _} -> false
    end.

gleam_home() ->
    case os:getenv("MCP_GLEAM_HOME") of
        false -> false;
        Home -> filename:join([Home, "bin", "gleam"])
    end.

get(Key, {object, Members}) ->
    {Key, Value} = lists:keyfind(Key, 1, Members),
    Value.

members({object, Members}) -> Members.
array({array, Items}) -> Items.

%% {named, Module, Name, [Param]} | {tuple, [Element]} | {other, Kind}
type(Type) ->
    case get(<<"kind">>, Type) of
        {string, <<"named">>} ->
            {string, Module} = get(<<"module">>, Type),
            {string, Name} = get(<<"name">>, Type),
            {named, Module, Name, [type(P) || P <- array(get(<<"parameters">>, Type))]};
        {string, <<"tuple">>} ->
            {tuple, [type(E) || E <- array(get(<<"elements">>, Type))]};
        {string, Kind} ->
            {other, Kind}
    end.

shape({named, <<"gleam">>, <<"Result">>, _}) -> result;
shape({named, <<"gleam/option">>, <<"Option">>, _}) -> option;
shape({named, <<"gleam">>, <<"Int">>, _}) -> int;
shape({named, <<"gleam">>, <<"Bool">>, _}) -> bool;
shape({named, <<"gleam">>, <<"String">>, _}) -> string;
shape({named, <<"gleam">>, <<"Nil">>, _}) -> nil;
shape({named, <<"gleam">>, <<"List">>, _}) -> list;
shape({named, <<"gleam">>, <<"BitArray">>, _}) -> bits;
shape(_) -> any.

%% ---- the calls

failures({Module, Name, Params, Return}) ->
    Ordinary = [ordinary(Type) || Type <- Params],
    Hostile = [{Index, Label, Value}
               || {Index, Type} <- lists:enumerate(Params), {Label, Value} <- hostile(Type)],
    Vectors = [{ordinary, Ordinary}
               | [{{parameter, Index, Label}, replace(Index, Value, Ordinary)} || {Index, Label, Value} <- Hostile]],
    [{Module, Name, Which, Kind, Detail}
     || {Which, Args} <- Vectors, {_, Kind, Detail} <- call_checked(Module, Name, Args, Return)].

replace(Index, Value, List) ->
    {Before, [_ | After]} = lists:split(Index - 1, List),
    Before ++ [Value | After].

%% [] when `Module:Name' applied to the values the funs make returns a
%% value of `Shape'; otherwise one `{Args, raised | wrong_shape |
%% hang_guard, Detail}'.
call_checked(Module, Name, ArgMakers, Shape) ->
    {Pid, Monitor} = spawn_monitor(fun() ->
                                           Args = [Make() || Make <- ArgMakers],
                                           exit({returned, try {ok, apply(Module, Name, Args)}
                                                           catch Class:Reason -> {raised, {Class, Reason}}
                                                           end})
                                   end),
    receive
        {'DOWN', Monitor, process, Pid, {returned, {ok, Value}}} ->
            case has_shape(Shape, Value) of
                true -> [];
                false -> [{Name, wrong_shape, Value}]
            end;
        {'DOWN', Monitor, process, Pid, {returned, {raised, Raised}}} ->
            [{Name, raised, Raised}];
        {'DOWN', Monitor, process, Pid, Other} ->
            [{Name, raised, Other}]
    after ?HANG_GUARD_MS ->
        exit(Pid, kill),
        [{Name, hang_guard, ?HANG_GUARD_MS}]
    end.

has_shape(result, {ok, _}) -> true;
has_shape(result, {error, _}) -> true;
has_shape(option, none) -> true;
has_shape(option, {some, _}) -> true;
has_shape(int, Value) -> is_integer(Value);
has_shape(bool, Value) -> is_boolean(Value);
has_shape(string, Value) -> is_binary(Value);
has_shape(nil, Value) -> Value =:= nil;
has_shape(list, Value) -> is_list(Value);
has_shape(bits, Value) -> is_bitstring(Value);
has_shape(any, _) -> true;
has_shape(_, _) -> false.

%% ---- values: `{Ordinary, [{Label, Hostile}]}', each value a fun that
%% makes it in the calling process.

has_values(Type) ->
    try values(Type) of
        _ -> true
    catch error:{no_values_for, _} -> false
    end.

ordinary(Type) -> element(1, values(Type)).
hostile(Type) -> element(2, values(Type)).

c(Value) -> fun() -> Value end.

values({named, <<"gleam">>, <<"Int">>, []}) ->
    {c(1), [{negative, c(-1)}, {zero, c(0)}, {huge, c(1 bsl 100)}, {huge_negative, c(-(1 bsl 100))}]};
values({named, <<"gleam">>, <<"String">>, []}) ->
    {c(<<"a">>), [{empty, c(<<>>)}, {nul, c(<<"a\0b">>)}, {long, c(binary:copy(<<"é"/utf8>>, 100000))},
                  {controls, c(<<"\e[2J\x{202E}@"/utf8>>)}]};
values({named, <<"gleam">>, <<"BitArray">>, []}) ->
    {c(<<"[1]">>), [{empty, c(<<>>)}, {three_bits, c(<<1:3>>)}, {bytes_and_a_bit, c(<<"[1]", 1:1>>)},
                    {garbage, c(<<255, 0, 193, "\n{">>)}]};
values({named, <<"gleam">>, <<"List">>, [Item]}) ->
    {Ordinary, Hostile} = values(Item),
    {fun() -> [Ordinary()] end,
     [{{item, Label}, fun() -> [Ordinary(), Make()] end} || {Label, Make} <- Hostile]
     ++ [{empty, c([])}, {many, fun() -> [Ordinary() || _ <- lists:seq(1, 300)] end}]};
values({named, <<"gleam/option">>, <<"Option">>, [Item]}) ->
    {Ordinary, Hostile} = values(Item),
    {c(none), [{some, fun() -> {some, Ordinary()} end}
               | [{{some, Label}, fun() -> {some, Make()} end} || {Label, Make} <- Hostile]]};
values({named, <<"mcp/json">>, <<"JsonValue">>, []}) ->
    {c({int, 1}), json_hostile()};
values({named, <<"mcp/jsonrpc">>, <<"Id">>, []}) ->
    {c({id_int, 1}), [{huge_int, c({id_int, 1 bsl 100})}, {empty_string, c({id_string, <<>>})}]};
values({named, <<"mcp/protocol">>, <<"ToolDescriptor">>, []}) ->
    {c(tool(<<"t">>, {object, []}, none)),
     [{{input_schema, Label}, fun() -> tool(<<"t">>, Make(), none) end} || {Label, Make} <- json_hostile()]
     ++ [{{execution, Label}, fun() -> tool(<<"t">>, {object, []}, {some, Make()}) end}
         || {Label, Make} <- json_hostile()]
     ++ [{{everything, Label}, fun() -> V = Make(), {tool_descriptor, <<>>, {some, <<>>}, {some, <<"@">>}, V,
                                                     {some, V}, {some, V}, {some, V}} end}
         || {Label, Make} <- json_hostile()]};
values({named, <<"mcp/interchange">>, <<"MsgpackValue">>, []}) ->
    {c({int_value, 1}),
     [{at_depth_limit, fun() -> nested_msgpack(128) end}, {past_depth_limit, fun() -> nested_msgpack(129) end},
      {int_past_range, c({int_value, 1 bsl 64})}, {int_below_range, c({int_value, -(1 bsl 63) - 1})},
      {binary_bits, c({binary_value, <<1:3>>})}, {ext_bits, c({ext_value, 1, <<1:5>>})},
      {ext_type_past_a_byte, c({ext_value, 1000, <<>>})}, {string_not_utf8, c({string_value, <<255>>})},
      {binary_key, c({map_value, [{{binary_value, <<>>}, nil_value}]})}]};
values({named, <<"mcp/interchange">>, <<"InterchangeFault">>, []}) ->
    {c({interchange_fault, <<"$">>, <<"x">>}),
     [{empty, c({interchange_fault, <<>>, <<>>})}, {long, c({interchange_fault, binary:copy(<<"[0]">>, 100000), <<"x">>})}]};
values({named, <<"mcp/codegen">>, <<"GenerateError">>, []}) ->
    {c({too_many_tools, 300, 256}),
     [{huge_counts, c({too_many_tools, 1 bsl 100, -1})}, {negative_bytes, c({surface_too_large, -1, -2})},
      {negative_offset, c({sanitizer_breach, -1})}, {empty_names, c({tool_name_collision, <<>>, <<>>})},
      {beyond_limits, c({value_beyond_limits, <<>>, <<"$">>, <<"x">>})}]};
values({named, <<"mcp/stdio">>, <<"Buffer">>, []}) ->
    {fun() -> mcp_stdio:new() end,
     [{capped_at_one, fun() -> mcp_stdio:new(1) end},
      {holding_a_partial_line, fun() -> {ok, [], Buffer} = mcp_stdio:push(mcp_stdio:new(), <<"{\"a\"">>), Buffer end}]};
values({named, <<"mcp/client">>, <<"Client">>, []}) ->
    {fun() -> prepared() end,
     [{stopped, fun() -> Client = prepared(), ok = mcp_client:stop(Client), Client end},
      {retired, fun() -> Client = prepared(), {ok, _} = mcp_client:shutdown(Client, 5000), Client end}]};
values({named, <<"mcp/client">>, <<"Options">>, []}) ->
    Reconnecting = fun(Policy) -> fun() -> setelement(9, options(5000), {some, Policy}) end end,
    {fun() -> options(5000) end,
     [{negative_timeouts, fun() -> options(-1) end}, {huge_timeouts, fun() -> options(1 bsl 100) end},
      {empty_client_info, fun() -> setelement(2, options(5000), {<<>>, <<>>}) end},
      {reconnect_without_waits, Reconnecting({reconnect, 1, 0, 0, 0, 0})},
      {reconnect_zero_attempts, Reconnecting({reconnect, 0, 500, 30000, 60000, 10000})},
      {reconnect_huge_attempts, Reconnecting({reconnect, 1 bsl 100, 500, 30000, 60000, 10000})},
      {reconnect_negative_waits, Reconnecting({reconnect, 1, -1, -1, -1, -1})},
      {reconnect_huge_waits, Reconnecting({reconnect, 1, 1 bsl 100, 1 bsl 100, 1 bsl 100, 1 bsl 100})}]};
values({named, <<"mcp/transport">>, <<"Transport">>, []}) ->
    {fun() -> {port_transport, spawn_of(<<"/bin/true">>)} end,
     [{Label, fun() -> {port_transport, Make()} end} || {Label, Make} <- spawn_hostile()]
     ++ [{channel_start_refused, c({channel_transport, fun(_) -> {error, <<"no">>} end})},
         {channel_start_raises, c({channel_transport, fun(_) -> erlang:error(badarith) end})}]
     ++ [{Label, c({http_transport, {remote, <<"http://127.0.0.1:1/mcp">>, [], none, {some, OAuth}}})}
         || {Label, OAuth} <- oauth_hostile()]};
values({named, <<"mcp/transport">>, <<"Channel">>, []}) ->
    {fun() -> channel() end, []};
values({named, <<"gleam/erlang/process">>, <<"Pid">>, []}) ->
    {fun() -> self() end, [{dead, fun() -> {Pid, Monitor} = spawn_monitor(fun() -> ok end),
                                           receive {'DOWN', Monitor, _, _, _} -> Pid end end}]};
values({named, <<"mcp/client">>, <<"ClientError">>, []}) ->
    {c(mcp_gleam_ffi:client_error(call_timed_out)),
     [{Label, fun() -> mcp_gleam_ffi:client_error(Error) end} || {Label, Error} <- hostile_client_errors()]};
values({named, <<"mcp/client">>, <<"StartError">>, []}) ->
    {c(mcp_gleam_ffi:start_error(tools_not_declared)),
     [{{handshake_failed, Label}, fun() -> mcp_gleam_ffi:start_error({handshake_failed, Error}) end}
      || {Label, Error} <- hostile_client_errors()]
     ++ [{long_versions, fun() -> mcp_gleam_ffi:start_error({version_unsupported, binary:copy(<<"v">>, 100000), <<>>}) end},
         {odd_transport_failure, fun() -> mcp_gleam_ffi:start_error({transport_failed, {weird, [1 bsl 100]}}) end},
         {odd_token_store, fun() -> mcp_gleam_ffi:start_error({transport_failed, {oauth, {odd, 1 bsl 100}}}) end},
         {huge_consent_timeout, c({o_auth_unusable, {consent_timeout_out_of_range, 1 bsl 100}})},
         {huge_redirect_port, c({o_auth_unusable, {redirect_port_out_of_range, 1 bsl 100}})},
         {odd_oauth_names, c({o_auth_unusable, {private_key_unreadable, <<"/\0", 27>>, <<>>}})},
         {huge_reconnect_attempts, c({reconnect_out_of_range, <<"attempts">>, 1 bsl 100})},
         {odd_reconnect_field, c({reconnect_out_of_range, <<"\e[2J\0">>, -(1 bsl 100)})}]};
values({named, <<"mcp/client">>, <<"RetirementError">>, []}) ->
    {c(mcp_gleam_ffi:retirement_error(retirement_timed_out)),
     [{unconfirmed, fun() -> mcp_gleam_ffi:retirement_error({retirement_unconfirmed, {port_exited, {odd, 1 bsl 100}}}) end}]};
values({named, <<"gleam/erlang/process">>, <<"Selector">>, [_]}) ->
    {fun() -> gleam@erlang@process:new_selector() end, []};
values({other, <<"fn">>}) ->
    %% The one function parameter (a selector's mapping) takes one value.
    {fun() -> fun(Value) -> Value end end, []};
values(Type) ->
    erlang:error({no_values_for, Type}).

%% Both sides of each JSON limit, and the parts past them inside a value.
json_hostile() ->
    MaxDepth = mcp_json:max_depth(),
    MaxDigits = mcp_json:max_integer_digits(),
    Long = fun(Digits) -> binary_to_integer(binary:copy(<<"9">>, Digits)) end,
    [{at_depth_limit, fun() -> nested(MaxDepth, {int, 1}) end},
     {past_depth_limit, fun() -> nested(MaxDepth + 1, {int, 1}) end},
     {far_past_depth_limit, fun() -> nested(100000, null) end},
     {objects_past_depth_limit, fun() -> nested_objects(MaxDepth + 1) end},
     {integer_at_digit_limit, fun() -> {int, Long(MaxDigits)} end},
     {integer_past_digit_limit, fun() -> {int, -Long(MaxDigits + 1)} end},
     {schema_with_a_deep_property,
      fun() -> {object, [{<<"type">>, {string, <<"object">>}},
                         {<<"properties">>, {object, [{<<"a">>, nested(MaxDepth, null)}]}}]} end},
     {schema_with_a_long_integer,
      fun() -> {object, [{<<"type">>, {string, <<"object">>}},
                         {<<"properties">>, {object, [{<<"a">>, {object, [{<<"maximum">>, {int, Long(MaxDigits + 1)}}]}}]}}]} end},
     {call_result_with_deep_structured_content,
      fun() -> {object, [{<<"content">>, {array, []}}, {<<"structuredContent">>, nested(MaxDepth, null)}]} end},
     {duplicate_keys_and_odd_text,
      c({object, [{<<>>, null}, {<<>>, {string, <<"\0">>}}, {<<"tools">>, {string, <<"x">>}}]})}].

nested(0, Leaf) -> Leaf;
nested(N, Leaf) -> {array, [nested(N - 1, Leaf)]}.

nested_objects(0) -> null;
nested_objects(N) -> {object, [{<<"k">>, nested_objects(N - 1)}]}.

nested_msgpack(0) -> nil_value;
nested_msgpack(N) -> {array_value, [nested_msgpack(N - 1)]}.

tool(Name, InputSchema, Execution) ->
    {tool_descriptor, Name, none, none, InputSchema, none, none, Execution}.

%% `OAuth' values no environment, file system or clock can honour.
oauth_hostile() ->
    Store = fun(Grant, TokenStore) -> {o_auth, Grant, [<<"\0">>], TokenStore, true} end,
    Code = fun(Consent, Timeout) -> {authorization_code, dynamic_registration, Consent, Timeout, none} end,
    [{secret_variable_with_nul, Store({client_credentials, <<"c">>, {secret_from_env, <<"A=\0B">>}}, no_token_store)},
     {key_path_with_nul, Store({client_credentials, <<"c">>, {private_key_file, <<"/tmp/\0k">>, <<"none">>}}, no_token_store)},
     {token_directory_with_nul, Store(Code(no_consent, 1000), {token_directory, <<"/tmp/\0d">>})},
     {browser_with_nul, Store(Code({browser, <<"\0">>}, 1000), no_token_store)},
     {negative_consent_timeout, Store(Code(no_consent, -1), no_token_store)},
     {huge_consent_timeout, Store(Code(print_authorization_url, 1 bsl 100), no_token_store)},
     {huge_redirect_port, Store({authorization_code, dynamic_registration, no_consent, 1000, {some, 1 bsl 100}},
                                no_token_store)},
     {negative_redirect_port, Store({authorization_code, dynamic_registration, no_consent, 1000, {some, -1}},
                                    no_token_store)},
     {assertion_path_with_nul, Store({jwt_bearer, <<"c">>, {assertion_file, <<"/tmp/\0a">>}}, no_token_store)},
     {assertion_variable_with_nul, Store({jwt_bearer, <<"c">>, {assertion_from_env, <<"A=\0B">>}}, no_token_store)},
     {id_token_path_with_nul, Store({enterprise_managed, <<"c">>, {secret_from_env, <<"A=\0B">>},
                                     {assertion_file, <<"/tmp/\0i">>}, <<"\0">>, {some, <<"\0">>}}, no_token_store)}].

hostile_client_errors() ->
    [{odd_authorization_failure, {unavailable, {authorization_failed, {token_refused, 1 bsl 100, {odd, self()}}}}},
     {negative_token_status, {unavailable, {authorization_failed, {token_refused, -1, <<>>}}}},
{huge_rpc_code, {server_error, {rpc_error, 1 bsl 100, <<>>, {some, nested(200, null)}}}},
     {flooded_huge, {unavailable, {flooded, 1 bsl 100}}},
     {malformed_long_path, {result_malformed, {protocol_fault, binary:copy(<<".a">>, 100000), <<>>}}},
     {odd_transport_end, {unavailable, {transport_ended, {unconfirmed, {odd, self(), make_ref()}}}}},
     {reconnecting_twice, {unavailable, {reconnecting, {reconnecting, {flooded, 1 bsl 100}}}}}].

%% A parked client of a server that exits at once (`/bin/true').
prepared() ->
    {ok, Client} = mcp_client:prepare(#{executable => "/bin/true"}, #{handshake_timeout_ms => 5000}),
    Client.

options(Timeout) ->
    {options, {<<"totality">>, <<"0">>}, Timeout, Timeout, Timeout, handshake, none, Timeout, none}.

spawn_of(Executable) ->
    'mcp@transport':spawn(Executable, []).

spawn_hostile() ->
    Spawn = spawn_of(<<"/bin/true">>),
    Set = fun(Field, Value) -> fun() -> setelement(Field, Spawn, Value) end end,
    [{empty_executable, fun() -> spawn_of(<<>>) end},
     {nul_in_executable, fun() -> spawn_of(<<"/bin/tr\0ue">>) end},
     {missing_executable, fun() -> spawn_of(<<"/nonexistent/server">>) end},
     {nul_in_args, Set(3, [<<"a\0b">>])},
     {env_name_with_equals, Set(4, [{<<"A=B">>, {set, <<"x">>}}])},
     {env_name_with_nul, Set(4, [{<<"A\0">>, unset}])},
     {env_empty_name, Set(4, [{<<>>, {set, <<>>}}])},
     {missing_cwd, Set(5, {some, <<"/nonexistent/dir">>})},
     {negative_line_cap, Set(7, {some, -1})},
     {huge_line_cap, Set(7, {some, 1 bsl 100})},
     {negative_grace, Set(8, -1)},
     {huge_grace, Set(8, 1 bsl 100)},
     {relative_jail_grant, Set(9, {some, {jail, [<<"relative">>], [], [], false, false, true, default_profile, none}})},
     {jail_bwrap_missing, Set(9, {some, {jail, [], [], [], false, false, true, default_profile, {some, <<"/nonexistent/bwrap">>}}})},
     {stderr_file_negative_bound, Set(10, {stderr_to_file, <<"/tmp/totality-stderr">>, -1})},
     {stderr_file_unwritable, Set(10, {stderr_to_file, <<"/nonexistent/dir/err">>, 10})},
     {stderr_label_with_a_newline, Set(10, {labelled_stderr, <<"a\nb">>})},
     {stderr_label_sed_would_read, Set(10, {labelled_stderr, <<"\\1/&">>})}].

%% A channel, as a `ChannelTransport' start function receives it.
channel() ->
    Self = self(),
    {ok, Client} = mcp_client:prepare({mcp_channel, fun(Channel) -> Self ! {channel, Channel}, {error, <<"only the channel">>} end},
                                      #{handshake_timeout_ms => 5000}),
    _ = mcp_client:connect(Client),
    receive {channel, Channel} -> Channel after 5000 -> erlang:error(no_channel) end.
