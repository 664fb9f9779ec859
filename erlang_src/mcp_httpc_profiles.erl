%% @doc The profile names of the `httpc' managers this package starts
%% (`start_manager/0'): a fixed pool of compile-time atoms, since
%% no library module mints an atom. A stand-alone manager's profile names
%% its ETS tables, so it is unique among live managers: at most 256 live at
%% once (each remote client holds one, and one more while it authorizes);
%% the 257th is `{error, too_many_clients}'.
-module(mcp_httpc_profiles).

-export([all/0, held/1, start_manager/0]).

%% @doc Every profile name, in the order they are tried.
-spec all() -> [atom(), ...].
all() ->
    [mcp_httpc_1, mcp_httpc_2, mcp_httpc_3, mcp_httpc_4, mcp_httpc_5, mcp_httpc_6, mcp_httpc_7, mcp_httpc_8,
     mcp_httpc_9, mcp_httpc_10, mcp_httpc_11, mcp_httpc_12, mcp_httpc_13, mcp_httpc_14, mcp_httpc_15, mcp_httpc_16,
     mcp_httpc_17, mcp_httpc_18, mcp_httpc_19, mcp_httpc_20, mcp_httpc_21, mcp_httpc_22, mcp_httpc_23, mcp_httpc_24,
     mcp_httpc_25, mcp_httpc_26, mcp_httpc_27, mcp_httpc_28, mcp_httpc_29, mcp_httpc_30, mcp_httpc_31, mcp_httpc_32,
     mcp_httpc_33, mcp_httpc_34, mcp_httpc_35, mcp_httpc_36, mcp_httpc_37, mcp_httpc_38, mcp_httpc_39, mcp_httpc_40,
     mcp_httpc_41, mcp_httpc_42, mcp_httpc_43, mcp_httpc_44, mcp_httpc_45, mcp_httpc_46, mcp_httpc_47, mcp_httpc_48,
     mcp_httpc_49, mcp_httpc_50, mcp_httpc_51, mcp_httpc_52, mcp_httpc_53, mcp_httpc_54, mcp_httpc_55, mcp_httpc_56,
     mcp_httpc_57, mcp_httpc_58, mcp_httpc_59, mcp_httpc_60, mcp_httpc_61, mcp_httpc_62, mcp_httpc_63, mcp_httpc_64,
     mcp_httpc_65, mcp_httpc_66, mcp_httpc_67, mcp_httpc_68, mcp_httpc_69, mcp_httpc_70, mcp_httpc_71, mcp_httpc_72,
     mcp_httpc_73, mcp_httpc_74, mcp_httpc_75, mcp_httpc_76, mcp_httpc_77, mcp_httpc_78, mcp_httpc_79, mcp_httpc_80,
     mcp_httpc_81, mcp_httpc_82, mcp_httpc_83, mcp_httpc_84, mcp_httpc_85, mcp_httpc_86, mcp_httpc_87, mcp_httpc_88,
     mcp_httpc_89, mcp_httpc_90, mcp_httpc_91, mcp_httpc_92, mcp_httpc_93, mcp_httpc_94, mcp_httpc_95, mcp_httpc_96,
     mcp_httpc_97, mcp_httpc_98, mcp_httpc_99, mcp_httpc_100, mcp_httpc_101, mcp_httpc_102, mcp_httpc_103, mcp_httpc_104,
     mcp_httpc_105, mcp_httpc_106, mcp_httpc_107, mcp_httpc_108, mcp_httpc_109, mcp_httpc_110, mcp_httpc_111, mcp_httpc_112,
     mcp_httpc_113, mcp_httpc_114, mcp_httpc_115, mcp_httpc_116, mcp_httpc_117, mcp_httpc_118, mcp_httpc_119, mcp_httpc_120,
     mcp_httpc_121, mcp_httpc_122, mcp_httpc_123, mcp_httpc_124, mcp_httpc_125, mcp_httpc_126, mcp_httpc_127, mcp_httpc_128,
     mcp_httpc_129, mcp_httpc_130, mcp_httpc_131, mcp_httpc_132, mcp_httpc_133, mcp_httpc_134, mcp_httpc_135, mcp_httpc_136,
     mcp_httpc_137, mcp_httpc_138, mcp_httpc_139, mcp_httpc_140, mcp_httpc_141, mcp_httpc_142, mcp_httpc_143, mcp_httpc_144,
     mcp_httpc_145, mcp_httpc_146, mcp_httpc_147, mcp_httpc_148, mcp_httpc_149, mcp_httpc_150, mcp_httpc_151, mcp_httpc_152,
     mcp_httpc_153, mcp_httpc_154, mcp_httpc_155, mcp_httpc_156, mcp_httpc_157, mcp_httpc_158, mcp_httpc_159, mcp_httpc_160,
     mcp_httpc_161, mcp_httpc_162, mcp_httpc_163, mcp_httpc_164, mcp_httpc_165, mcp_httpc_166, mcp_httpc_167, mcp_httpc_168,
     mcp_httpc_169, mcp_httpc_170, mcp_httpc_171, mcp_httpc_172, mcp_httpc_173, mcp_httpc_174, mcp_httpc_175, mcp_httpc_176,
     mcp_httpc_177, mcp_httpc_178, mcp_httpc_179, mcp_httpc_180, mcp_httpc_181, mcp_httpc_182, mcp_httpc_183, mcp_httpc_184,
     mcp_httpc_185, mcp_httpc_186, mcp_httpc_187, mcp_httpc_188, mcp_httpc_189, mcp_httpc_190, mcp_httpc_191, mcp_httpc_192,
     mcp_httpc_193, mcp_httpc_194, mcp_httpc_195, mcp_httpc_196, mcp_httpc_197, mcp_httpc_198, mcp_httpc_199, mcp_httpc_200,
     mcp_httpc_201, mcp_httpc_202, mcp_httpc_203, mcp_httpc_204, mcp_httpc_205, mcp_httpc_206, mcp_httpc_207, mcp_httpc_208,
     mcp_httpc_209, mcp_httpc_210, mcp_httpc_211, mcp_httpc_212, mcp_httpc_213, mcp_httpc_214, mcp_httpc_215, mcp_httpc_216,
     mcp_httpc_217, mcp_httpc_218, mcp_httpc_219, mcp_httpc_220, mcp_httpc_221, mcp_httpc_222, mcp_httpc_223, mcp_httpc_224,
     mcp_httpc_225, mcp_httpc_226, mcp_httpc_227, mcp_httpc_228, mcp_httpc_229, mcp_httpc_230, mcp_httpc_231, mcp_httpc_232,
     mcp_httpc_233, mcp_httpc_234, mcp_httpc_235, mcp_httpc_236, mcp_httpc_237, mcp_httpc_238, mcp_httpc_239, mcp_httpc_240,
     mcp_httpc_241, mcp_httpc_242, mcp_httpc_243, mcp_httpc_244, mcp_httpc_245, mcp_httpc_246, mcp_httpc_247, mcp_httpc_248,
     mcp_httpc_249, mcp_httpc_250, mcp_httpc_251, mcp_httpc_252, mcp_httpc_253, mcp_httpc_254, mcp_httpc_255, mcp_httpc_256].

%% @doc Whether a live manager holds `Profile': its session table exists
%% (the table's name is looked up, never made).
-spec held(atom()) -> boolean().
held(Profile) ->
    try list_to_existing_atom("stand_alone_" ++ atom_to_list(Profile) ++ "__session_db") of
        Table -> ets:whereis(Table) =/= undefined
    catch
        error:badarg -> false
    end.

%% @doc A stand-alone `httpc' manager linked to the caller, and its profile:
%% the first of `mcp_httpc_profiles:all()' no live manager holds.
-spec start_manager() -> {ok, pid(), atom()} | {error, too_many_clients}.
start_manager() ->
    start_manager(all()).

start_manager([]) ->
    {error, too_many_clients};
start_manager([Profile | Rest]) ->
    %% One start at a time per name, under a lock of this node taken
    %% without waiting (a name being started elsewhere is skipped): two
    %% starts racing for one name would crash the second manager's init
    %% with a crash report. A live manager's table names its profile taken.
    Claim = fun() ->
                    case held(Profile) of
                        false -> inets:start(httpc, [{profile, Profile}], stand_alone);
                        true -> held
                    end
            end,
    case global:trans({{mcp_httpc_profiles, Profile}, self()}, Claim, [node()], 0) of
        {ok, Manager} -> {ok, Manager, Profile};
        _Taken -> start_manager(Rest)
    end.
