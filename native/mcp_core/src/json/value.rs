//! The JSON value as mcp_core sees it: the Rust mirror of `core/json.JsonValue`.

use num_bigint::BigInt;

/// A JSON value. `Int` holds every integer that fits `i64`; `BigInt` only
/// those that do not (construct through [`Json::from_big_int`] to keep that
/// normal form). `Object` keeps members in wire order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(BigInt),
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The integer in normal form: `Int` when it fits `i64`, else `BigInt`.
    pub fn from_big_int(value: BigInt) -> Json {
        match i64::try_from(&value) {
            Ok(small) => Json::Int(small),
            Err(_) => Json::BigInt(value),
        }
    }

    /// Convenience constructor for string values.
    pub fn str(s: &str) -> Json {
        Json::String(s.to_owned())
    }

    /// The first member named `key`, if this is an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// Containers nested inside this value, counting itself (a scalar is 0).
    /// Iterative, so it is safe on values of any depth.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut pending: Vec<(&Json, usize)> = vec![(self, 0)];
        while let Some((value, above)) = pending.pop() {
            match value {
                Json::Array(items) => {
                    deepest = deepest.max(above + 1);
                    pending.extend(items.iter().map(|item| (item, above + 1)));
                }
                Json::Object(members) => {
                    deepest = deepest.max(above + 1);
                    pending.extend(members.iter().map(|(_, item)| (item, above + 1)));
                }
                _ => deepest = deepest.max(above),
            }
        }
        deepest
    }
}
