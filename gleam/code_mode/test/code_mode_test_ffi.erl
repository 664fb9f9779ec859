-module(code_mode_test_ffi).
-export([build_lib_dir/0]).

%% The directory holding this build's applications (`mcp' among them), for
%% the example server's ERL_LIBS.
build_lib_dir() ->
    unicode:characters_to_binary(filename:dirname(filename:dirname(code:which(mcp_json)))).
