//! Terms of `mcp_jail`'s one NIF: the core's seccomp filter bytes as a
//! binary. Nothing here builds or interprets the filter.

use crate::atoms;
use crate::json_terms::binary_term;
use rustler::{Encoder, Env, Term};

/// `{ok, Bytes}` or `{error, unsupported_architecture}`.
pub fn seccomp_filter<'a>(env: Env<'a>, filter: Option<Vec<u8>>) -> Term<'a> {
    match filter {
        Some(bytes) => (atoms::ok(), binary_term(env, &bytes)).encode(env),
        None => (atoms::error(), atoms::unsupported_architecture()).encode(env),
    }
}
