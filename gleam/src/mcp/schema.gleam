//// The schema planner (`mcp_schema`): the total three-tier reading of a
//// tool's raw `inputSchema`. No parameter is ever dropped.

import mcp/json.{type JsonValue}

pub type Plan {
  /// One labelled parameter per property, in wire order.
  Typed(List(Param))
  /// The top level is unusable; the tool takes one whole `mcp.Value`.
  WholeValue(reason: String)
}

pub type Param {
  Param(wire_name: String, label: String, param_type: ParamType, optional: Bool)
}

pub type ParamType {
  Simple(Scalar)
  ListOf(Scalar)
  /// Anything else; the parameter is an `mcp.Value`.
  Structured(reason: String)
}

pub type Scalar {
  String
  Int
  Float
  Bool
}

/// A schema's plan; it has no error case. A schema nested deeper than
/// `json.max_depth()` or holding an integer longer than
/// `json.max_integer_digits()` (no decoder produces one) is
/// `WholeValue("nesting too deep at $.properties.a...")`.
@external(erlang, "mcp_gleam_ffi", "schema_plan")
pub fn plan(input_schema: JsonValue) -> Plan
