//! The parse-only ceiling: the JSON parser driven with a sink that builds
//! nothing, over each file given; prints `name MB/s` (median of 15 runs).
//! `bench/json_bench.erl` divides the full NIF decode rate by it.
use mcp_core::json::{parse_with, JsonSink};
use num_bigint::BigInt;
use std::time::Instant;
use std::vec::Drain;

struct Discard;

impl JsonSink for Discard {
    type Value = ();
    type Key = ();
    fn null(&mut self) {}
    fn bool(&mut self, _: bool) {}
    fn int(&mut self, _: i64) {}
    fn big_int(&mut self, _: BigInt) {}
    fn float(&mut self, _: f64) {}
    fn string(&mut self, _: &str) {}
    fn key(&mut self, _: &str) {}
    fn array(&mut self, _: Drain<'_, ()>) {}
    fn object(&mut self, _: Drain<'_, ()>, _: Drain<'_, ()>) {}
}

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("readable payload");
        let mut rates: Vec<f64> = (0..15)
            .map(|_| {
                let started = Instant::now();
                parse_with(&bytes, &mut Discard).expect("valid payload");
                bytes.len() as f64 / started.elapsed().as_secs_f64() / 1e6
            })
            .collect();
        rates.sort_by(|a, b| a.total_cmp(b));
        let name = std::path::Path::new(&path).file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        println!("{name} {:.1}", rates[rates.len() / 2]);
    }
}
