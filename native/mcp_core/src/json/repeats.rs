//! Short texts already turned into values, so a decoder's sink can hand
//! out the same value for a repeated object key or short string (the NIF:
//! the same term, shared, instead of a new copy). Invariants:
//! - a hit returns the value made earlier from the very same bytes, so the
//!   answer is the one without the table; only sharing differs;
//! - bounded: a fixed, direct-mapped table of [`SLOTS`] entries of texts of
//!   at most [`MAX_TEXT`] bytes, so each lookup is constant work and a
//!   colliding text (hostile input included) only replaces its slot.

/// Entries per table.
pub const SLOTS: usize = 256;
/// Longest text kept (longer ones are always made afresh).
pub const MAX_TEXT: usize = 24;

#[derive(Clone, Copy)]
struct Slot<T> {
    /// `EMPTY` until filled.
    len: u8,
    /// The text as three little-endian words (its first eight bytes, its
    /// bytes 8..16 and its last eight, zero-padded: see [`Words`]).
    words: Words,
    value: T,
}

const EMPTY: u8 = u8::MAX;

/// One direct-mapped table of texts and their values.
pub struct Repeats<T: Copy + Default> {
    slots: Box<[Slot<T>; SLOTS]>,
}

impl<T: Copy + Default> Repeats<T> {
    pub fn new() -> Repeats<T> {
        Repeats { slots: Box::new([Slot { len: EMPTY, words: Words([0; 3]), value: T::default() }; SLOTS]) }
    }

    /// The value of `text`: the one made for the same bytes earlier, else
    /// `make(text)` (kept for the next time when short enough).
    #[inline]
    pub fn get_or_make(&mut self, text: &[u8], make: impl FnOnce(&[u8]) -> T) -> T {
        if text.len() > MAX_TEXT {
            return make(text);
        }
        let words = Words::of(text);
        let slot = &mut self.slots[words.slot(text.len())];
        if usize::from(slot.len) == text.len() && slot.words == words {
            return slot.value;
        }
        let value = make(text);
        slot.len = text.len() as u8;
        slot.words = words;
        slot.value = value;
        value
    }
}

impl<T: Copy + Default> Default for Repeats<T> {
    fn default() -> Self {
        Repeats::new()
    }
}

/// A text of at most [`MAX_TEXT`] bytes as three little-endian words: a
/// text of 8 bytes or more is its first eight bytes, its bytes 8..16 (only
/// past 16 bytes, else 0) and its last eight; a shorter one is its bytes
/// zero-padded, twice, around a 0. Two texts of the same length are equal
/// exactly when their words are: first and last words cover a text of up to
/// 16 bytes, and with the middle one up to 24. Made with fixed-size loads
/// (no byte-wise copy) and compared as words (no `memcmp`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Words([u64; 3]);

impl Words {
    #[inline]
    fn of(text: &[u8]) -> Words {
        debug_assert!(text.len() <= MAX_TEXT);
        let len = text.len();
        if len < 8 {
            let word = short_word(text);
            return Words([word, 0, word]);
        }
        let middle = if len > 16 { word_at(text, 8) } else { 0 };
        Words([word_at(text, 0), middle, word_at(text, len - 8)])
    }

    /// The slot of a text of `len` bytes: its first and last words and its
    /// length, mixed by one multiplication.
    #[inline]
    fn slot(&self, len: usize) -> usize {
        let [head, _, tail] = self.0;
        let mixed = (head ^ tail.rotate_left(31) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> 56) as usize
    }
}

/// The eight bytes of `text` from `at` (which has eight bytes left).
#[inline]
fn word_at(text: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(text.get(at..at + 8).and_then(|bytes| bytes.try_into().ok()).unwrap_or([0; 8]))
}

/// A text of under eight bytes as a zero-padded word: two overlapping
/// loads of four (or two) bytes, whose shared bytes are the same.
#[inline]
fn short_word(text: &[u8]) -> u64 {
    let len = text.len();
    let four = |at: usize| u64::from(u32::from_le_bytes(text[at..at + 4].try_into().unwrap_or([0; 4])));
    let two = |at: usize| u64::from(u16::from_le_bytes(text[at..at + 2].try_into().unwrap_or([0; 2])));
    match len {
        4..=7 => four(0) | four(len - 4) << ((len - 4) * 8),
        2..=3 => two(0) | two(len - 2) << ((len - 2) * 8),
        1 => u64::from(text[0]),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_text_is_made_once() {
        let mut repeats = Repeats::<u64>::new();
        let mut made = 0;
        for _ in 0..3 {
            let term = repeats.get_or_make(b"followers_count", |_| {
                made += 1;
                7
            });
            assert_eq!(term, 7);
        }
        assert_eq!(made, 1);
    }

    #[test]
    fn texts_of_max_text_bytes_are_kept_and_longer_ones_are_not() {
        let mut repeats = Repeats::<u64>::new();
        let mut made = 0;
        let long = [b'k'; MAX_TEXT + 1];
        for _ in 0..2 {
            repeats.get_or_make(&long[..MAX_TEXT], |_| {
                made += 1;
                1
            });
            repeats.get_or_make(&long, |_| {
                made += 1;
                2
            });
        }
        assert_eq!(made, 3);
    }

    #[test]
    fn colliding_texts_each_get_their_own_term() {
        // Every text of the same slot replaces the last: answers stay exact.
        let mut repeats = Repeats::<u64>::new();
        let texts: Vec<Vec<u8>> = (0u32..2000).map(|n| n.to_string().into_bytes()).collect();
        for _ in 0..2 {
            for (n, text) in texts.iter().enumerate() {
                assert_eq!(repeats.get_or_make(text, |_| n as u64), n as u64);
            }
        }
        assert_eq!(repeats.get_or_make(b"", |_| 9), 9);
        assert_eq!(repeats.get_or_make(b"", |_| 10), 9);
    }

    #[test]
    fn texts_differing_in_any_one_byte_are_told_apart() {
        // Every length up to MAX_TEXT, every position: the words cover
        // every byte, so a changed byte (zero included) is a new text.
        for len in 0..=MAX_TEXT {
            let base: Vec<u8> = (0..len as u8).map(|b| b'a' + b).collect();
            for at in 0..len {
                for changed in [0u8, b'Z'] {
                    let mut repeats = Repeats::<u64>::new();
                    let mut other = base.clone();
                    other[at] = changed;
                    assert_eq!(repeats.get_or_make(&base, |_| 1), 1);
                    assert_eq!(repeats.get_or_make(&other, |_| 2), 2, "length {len}, byte {at}");
                }
            }
        }
    }
}
