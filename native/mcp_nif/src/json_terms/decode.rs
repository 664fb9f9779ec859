//! `mcp_json:decode/1` in steps on the caller's scheduler.
//!
//! Each step parses within a [`Budget`] (input bytes scanned, values made);
//! when it is spent the parse is suspended into Erlang terms (each open
//! container's members as a reversed list, its pending key, the position)
//! and the call continues through `enif_schedule_nif` with those terms as
//! arguments: no raw term is kept outside a call. A step that cannot get
//! past one token within the budget (a string, number or whitespace run
//! longer than `Budget::bytes`) finishes the parse on a dirty CPU
//! scheduler.

use super::{corruption_report_term, reschedule, Continuation, TermBuilder, TermSink};
use crate::atoms;
use mcp_core::json::{Budget, CorruptionReport, Expect, Parser, PausingSink, Split, Step, Suspended, SuspendedFrame, MAX_DEPTH};
use rustler::sys::{self, ErlNifEnv, ErlNifTerm};
use rustler::{Encoder, Env, Term};
use std::os::raw::c_int;
use std::vec::Drain;

type TermParser<'b, 'a> = Parser<'b, TermSink<'a>, Split>;

/// Decodes `line` (the binary term) within `budget` per step; `repeats`:
/// each step makes a repeated short key or string once and shares it
/// (`TermSink::with_repeats`), which changes no answer.
pub fn start<'a>(env: Env<'a>, line: Term<'a>, bytes: &[u8], budget: Budget, repeats: bool) -> Term<'a> {
    let mut sink = sink(env, repeats);
    let parser: TermParser<'_, 'a> = Parser::new(bytes, MAX_DEPTH);
    step(env, &mut sink, parser, line, budget, repeats)
}

fn sink(env: Env<'_>, repeats: bool) -> TermSink<'_> {
    if repeats {
        TermSink::with_repeats(env)
    } else {
        TermSink::new(env)
    }
}

fn step<'a>(
    env: Env<'a>,
    sink: &mut TermSink<'a>,
    mut parser: TermParser<'_, 'a>,
    line: Term<'a>,
    budget: Budget,
    repeats: bool,
) -> Term<'a> {
    let outcome = parser.run(sink, budget);
    if budget != Budget::UNLIMITED {
        super::charge_timeslice(env, budget.bytes.min(line_len(line)));
    }
    match outcome {
        Ok(Step::Done(value)) => (atoms::ok(), sink.build.term(value)).encode(env),
        Err(report) => error(env, &report),
        Ok(Step::Paused { progressed }) => {
            let build = sink.build;
            let state = state_term(&build, parser.suspend(sink));
            // A step that could not pass one token finishes unlimited, dirty.
            let (continuation, next) =
                if progressed { (Continuation::Normal, budget) } else { (Continuation::Dirty, Budget::UNLIMITED) };
            let budget_term = (next.bytes, next.values, repeats).encode(env).as_c_arg();
            reschedule(env, c"json_decode_step", continuation, decode_step, &[line.as_c_arg(), state, budget_term])
        }
    }
}

fn line_len(line: Term<'_>) -> usize {
    super::bytes(line).map_or(0, <[u8]>::len)
}

fn error<'a>(env: Env<'a>, report: &CorruptionReport) -> Term<'a> {
    (atoms::error(), corruption_report_term(env, report)).encode(env)
}

/// The continuation: `[Line, State, {Bytes, Values, Repeats}]` (the budget
/// is unlimited on a dirty scheduler).
unsafe extern "C" fn decode_step(raw_env: *mut ErlNifEnv, argc: c_int, argv: *const ErlNifTerm) -> ErlNifTerm {
    let marker = ();
    // SAFETY: the VM calls this with a valid env for the call.
    let env = unsafe { Env::new(&marker, raw_env) };
    super::guarded(env, || {
        if argc != 3 {
            return None;
        }
        // SAFETY: argc terms are readable at argv.
        let args = unsafe { std::slice::from_raw_parts(argv, 3) };
        let line = unsafe { Term::new(env, args[0]) };
        let bytes = super::bytes(line).ok()?;
        let (bytes_budget, values, repeats) = unsafe { Term::new(env, args[2]) }.decode::<(usize, usize, bool)>().ok()?;
        let mut sink = sink(env, repeats);
        let state = read_state(&sink.build, args[1])?;
        let parser = Parser::resume(bytes, MAX_DEPTH, state)?;
        Some(step(env, &mut sink, parser, line, Budget { bytes: bytes_budget, values }, repeats))
    })
}

const EXPECTS: [Expect; 7] =
    [Expect::Value, Expect::FirstItem, Expect::FirstMember, Expect::Key, Expect::Colon, Expect::Separator, Expect::Join];

