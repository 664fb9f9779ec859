%% Test-only helpers the Gleam suites need and Gleam cannot express.
-module(mcp_test_ffi).
-export([rescue/1, bytes_of/2, os_process_alive/1, build_lib_dir/0, read_text/1]).

%% Runs Fun; `{error, Class}' (a binary) if it raised.
rescue(Fun) ->
    try Fun() of
        Value -> {ok, Value}
    catch
        Class:_ -> {error, atom_to_binary(Class)}
    end.

%% Count copies of the one-byte binary Byte.
bytes_of(Byte, Count) -> binary:copy(Byte, Count).


os_process_alive(OsPid) ->
    os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo yes") =:= "yes\n".

%% The directory holding this build's compiled applications (`mcp' among
%% them): an ERL_LIBS value for a child VM that needs `mcp_json'.
build_lib_dir() ->
    unicode:characters_to_binary(filename:dirname(filename:dirname(code:which(mcp_json)))).

read_text(Path) ->
    {ok, Text} = file:read_file(Path),
    Text.
