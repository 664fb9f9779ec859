use super::*;
use proptest::prelude::*;

fn decode_capped(chunks: &[&[u8]], max_event_bytes: usize) -> Result<(Vec<Item>, Option<Vec<u8>>), EventStreamFault> {
    let mut decoder = Decoder::with_max_event_bytes(max_event_bytes);
    let mut items = Vec::new();
    for chunk in chunks {
        items.extend(decoder.push(chunk)?);
    }
    Ok((items, decoder.last_event_id().map(<[u8]>::to_vec)))
}

fn decode(chunks: &[&[u8]]) -> Result<(Vec<Item>, Option<Vec<u8>>), EventStreamFault> {
    decode_capped(chunks, MAX_EVENT_BYTES)
}

fn event(kind: &str, data: &str) -> Item {
    Item::Event { kind: kind.as_bytes().to_vec(), data: data.as_bytes().to_vec() }
}

fn chunkings(stream: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<Vec<u8>>> {
    let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(stream.len() + 1)).collect();
    offsets.extend([0, stream.len()]);
    offsets.sort_unstable();
    vec![
        vec![stream.to_vec()],
        offsets.windows(2).map(|w| stream[w[0]..w[1]].to_vec()).collect(),
        stream.chunks(1).map(<[u8]>::to_vec).collect(),
    ]
}

/// A recorded server-everything response: a priming event (id and empty
/// data), then the JSON-RPC response, each event on its own id.
const RECORDED: &[u8] = b"id: 1/0\ndata: \n\nevent: message\nid: 1/1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";

