//! Framing is total and independent of chunking: the input is cut at
//! offsets taken from its first bytes, and the lines must equal those of
//! the whole stream, each without a newline, within the limit. Under a
//! small cap (from the first byte), whether the stream is refused does not
//! depend on the chunking either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::stdio::{Buffer, MAX_LINE_BYTES};

fn push_all(mut buffer: Buffer, chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, mcp_core::stdio::FramingFault> {
    let mut lines = Vec::new();
    for chunk in chunks {
        lines.extend(buffer.push(chunk)?);
    }
    Ok(lines)
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
    let whole = push_all(Buffer::new(), &[stream]).expect("a short stream frames");
    assert_eq!(push_all(Buffer::new(), &chunks).expect("a short stream frames"), whole);
    let one_byte: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(push_all(Buffer::new(), &one_byte).expect("a short stream frames"), whole);
    for line in &whole {
        assert!(!line.is_empty() && line.len() <= MAX_LINE_BYTES);
        assert!(!line.contains(&b'\n'));
    }
    let cap = usize::from(cuts.first().copied().unwrap_or(0)) % 64 + 1;
    let capped = push_all(Buffer::with_max_line_bytes(cap), &[stream]);
    for framing in [&chunks, &one_byte] {
        assert_eq!(push_all(Buffer::with_max_line_bytes(cap), framing).is_ok(), capped.is_ok());
    }
    if let Ok(lines) = capped {
        assert_eq!(lines, whole);
    }
});
