//! Where a translation is inside the value: rendered `$.args[2].name`.
//! A key that is not an identifier is rendered as a JSON string in brackets
//! (`$["two words"]`), so every path reads back unambiguously.

use crate::json::write_string;

enum Step {
    /// Inside an array, at this item.
    Index(usize),
    /// Inside a map, at the value of the key held in `key_text[from..to]`.
    Key { from: usize, to: usize },
    /// Inside a map, before a key.
    AwaitingKey,
}

/// The translators' position: one step per open container.
#[derive(Default)]
pub(super) struct Path {
    steps: Vec<Step>,
    key_text: String,
}

impl Path {
    /// Open containers.
    pub(super) fn depth(&self) -> usize {
        self.steps.len()
    }

    pub(super) fn enter_array(&mut self) {
        self.steps.push(Step::Index(0));
    }

    pub(super) fn enter_map(&mut self) {
        self.steps.push(Step::AwaitingKey);
    }

    /// The next item is a map key.
    pub(super) fn awaiting_key(&self) -> bool {
        matches!(self.steps.last(), Some(Step::AwaitingKey))
    }

    /// The next item is the value of `key`.
    pub(super) fn set_key(&mut self, key: &str) {
        if let Some(step) = self.steps.last_mut() {
            let from = self.key_text.len();
            self.key_text.push_str(key);
            *step = Step::Key { from, to: self.key_text.len() };
        }
    }

    /// The item at the current position is complete.
    pub(super) fn value_done(&mut self) {
        match self.steps.last_mut() {
            Some(Step::Index(index)) => *index += 1,
            Some(step @ Step::Key { .. }) => {
                if let Step::Key { from, .. } = *step {
                    self.key_text.truncate(from);
                }
                *step = Step::AwaitingKey;
            }
            Some(Step::AwaitingKey) | None => {}
        }
    }

    /// The innermost container ended, completing an item of its parent.
    pub(super) fn leave(&mut self) {
        self.steps.pop();
        self.value_done();
    }

    pub(super) fn render(&self) -> String {
        render(self.steps.iter().filter_map(|step| match *step {
            Step::Index(index) => Some(Segment::Index(index)),
            Step::Key { from, to } => Some(Segment::Key(self.key_text.get(from..to).unwrap_or_default())),
            Step::AwaitingKey => None,
        }))
    }
}

/// One step of a rendered path.
pub(super) enum Segment<'a> {
    Index(usize),
    Key(&'a str),
}

/// `$` followed by each segment, outermost first.
pub(super) fn render<'a>(segments: impl Iterator<Item = Segment<'a>>) -> String {
    let mut out = String::from("$");
    for segment in segments {
        match segment {
            Segment::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
            Segment::Key(key) => push_key(&mut out, key),
        }
    }
    out
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn push_key(out: &mut String, key: &str) {
    if is_identifier(key) {
        out.push('.');
        out.push_str(key);
    } else {
        let mut quoted = Vec::new();
        write_string(&mut quoted, key);
        out.push('[');
        // write_string only adds ASCII to valid UTF-8, so this never fails.
        out.push_str(std::str::from_utf8(&quoted).unwrap_or_default());
        out.push(']');
    }
}