#[test]
fn recorded_stream_whole_and_one_byte_at_a_time() {
    let expected = (vec![event("", ""), event("message", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")], Some(b"1/1".to_vec()));
    assert_eq!(decode(&[RECORDED]).unwrap(), expected);
    let bytes: Vec<&[u8]> = RECORDED.chunks(1).collect();
    assert_eq!(decode(&bytes).unwrap(), expected);
}

#[test]
fn line_ends_crlf_lf_and_lone_cr() {
    let expected = vec![event("", "a\nb\nc")];
    for stream in [&b"data:a\r\ndata:b\ndata:c\r\r"[..], b"data:a\rdata:b\r\ndata:c\n\n"] {
        assert_eq!(decode(&[stream]).unwrap().0, expected);
    }
    // A CR ending one chunk and an LF opening the next are one line end.
    assert_eq!(decode(&[b"data:a\r", b"\n", b"\r", b"\ndata:b\n\n"]).unwrap().0, vec![event("", "a"), event("", "b")]);
}

#[test]
fn fields_comments_and_the_leading_space() {
    let stream = b": a comment\ndata:  two spaces\nignored: x\ndata\nevent:custom\n\n";
    assert_eq!(decode(&[stream]).unwrap().0, vec![event("custom", " two spaces\n")]);
}

#[test]
fn an_event_without_data_is_not_dispatched_but_sets_the_id() {
    assert_eq!(decode(&[b"id: 7\nevent: x\n\n"]).unwrap(), (vec![], Some(b"7".to_vec())));
    // The type does not leak into the next event.
    assert_eq!(decode(&[b"event: x\n\ndata: y\n\n"]).unwrap().0, vec![event("", "y")]);
}

#[test]
fn the_id_persists_and_an_id_with_nul_is_ignored() {
    assert_eq!(decode(&[b"id: 1\ndata: a\n\ndata: b\n\n"]).unwrap().1, Some(b"1".to_vec()));
    assert_eq!(decode(&[b"id: 1\n\nid: 2\x003\n\n"]).unwrap().1, Some(b"1".to_vec()));
    assert_eq!(decode(&[b"id\n\n"]).unwrap().1, Some(Vec::new()));
    // The id counts once its event is dispatched, not before.
    assert_eq!(decode(&[b"id: 1\ndata: a\n\nid: 2\ndata: b\n"]).unwrap().1, Some(b"1".to_vec()));
}

#[test]
fn an_id_past_the_id_cap_is_not_kept_and_a_shorter_one_is_again() {
    let id = |bytes: usize| [&b"id: "[..], &vec![b'i'; bytes], b"\n\n"].concat();
    let at_cap = id(MAX_EVENT_ID_BYTES);
    assert_eq!(decode(&[&at_cap]).unwrap().1, Some(vec![b'i'; MAX_EVENT_ID_BYTES]));
    // Past the cap the stream has no last event id (not the older one).
    let past = id(MAX_EVENT_ID_BYTES + 1);
    assert_eq!(decode(&[b"id: 1\n\n", &past]).unwrap().1, None);
    // A 16 MiB id, then blank lines: nothing of it is held or handed back.
    let mut decoder = Decoder::new();
    decoder.push(&id(MAX_EVENT_BYTES - 8)).unwrap();
    decoder.push(&[b'\n'; 1000]).unwrap();
    assert_eq!(decoder.last_event_id(), None);
    assert_eq!(decoder.id_buffer, None);
    decoder.push(b"id: 2\n\n\n").unwrap();
    assert_eq!(decoder.last_event_id(), Some(&b"2"[..]));
}

#[test]
fn retry_takes_digits_only_and_saturates() {
    assert_eq!(decode(&[b"retry: 500\n"]).unwrap().0, vec![Item::Retry(500)]);
    assert_eq!(decode(&[b"retry: 5x\nretry:\nretry: -1\n"]).unwrap().0, vec![]);
    assert_eq!(decode(&[b"retry: 99999999999999999999999\n"]).unwrap().0, vec![Item::Retry(u64::MAX)]);
}

#[test]
fn a_bom_at_the_start_is_skipped_once() {
    let stream = b"\xEF\xBB\xBFdata: a\n\n";
    assert_eq!(decode(&[stream]).unwrap().0, vec![event("", "a")]);
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(decode(&bytes).unwrap().0, vec![event("", "a")]);
    // A second BOM is part of the field name, so the line is ignored.
    assert_eq!(decode(&[b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n"]).unwrap().0, vec![]);
    // A broken BOM prefix is kept as line content.
    assert_eq!(decode(&[b"\xEF", b"data: a\n\n"]).unwrap().0, vec![]);
    assert_eq!(decode(&[b"\xEF\xBB", b"\ndata: a\n\n"]).unwrap().0, vec![event("", "a")]);
}

#[test]
fn the_cap_both_sides() {
    // "data: " + 4 bytes: the line is 10 bytes; then data holds 5 bytes.
    assert!(decode_capped(&[b"data: abcd\n\n"], 10).is_ok());
    assert_eq!(decode_capped(&[b"data: abcd\n\n"], 9), Err(EventStreamFault::EventTooLong { bytes: 10 }));
    // The held data counts towards the next line: 5 + 10.
    assert!(decode_capped(&[b"data: abcd\ndata: abcd\n\n"], 15).is_ok());
    assert_eq!(decode_capped(&[b"data: abcd\ndata: abcd\n\n"], 14), Err(EventStreamFault::EventTooLong { bytes: 15 }));
    // A pending line is refused before it ends, and a broken decoder stays broken.
    let mut decoder = Decoder::with_max_event_bytes(4);
    assert_eq!(decoder.push(b": endless"), Err(EventStreamFault::EventTooLong { bytes: 9 }));
    assert_eq!(decoder.push(b"\n\n"), Err(EventStreamFault::EventTooLong { bytes: 9 }));
    // A dispatch frees the budget.
    assert!(decode_capped(&[b"data: abcd\n\ndata: abcd\n\n"], 10).is_ok());
    assert_eq!(Decoder::with_max_event_bytes(usize::MAX).max_event_bytes, MAX_EVENT_BYTES);
}

/// Whether each push of `chunks` was heard.
fn heard_pushes(chunks: &[&[u8]]) -> Vec<bool> {
    let mut decoder = Decoder::new();
    chunks.iter().map(|chunk| decoder.push(chunk).map(|_| decoder.heard()).unwrap_or(false)).collect()
}

/// The rule of [`Decoder::heard`] over a whole stream, line by line: some
/// line (the last one whether ended or not) is a `data` field with a
/// non-empty value while the event's type so far is empty or `message`.
fn heard_by_lines(stream: &[u8]) -> bool {
    let mut rest = stream.strip_prefix(BOM).unwrap_or(stream);
    let mut kind: Vec<u8> = Vec::new();
    loop {
        let (line, next) = match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(end) => {
                let crlf = rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n');
                (&rest[..end], Some(&rest[end + 1 + usize::from(crlf)..]))
            }
            None => (rest, None),
        };
        if data_value_bytes(line) > 0 && (kind.is_empty() || kind == b"message") {
            return true;
        }
        if line.is_empty() || line == b"event" {
            kind.clear();
        } else if let Some(value) = line.strip_prefix(b"event:") {
            kind = value.strip_prefix(b" ").unwrap_or(value).to_vec();
        }
        match next {
            Some(next) => rest = next,
            None => return false,
        }
    }
}

#[test]
fn data_of_a_message_is_heard_and_nothing_else() {
    let heard = |stream: &[u8]| heard_pushes(&[stream])[0];
    for stream in [&b"data: x\n\n"[..], b"data:x", b"event: message\rdata: x\r", b"data:  ", b": c\ndata: {\n"] {
        assert!(heard(stream), "{:?}", String::from_utf8_lossy(stream));
    }
    for stream in [
        &b": ping\n\n"[..],
        b"event: ping\ndata: 2026-12-07 01:00:00\n\n",
        b"event: ping\r\ndata: x\r\n\r\n",
        b"ping\n\n",
        b"data : ping\n\n",
        b"database: x\n",
        b"data\n",
        b"data:\ndata: \n\n",
        b"id: 7\nretry: 10\n",
        b"\r\r\r\n\n",
    ] {
        assert!(!heard(stream), "{:?}", String::from_utf8_lossy(stream));
    }
    // The type is the event's: the next event, untyped, is heard.
    assert!(heard(b"event: ping\ndata: x\n\ndata: y\n"));
}

#[test]
fn a_long_data_line_is_heard_while_it_arrives_and_a_name_cut_between_chunks_when_whole() {
    // Every push that adds a byte of the value is heard; the line end is not.
    assert_eq!(heard_pushes(&[b"data: ", b"ab", b"c", b"\n", b"\n"]), [false, true, true, false, false]);
    assert_eq!(heard_pushes(&[b"da", b"ta: x", b"y\r", b"\n"]), [false, true, true, false]);
    assert_eq!(heard_pushes(&[b"ev", b"ent: ping\ndata: x\n\nev", b"ent: ping\ndata: x\n\n"]), [false, false, false]);
    // An `event` line after the data does not take it back.
    assert_eq!(heard_pushes(&[b"data: x", b"\nevent: ping\n\n"]), [true, false]);
    // A broken decoder hears nothing.
    let mut decoder = Decoder::with_max_event_bytes(4);
    assert!(decoder.push(b"data: abcdef").is_err());
    assert!(!decoder.heard());
}

/// The bytes a push's items and the last event id hand back.
fn handed_back(items: &[Item], decoder: &Decoder) -> usize {
    let items: usize = items
        .iter()
        .map(|item| match item {
            Item::Event { kind, data } => kind.len() + data.len(),
            Item::Retry(_) => 8,
        })
        .sum();
    items + decoder.last_event_id().map_or(0, <[u8]>::len)
}

#[test]
fn a_held_event_type_counts_in_the_held_bytes() {
    // A long type, then an 8-byte chunk dispatching its event: the push
    // hands the type back, so the bytes held before it count the type.
    let mut decoder = Decoder::new();
    decoder.push(&[&b"event:"[..], &vec![b'k'; 1 << 20], b"\n"].concat()).unwrap();
    let held = decoder.held_bytes();
    assert!(held >= 1 << 20);
    let items = decoder.push(b"data:x\n\n").unwrap();
    assert_eq!(handed_back(&items, &decoder), (1 << 20) + 1);
}

proptest! {
    /// What a push hands back (its items and the last event id) is at most
    /// what was held before it and its chunk: the NIF's budget on those two
    /// bounds a push on a normal scheduler.
    #[test]
    fn a_push_hands_back_at_most_what_was_held_and_its_chunk(
        stream in prop::collection::vec(prop_oneof![
            Just(&b"data: x"[..]), Just(&b"event: long-type"[..]), Just(&b"id: 12345"[..]), Just(&b"retry:1"[..]),
            Just(&b"\n"[..]), Just(&b"\r"[..]), Just(&b": c"[..]), Just(&b"x"[..])], 0..60),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let stream = stream.concat();
        for chunks in chunkings(&stream, &cuts) {
            let mut decoder = Decoder::new();
            for chunk in chunks {
                let held = decoder.held_bytes();
                let items = decoder.push(&chunk).unwrap();
                prop_assert!(handed_back(&items, &decoder) <= held + chunk.len());
            }
        }
    }

    /// Some push is heard, however the stream is cut, exactly when a line
    /// of the whole stream is a message's non-empty `data`.
    #[test]
    fn a_stream_is_heard_whatever_the_chunking(
        stream in prop::collection::vec(prop_oneof![
            Just(&b"data: x"[..]), Just(&b"data:"[..]), Just(&b" "[..]), Just(&b"event: ping"[..]),
            Just(&b"event: message"[..]), Just(&b"event"[..]), Just(&b"\n"[..]), Just(&b"\r"[..]),
            Just(&b": c"[..]), Just(&b"da"[..]), Just(&b"ta:y"[..]), Just(&b"x"[..])], 0..40),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let stream = stream.concat();
        let expected = heard_by_lines(&stream);
        for chunks in chunkings(&stream, &cuts) {
            let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(heard_pushes(&chunks).contains(&true), expected);
        }
    }

    #[test]
    fn any_chunking_yields_the_items_of_the_whole(
        stream in prop::collection::vec(prop_oneof![
            Just(b'\n'), Just(b'\r'), Just(b':'), Just(b' '), Just(b'a'), Just(0xEF), any::<u8>(),
            Just(b'd'), Just(b'i')], 0..200),
        fields in prop::collection::vec(prop_oneof![
            Just(&b"data: x\n"[..]), Just(&b"id: 1\r\n"[..]), Just(&b"retry: 10\r"[..]), Just(&b"event: e\n"[..]), Just(&b"\n"[..]), Just(&b": c\n"[..])], 0..20),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let mut stream = stream;
        for field in fields {
            stream.extend_from_slice(field);
        }
        let whole = decode(&[&stream]).unwrap();
        for chunks in chunkings(&stream, &cuts) {
            let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(&decode(&chunks).unwrap(), &whole);
        }
    }

    /// Whether a capped stream is refused does not depend on the chunking.
    #[test]
    fn a_capped_stream_is_judged_the_same_whatever_the_chunking(
        cap in 1usize..24,
        stream in prop::collection::vec(prop_oneof![
            Just(&b"data: xx"[..]), Just(&b"\n"[..]), Just(&b"\r"[..]), Just(&b"x"[..]), Just(&b": c"[..])], 0..60),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let stream = stream.concat();
        let whole = decode_capped(&[&stream], cap);
        for chunks in chunkings(&stream, &cuts) {
            let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            let decoded = decode_capped(&chunks, cap);
            prop_assert_eq!(decoded.is_ok(), whole.is_ok());
            if let Ok(decoded) = decoded {
                prop_assert_eq!(Ok(decoded), whole.clone());
            }
        }
        if whole.is_ok() {
            prop_assert_eq!(&whole, &decode(&[&stream]));
        }
    }
}
