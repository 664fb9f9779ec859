//! Text a terminal shows and never obeys: the filter the stderr relay puts
//! between a jailed server and the VM's terminal (`mcp-landlock
//! --strip-controls`, `mcp_stderr`). A server's diagnostics could
//! otherwise carry escape sequences that set the window title, write the
//! clipboard (OSC 52), move the cursor over earlier lines or forge a line
//! with a carriage return.
//!
//! Invariants: the output is valid UTF-8 holding no control character but
//! tab and newline: C0 controls (ESC, CR, BEL, backspace, ...), DEL and the
//! C1 controls U+0080..U+009F (which some terminals obey as CSI, OSC, ...)
//! are dropped, and so is every byte that is not part of a valid UTF-8
//! sequence (a raw 0x9B is CSI to an 8-bit terminal). The rest passes
//! unchanged, in order. A sequence split across reads is held (at most
//! three bytes) until it completes; memory never grows with the input.

/// A streaming filter; `feed` as bytes arrive, `finish` at the end.
#[derive(Default)]
pub struct Stripper {
    pending: Vec<u8>,
    needed: usize,
}

fn kept_ascii(byte: u8) -> bool {
    byte == b'\t' || byte == b'\n' || (0x20..0x7f).contains(&byte)
}

fn sequence_length(lead: u8) -> usize {
    match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

impl Stripper {
    pub fn new() -> Stripper {
        Stripper::default()
    }

    /// Appends to `out` what of `input` a terminal may show.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &byte in input {
            if !self.pending.is_empty() {
                if (0x80..=0xbf).contains(&byte) {
                    self.pending.push(byte);
                    if self.pending.len() == self.needed {
                        if let Ok(text) = std::str::from_utf8(&self.pending) {
                            if !text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
                                out.extend_from_slice(&self.pending);
                            }
                        }
                        self.pending.clear();
                    }
                    continue;
                }
                // Cut short: the partial sequence is dropped, the byte
                // starts afresh.
                self.pending.clear();
            }
            if byte < 0x80 {
                if kept_ascii(byte) {
                    out.push(byte);
                }
            } else {
                let length = sequence_length(byte);
                if length > 0 {
                    self.pending.push(byte);
                    self.needed = length;
                }
            }
        }
    }

    /// The end of the input: an incomplete sequence is dropped.
    pub fn finish(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(chunks: &[&[u8]]) -> Vec<u8> {
        let mut stripper = Stripper::new();
        let mut out = Vec::new();
        for chunk in chunks {
            stripper.feed(chunk, &mut out);
        }
        stripper.finish();
        out
    }

    #[test]
    fn controls_go_text_stays() {
        assert_eq!(stripped(&[b"\x1b]0;title\x07ok\r\n"]), b"]0;titleok\n");
        assert_eq!(stripped(&[b"a\tb\x08\x7f\x00c\n"]), b"a\tbc\n");
        assert_eq!(stripped(&[b"\x1b]52;c;cGF5bG9hZA==\x07"]), b"]52;c;cGF5bG9hZA==");
    }

    #[test]
    fn utf8_passes_c1_and_invalid_bytes_do_not() {
        assert_eq!(stripped(&["é € 𝄞\n".as_bytes()]), "é € 𝄞\n".as_bytes());
        assert_eq!(stripped(&[b"\xc2\x9b31mred\xc2\x9d0;t\xc2\x9c"]), b"31mred0;t");
        assert_eq!(stripped(&[b"\x9b31m\xff\xc0\xafx"]), b"31mx");
        assert_eq!(stripped(&[b"\xe2\x82x"]), b"x");
        assert_eq!(stripped(&[b"\xed\xa0\x80y"]), b"y"); // a surrogate
    }

    #[test]
    fn a_sequence_split_across_reads_is_held_and_a_cut_one_dropped() {
        assert_eq!(stripped(&[b"\xe2", b"\x82", b"\xac!"]), "€!".as_bytes());
        assert_eq!(stripped(&[b"\xc2", b"\x9b", b"x"]), b"x");
        assert_eq!(stripped(&[b"end\xe2\x82"]), b"end");
    }
}