/// `{Pos, Expect, [{IsObject, Prefix, Key | [], {Joined} | []}], {Done} | []}`.
fn state_term(build: &TermBuilder<'_>, state: Suspended<ErlNifTerm, ErlNifTerm, ErlNifTerm>) -> ErlNifTerm {
    let env = build.env;
    let expect = EXPECTS.iter().position(|e| *e == state.expect).unwrap_or(0);
    let nil = build.nil();
    let frames: Vec<ErlNifTerm> = state
        .frames
        .iter()
        .map(|frame| {
            let joined = frame.joined.map_or(nil, |joined| build.tuple(&[joined]));
            build.tuple(&[frame.object.encode(env).as_c_arg(), frame.prefix.unwrap_or(nil), frame.key.unwrap_or(nil), joined])
        })
        .collect();
    let done = state.done.map_or(nil, |value| build.tuple(&[value]));
    build.tuple(&[state.pos.encode(env).as_c_arg(), expect.encode(env).as_c_arg(), build.list(&frames), done])
}

fn read_state(build: &TermBuilder<'_>, term: ErlNifTerm) -> Option<Suspended<ErlNifTerm, ErlNifTerm, ErlNifTerm>> {
    let [pos, expect, frames, done] = build.elements::<4>(term)?;
    let pos = build.term(pos).decode::<usize>().ok()?;
    let expect = *EXPECTS.get(build.term(expect).decode::<usize>().ok()?)?;
    let mut read_frames = Vec::new();
    let mut rest = frames;
    while let Some((frame, tail)) = build.cell(rest) {
        let [object, prefix, key, joined] = build.elements::<4>(frame)?;
        let key = if build.is_nil(key) { None } else { Some(key) };
        let joined = if build.is_nil(joined) { None } else { Some(build.elements::<1>(joined)?[0]) };
        let object = build.term(object).decode::<bool>().ok()?;
        read_frames.push(SuspendedFrame { object, prefix: Some(prefix), joined, key });
        rest = tail;
    }
    let done = if build.is_nil(done) { None } else { Some(build.elements::<1>(done)?[0]) };
    Some(Suspended { pos, expect, frames: read_frames, done })
}

impl<'a> PausingSink for TermSink<'a> {
    /// A reversed list of the items (or `{Key, Value}` members) so far.
    type Prefix = ErlNifTerm;

    fn fold_array(&mut self, prefix: Option<ErlNifTerm>, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        let build = self.build;
        items.fold(prefix.unwrap_or_else(|| build.nil()), |reversed, item| build.cons(item, reversed))
    }

    fn fold_object(
        &mut self,
        prefix: Option<ErlNifTerm>,
        keys: Drain<'_, ErlNifTerm>,
        values: Drain<'_, ErlNifTerm>,
    ) -> ErlNifTerm {
        let build = self.build;
        keys.zip(values)
            .fold(prefix.unwrap_or_else(|| build.nil()), |reversed, (key, value)| build.cons(build.tuple(&[key, value]), reversed))
    }

    fn last_items(&mut self, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.list(items.as_slice())
    }

    fn last_members(&mut self, keys: Drain<'_, ErlNifTerm>, values: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.members(keys.zip(values))
    }

    fn join(&mut self, prefix: &mut ErlNifTerm, joined: &mut ErlNifTerm, most: usize) -> (usize, bool) {
        let mut moved = 0;
        while moved < most {
            let Some((head, rest)) = self.build.cell(*prefix) else { return (moved, true) };
            *joined = self.build.cons(head, *joined);
            *prefix = rest;
            moved += 1;
        }
        (moved, self.build.is_nil(*prefix))
    }

    fn finish(&mut self, object: bool, joined: ErlNifTerm) -> ErlNifTerm {
        self.build.tagged(if object { atoms::object() } else { atoms::array() }, joined)
    }
}

/// Raw list and tuple reads on terms this module built.
impl TermBuilder<'_> {
    fn cell(&self, list: ErlNifTerm) -> Option<(ErlNifTerm, ErlNifTerm)> {
        let (mut head, mut tail) = (self.nil(), self.nil());
        // SAFETY: a valid env and term; only the out-parameters are written.
        let is_cell = unsafe { sys::enif_get_list_cell(self.env.as_c_arg(), list, &mut head, &mut tail) };
        (is_cell != 0).then_some((head, tail))
    }

    fn elements<const N: usize>(&self, tuple: ErlNifTerm) -> Option<[ErlNifTerm; N]> {
        let mut arity: c_int = 0;
        let mut elements: *const ErlNifTerm = std::ptr::null();
        // SAFETY: as for `cell`; on success `elements` points at `arity` terms.
        let is_tuple = unsafe { sys::enif_get_tuple(self.env.as_c_arg(), tuple, &mut arity, &mut elements) };
        if is_tuple == 0 || arity as usize != N {
            return None;
        }
        // SAFETY: arity is N.
        Some(std::array::from_fn(|at| unsafe { *elements.add(at) }))
    }

    fn is_nil(&self, term: ErlNifTerm) -> bool {
        // SAFETY: a valid env and term.
        unsafe { sys::enif_is_empty_list(self.env.as_c_arg(), term) != 0 }
    }
}
