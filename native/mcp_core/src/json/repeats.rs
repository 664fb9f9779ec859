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
    bytes: [u8; MAX_TEXT],
    value: T,
}

const EMPTY: u8 = u8::MAX;

/// One direct-mapped table of texts and their values.
pub struct Repeats<T: Copy + Default> {
    slots: Box<[Slot<T>; SLOTS]>,
}

impl<T: Copy + Default> Repeats<T> {
    pub fn new() -> Repeats<T> {
        Repeats { slots: Box::new([Slot { len: EMPTY, bytes: [0; MAX_TEXT], value: T::default() }; SLOTS]) }
    }

    /// The value of `text`: the one made for the same bytes earlier, else
    /// `make(text)` (kept for the next time when short enough).
    #[inline]
    pub fn get_or_make(&mut self, text: &[u8], make: impl FnOnce(&[u8]) -> T) -> T {
        if text.len() > MAX_TEXT {
            return make(text);
        }
        let slot = &mut self.slots[slot_of(text)];
        if usize::from(slot.len) == text.len() && slot.bytes[..text.len()] == *text {
            return slot.value;
        }
        let value = make(text);
        slot.len = text.len() as u8;
        slot.bytes[..text.len()].copy_from_slice(text);
        slot.value = value;
        value
    }
}

impl<T: Copy + Default> Default for Repeats<T> {
    fn default() -> Self {
        Repeats::new()
    }
}

/// The slot of a text of at most [`MAX_TEXT`] bytes: its first and last
/// eight bytes and its length, mixed by one multiplication.
#[inline]
fn slot_of(text: &[u8]) -> usize {
    let word = |part: &[u8]| {
        let mut word = [0u8; 8];
        word[..part.len()].copy_from_slice(part);
        u64::from_le_bytes(word)
    };
    let head = word(&text[..text.len().min(8)]);
    let tail = word(&text[text.len().saturating_sub(8)..]);
    let mixed = (head ^ tail.rotate_left(31) ^ text.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 56) as usize
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
}
