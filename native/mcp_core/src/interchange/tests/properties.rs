//! Properties: the byte codec round-trips and agrees with rmpv; the value
//! translation round-trips on the representable subset; the fast paths
//! agree with decoding and translating, on valid and on random bytes.

use super::*;
use proptest::prelude::*;

fn finite_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        any::<f32>().prop_filter("finite", |f| f.is_finite()).prop_map(f64::from)
    ]
}

fn any_int() -> impl Strategy<Value = i128> {
    prop_oneof![
        any::<i64>().prop_map(i128::from),
        any::<u64>().prop_map(i128::from),
        -300i128..300,
        Just(MAX_MSGPACK_INT),
        Just(MIN_MSGPACK_INT),
    ]
}

/// Any msgpack value the codec carries (finite floats, any bytes in a str).
fn any_msgpack() -> impl Strategy<Value = Msgpack> {
    let leaf = prop_oneof![
        Just(Msgpack::Nil),
        any::<bool>().prop_map(Msgpack::Bool),
        any_int().prop_map(Msgpack::Int),
        finite_float().prop_map(Msgpack::Float),
        ".{0,40}".prop_map(|t: String| Msgpack::String(t.into_bytes())),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Msgpack::String),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Msgpack::Binary),
        (any::<i8>(), prop::collection::vec(any::<u8>(), 0..20)).prop_map(|(k, d)| Msgpack::Ext(k, d)),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Msgpack::Array),
            prop::collection::vec((inner.clone(), inner), 0..6).prop_map(Msgpack::Map),
        ]
    })
}

/// A msgpack value JSON can represent.
fn representable_msgpack() -> impl Strategy<Value = Msgpack> {
    let leaf = prop_oneof![
        Just(Msgpack::Nil),
        any::<bool>().prop_map(Msgpack::Bool),
        any_int().prop_map(Msgpack::Int),
        finite_float().prop_map(Msgpack::Float),
        ".{0,40}".prop_map(|t: String| Msgpack::String(t.into_bytes())),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Msgpack::Array),
            prop::collection::vec((".{0,8}".prop_map(|k: String| Msgpack::String(k.into_bytes())), inner), 0..6)
                .prop_map(Msgpack::Map),
        ]
    })
}

/// Our decoding of `bytes`, except that each reserved marker (0xc1) we
/// refuse is then read as rmpv reads it, as nil (0xc0): the one place the
/// two codecs differ on purpose (the spec says 0xc1 is never used; rmpv
/// 1.3 decodes it as nil). Every other refusal stands.
fn decode_reading_reserved_as_nil(bytes: &[u8]) -> Result<Msgpack, CorruptionReport> {
    let mut bytes = bytes.to_vec();
    loop {
        match decode(&bytes) {
            Err(fault) if fault.reason == "reserved marker" && bytes[fault.offset] == 0xc1 => bytes[fault.offset] = 0xc0,
            outcome => return outcome,
        }
    }
}

