%% @doc The schema planner (`mcp/schema'): the total three-tier reading of a
%% tool's raw `inputSchema'.
%%
%% Invariants: `plan/1' has no error case. Every `json()' becomes
%% `{typed, Params}' or `{whole_value, Reason}'; every declared property
%% becomes a `param()' in wire order (none is ever dropped), and what the
%% typed subset cannot express is `{structured, Reason}'. `Optional' is true
%% unless the property is listed in `required'. Labels come from
%% `mcp_name:mangle_label/1'; two properties with one label degrade the tool
%% to `{whole_value, <<"label collision: A, B">>}'. The rule table is in
%% `docs/codegen.md'.
%%
%% Planning walks the schema term, so it always runs on a dirty CPU
%% scheduler (it is called once per tool, at boot). A term outside `json()'
%% raises `badarg'.
-module(mcp_schema).

-export([plan/1]).
-export_type([plan/0, param/0, param_type/0, scalar/0]).

-type plan() :: {typed, [param()]} | {whole_value, Reason :: binary()}.
-type param() :: {param, WireName :: binary(), Label :: binary(),
                  param_type(), Optional :: boolean()}.
-type param_type() :: {simple, scalar()} | {list_of, scalar()}
                    | {structured, Reason :: binary()}.
-type scalar() :: string | int | float | bool.

-spec plan(mcp_json:json()) -> plan().
plan(Schema) -> mcp_nif:schema_plan_dirty(Schema).
