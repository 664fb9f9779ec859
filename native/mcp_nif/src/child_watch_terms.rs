//! Terms for `mcp_os::ChildWatch`: the watch travels as a resource (closed
//! when the BEAM collects it), its errors as fixed atoms.

use crate::atoms;
use mcp_os::{ChildWatch, WatchError};
use rustler::{Encoder, Env, Resource, ResourceArc, Term};

pub const SIGKILL: i32 = 9;

pub struct WatchResource(pub ChildWatch);

#[rustler::resource_impl]
impl Resource for WatchResource {}

pub type Watch = ResourceArc<WatchResource>;

fn error_term<'a>(env: Env<'a>, error: WatchError) -> Term<'a> {
    let reason = match error {
        WatchError::Unsupported => atoms::unsupported().encode(env),
        WatchError::NotOurChild => atoms::not_our_child().encode(env),
        WatchError::Os(errno) => (atoms::os(), errno).encode(env),
    };
    (atoms::error(), reason).encode(env)
}

/// `{ok, Watch}` or `{error, unsupported | not_our_child | {os, Errno}}`.
pub fn opened(env: Env<'_>, result: Result<ChildWatch, WatchError>) -> Term<'_> {
    match result {
        Ok(watch) => (atoms::ok(), ResourceArc::new(WatchResource(watch))).encode(env),
        Err(error) => error_term(env, error),
    }
}

/// `true`, `false`, or `{error, Reason}`.
pub fn exited(env: Env<'_>, result: Result<bool, WatchError>) -> Term<'_> {
    match result {
        Ok(exited) => exited.encode(env),
        Err(error) => error_term(env, error),
    }
}