fn any_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::Int),
        any::<u64>().prop_map(|u| Json::from_big_int(u.into())),
        any::<i128>().prop_map(|i| Json::from_big_int(i.into())),
        finite_float().prop_map(Json::Float),
        ".{0,40}".prop_map(Json::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Json::Array),
            prop::collection::vec((".{0,8}", inner), 0..6).prop_map(Json::Object),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decode_inverts_encode(value in any_msgpack()) {
        let bytes = encode(&value).unwrap();
        prop_assert_eq!(decode(&bytes), Ok(value));
    }

    #[test]
    fn encode_is_canonical_on_its_own_output(value in any_msgpack()) {
        let bytes = encode(&value).unwrap();
        prop_assert_eq!(encode(&decode(&bytes).unwrap()), Ok(bytes));
    }

    #[test]
    fn rmpv_reads_our_encoding_as_the_same_value(value in any_msgpack()) {
        let bytes = encode(&value).unwrap();
        prop_assert_eq!(rmpv_decode(&bytes), Some((value, bytes.len())));
    }

    #[test]
    fn our_decoder_agrees_with_rmpv_on_rmpv_encodings(value in any_msgpack()) {
        // rmpv cannot build a str that is not UTF-8.
        prop_assume!(every_leaf(&value, &|leaf| !matches!(leaf, Msgpack::String(b) if std::str::from_utf8(b).is_err())));
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &to_rmpv(&value)).unwrap();
        prop_assert_eq!(decode(&bytes), Ok(value));
    }

    #[test]
    fn on_random_bytes_we_accept_exactly_what_rmpv_reads_whole(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let ours = decode_reading_reserved_as_nil(&bytes);
        let theirs = rmpv_decode(&bytes).filter(|(value, used)| {
            *used == bytes.len() && every_leaf(value, &|leaf| !matches!(leaf, Msgpack::Float(f) if !f.is_finite()))
        });
        match (ours, theirs) {
            (Ok(value), Some((reference, _))) => prop_assert_eq!(value, reference),
            (Err(_), None) => {}
            (ours, theirs) => prop_assert!(false, "ours {:?} rmpv {:?}", ours, theirs),
        }
    }

    #[test]
    fn msgpack_survives_a_trip_through_json(value in representable_msgpack()) {
        let json = to_json(&value).unwrap();
        prop_assert_eq!(to_msgpack(&json), Ok(value));
    }

    #[test]
    fn json_in_range_survives_a_trip_through_msgpack(json in any_json()) {
        match to_msgpack(&json) {
            Ok(value) => prop_assert_eq!(to_json(&value), Ok(json)),
            Err(fault) => prop_assert_eq!(fault.reason, Reason::IntOutOfRange),
        }
    }

    #[test]
    fn msgpack_fast_path_agrees_with_the_value_path(value in any_msgpack()) {
        let bytes = encode(&value).unwrap();
        prop_assert_eq!(msgpack_to_json_line(&bytes), slow_msgpack_to_json(&bytes));
    }

    #[test]
    fn msgpack_fast_path_agrees_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assert_eq!(msgpack_to_json_line(&bytes), slow_msgpack_to_json(&bytes));
    }

    #[test]
    fn json_fast_path_agrees_with_the_value_path(json in any_json()) {
        let text = crate::json::to_bytes(&json).unwrap();
        prop_assert_eq!(json_to_msgpack_bytes(&text), slow_json_to_msgpack(&text));
    }

    #[test]
    fn json_fast_path_agrees_on_random_text(text in "[\\[\\]{}\",:0-9a-z.eE+ -]{0,40}") {
        prop_assert_eq!(json_to_msgpack_bytes(text.as_bytes()), slow_json_to_msgpack(text.as_bytes()));
    }

    #[test]
    fn one_parse_build_agrees_with_the_value_path(json in any_json()) {
        let text = crate::json::to_bytes(&json).unwrap();
        prop_assert_eq!(built_from_text(&text), slow_json_to_value(&text));
    }

    #[test]
    fn one_parse_build_agrees_on_random_text(text in "[\\[\\]{}\",:0-9a-z.eE+ -]{0,40}") {
        prop_assert_eq!(built_from_text(text.as_bytes()), slow_json_to_value(text.as_bytes()));
    }
}

/// [`MsgpackFromJson`] over the tree sink: one parse, one build.
fn built_from_text(text: &[u8]) -> Result<Msgpack, LineFault> {
    let mut sink = MsgpackFromJson::new(TreeSink);
    let value = crate::json::parse_with(text, &mut sink)?;
    Ok(sink.finish(value, text)?)
}

fn slow_json_to_value(text: &[u8]) -> Result<Msgpack, LineFault> {
    Ok(to_msgpack(&crate::json::parse(text)?)?)
}

fn slow_msgpack_to_json(bytes: &[u8]) -> Result<Vec<u8>, LineFault> {
    let value = decode(bytes)?;
    let json = to_json(&value)?;
    Ok(crate::json::to_bytes(&json).unwrap())
}

fn slow_json_to_msgpack(text: &[u8]) -> Result<Vec<u8>, LineFault> {
    let json = crate::json::parse(text)?;
    let value = to_msgpack(&json)?;
    Ok(encode(&value).unwrap())
}

fn every_leaf(value: &Msgpack, holds: &dyn Fn(&Msgpack) -> bool) -> bool {
    match value {
        Msgpack::Array(items) => items.iter().all(|item| every_leaf(item, holds)),
        Msgpack::Map(entries) => entries.iter().all(|(k, v)| every_leaf(k, holds) && every_leaf(v, holds)),
        leaf => holds(leaf),
    }
}

fn to_rmpv(value: &Msgpack) -> rmpv::Value {
    use rmpv::Value;
    match value {
        Msgpack::Nil => Value::Nil,
        Msgpack::Bool(b) => Value::Boolean(*b),
        Msgpack::Int(i) => match i64::try_from(*i) {
            Ok(small) => Value::from(small),
            Err(_) => Value::from(u64::try_from(*i).unwrap()),
        },
        Msgpack::Float(f) => Value::F64(*f),
        Msgpack::String(bytes) => Value::String(String::from_utf8_lossy(bytes).into_owned().into()),
        Msgpack::Binary(data) => Value::Binary(data.clone()),
        Msgpack::Array(items) => Value::Array(items.iter().map(to_rmpv).collect()),
        Msgpack::Map(entries) => Value::Map(entries.iter().map(|(k, v)| (to_rmpv(k), to_rmpv(v))).collect()),
        Msgpack::Ext(kind, data) => Value::Ext(*kind, data.clone()),
    }
}
