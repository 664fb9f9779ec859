//! Event-stream decoding is total and independent of chunking: the input
//! is cut at offsets taken from its first bytes, and the items and last
//! event id must equal those of the whole stream and of the stream fed one
//! byte at a time. Under a small cap (from the first byte), whether the
//! stream is refused does not depend on the chunking either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::event_stream::{Decoder, EventStreamFault, Item, MAX_EVENT_BYTES};

type Decoded = (Vec<Item>, Option<Vec<u8>>);

fn push_all(mut decoder: Decoder, chunks: &[&[u8]]) -> Result<Decoded, EventStreamFault> {
    let mut items = Vec::new();
    for chunk in chunks {
        items.extend(decoder.push(chunk)?);
    }
    Ok((items, decoder.last_event_id().map(<[u8]>::to_vec)))
}

fuzz_target!(|bytes: &[u8]| {
    let (cuts, stream) = bytes.split_at(bytes.len().min(8));
    let mut chunks = Vec::new();
    let mut rest = stream;
    for &cut in cuts {
        let (chunk, tail) = rest.split_at((cut as usize).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    chunks.push(rest);
    let whole = push_all(Decoder::new(), &[stream]).expect("a short stream decodes");
    assert_eq!(push_all(Decoder::new(), &chunks).expect("a short stream decodes"), whole);
    let one_byte: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(push_all(Decoder::new(), &one_byte).expect("a short stream decodes"), whole);
    for item in &whole.0 {
        if let Item::Event { data, .. } = item {
            assert!(data.len() <= MAX_EVENT_BYTES);
        }
    }
    let cap = usize::from(cuts.first().copied().unwrap_or(0)) % 64 + 1;
    let capped = push_all(Decoder::with_max_event_bytes(cap), &[stream]);
    for framing in [&chunks, &one_byte] {
        assert_eq!(push_all(Decoder::with_max_event_bytes(cap), framing).is_ok(), capped.is_ok());
    }
    if let Ok(decoded) = capped {
        assert_eq!(decoded, whole);
    }
});
