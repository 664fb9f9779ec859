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

/// A text of at most [`MAX_TEXT`] bytes as three words: its first eight
/// bytes, its bytes 8..16 and its last eight bytes (each zero-padded when
/// the text is shorter). Two texts of the same length are equal exactly
/// when their words are: the first and last words cover a text of up to 16
/// bytes, and with the middle one up to 24. Compared as words, with no
/// byte-wise `memcmp`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Words([u64; 3]);

impl Words {
    #[inline]
    fn of(text: &[u8]) -> Words {
        debug_assert!(text.len() <= MAX_TEXT);
        let word = |part: &[u8]| {
            let mut word = [0u8; 8];
            word[..part.len()].copy_from_slice(part);
            u64::from_le_bytes(word)
        };
        let len = text.len();
        Words([word(&text[..len.min(8)]), word(&text[len.min(8)..len.min(16)]), word(&text[len.saturating_sub(8)..])])
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
