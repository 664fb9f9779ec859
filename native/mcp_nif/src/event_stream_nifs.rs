//! The event-stream decoder's NIFs (`mcp_event_stream`): the core's
//! `event_stream::Decoder` travels as a resource owned by one Erlang
//! process (the HTTP transport's), so pushing a chunk mutates it in place
//! rather than rebuilding it. Every atom is a fixed constant.
//!
//! `event_stream_push` runs on a normal scheduler only while the chunk and
//! what the decoder holds stay within the caller's budget (its work and the
//! copies it makes are linear in those bytes), answering `dirty` otherwise
//! without touching the decoder; the caller then calls
//! `event_stream_push_dirty`.

use mcp_core::event_stream::{Decoder, EventStreamFault, Item, MAX_EVENT_BYTES};
use rustler::types::binary::NewBinary;
use rustler::{Binary, Encoder, Env, Resource, ResourceArc, Term};
use std::sync::Mutex;

mod atoms {
    rustler::atoms! { ok, error, none, dirty, event, retry, event_too_long }
}

pub struct DecoderResource(Mutex<Decoder>);

#[rustler::resource_impl]
impl Resource for DecoderResource {}

fn bytes_term<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    let mut binary = NewBinary::new(env, bytes.len());
    binary.as_mut_slice().copy_from_slice(bytes);
    Binary::from(binary).to_term(env)
}

fn item_term<'a>(env: Env<'a>, item: &Item) -> Term<'a> {
    match item {
        Item::Event { kind, data } => (atoms::event(), bytes_term(env, kind), bytes_term(env, data)).encode(env),
        Item::Retry(ms) => (atoms::retry(), *ms).encode(env),
    }
}

fn push<'a>(env: Env<'a>, decoder: &ResourceArc<DecoderResource>, chunk: &[u8], budget: Option<usize>) -> Term<'a> {
    // The core's push is total (no panic on any bytes), so a lock is never
    // poisoned by it; were it, the decoder's own state is still whole
    // between pushes.
    let mut decoder = decoder.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if budget.is_some_and(|budget| decoder.held_bytes().saturating_add(chunk.len()) > budget) {
        return atoms::dirty().encode(env);
    }
    match decoder.push(chunk) {
        Ok(items) => {
            let items: Vec<Term<'a>> = items.iter().map(|item| item_term(env, item)).collect();
            let id = match decoder.last_event_id() {
                Some(id) => bytes_term(env, id),
                None => atoms::none().encode(env),
            };
            (atoms::ok(), items, id).encode(env)
        }
        Err(EventStreamFault::EventTooLong { bytes }) => (atoms::error(), (atoms::event_too_long(), bytes)).encode(env),
    }
}

/// A fresh decoder refusing events longer than `max_event_bytes`.
#[rustler::nif]
fn event_stream_new(max_event_bytes: usize) -> ResourceArc<DecoderResource> {
    ResourceArc::new(DecoderResource(Mutex::new(Decoder::with_max_event_bytes(max_event_bytes))))
}

/// `{ok, Items, LastEventId | none}`, `{error, {event_too_long, Bytes}}`,
/// or `dirty` when the chunk and the held bytes pass `budget`.
#[rustler::nif]
fn event_stream_push<'a>(env: Env<'a>, decoder: ResourceArc<DecoderResource>, chunk: Binary<'a>, budget: usize) -> Term<'a> {
    push(env, &decoder, chunk.as_slice(), Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn event_stream_push_dirty<'a>(env: Env<'a>, decoder: ResourceArc<DecoderResource>, chunk: Binary<'a>) -> Term<'a> {
    push(env, &decoder, chunk.as_slice(), None)
}

/// Whether the decoder's last push brought a byte of a message's data
/// (`event_stream::Decoder::heard`).
#[rustler::nif]
fn event_stream_heard(decoder: ResourceArc<DecoderResource>) -> bool {
    decoder.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).heard()
}

/// The core's event cap (`event_stream::MAX_EVENT_BYTES`).
#[rustler::nif]
fn event_stream_max_event_bytes() -> usize {
    MAX_EVENT_BYTES
}
