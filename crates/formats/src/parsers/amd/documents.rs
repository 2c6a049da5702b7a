//! JSON documents written one after another, as a shell loop around
//! `amd-smi … --json` or `rocm-smi --json` leaves them, pretty-printed or
//! one per line.
//!
//! A document is known to be whole when its brackets close (counted
//! outside strings), so each is parsed once, not again at every line.

use serde_json::Value;

use super::super::super::builder::{LineError, ParseFailure, RunBuilder};
use super::super::super::lines::Line;

/// The longest document read before the input is taken for something else.
const DOCUMENT_LIMIT: usize = 64 << 20;

/// What a line did to the document being gathered.
enum Step {
    /// The document goes on past this line.
    Open,
    /// The line closed one or more documents, which began on `line`.
    Whole { line: u64, documents: Vec<Value> },
    /// The brackets closed but the text is not JSON.
    Malformed(LineError),
}

#[derive(Default)]
pub(super) struct JsonDocuments {
    text: String,
    first_line: u64,
    depth: i64,
    in_string: bool,
    escaped: bool,
}

impl JsonDocuments {
    /// Whether a document has begun and not yet closed.
    pub(super) fn is_open(&self) -> bool {
        !self.text.is_empty()
    }

    /// Adds a line of a document; `tool` names the output in the refusal
    /// of one too long to be it.
    fn push(&mut self, line: &Line<'_>, tool: &str) -> Result<Step, ParseFailure> {
        if self.text.is_empty() {
            self.first_line = line.number;
        }
        let text = line.text.trim_end();
        self.track_brackets(text);
        self.text.push_str(text);
        self.text.push('\n');
        if self.depth > 0 {
            if self.text.len() > DOCUMENT_LIMIT {
                return Err(ParseFailure::Line(LineError::new(
                    self.first_line,
                    None,
                    format!("a JSON document longer than 64 MiB: not {tool}'s"),
                )));
            }
            return Ok(Step::Open);
        }
        let first = self.first_line;
        let text = std::mem::take(&mut self.text);
        let depth = std::mem::take(&mut self.depth);
        self.in_string = false;
        self.escaped = false;
        if depth < 0 {
            return Ok(Step::Malformed(LineError::new(
                line.number,
                None,
                "a closing bracket without its opening one",
            )));
        }
        let parsed: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .collect();
        Ok(match parsed {
            Ok(documents) => Step::Whole {
                line: first,
                documents,
            },
            Err(e) => Step::Malformed(LineError::new(
                first + e.line().saturating_sub(1) as u64,
                Some(e.column()),
                format!("not JSON: {e}"),
            )),
        })
    }

    /// Adds a line; each document it completes goes to `read`, which
    /// returns how many readings it stored; a malformed one is a bad line.
    pub(super) fn read_line(
        &mut self,
        line: &Line<'_>,
        tool: &str,
        b: &mut RunBuilder<'_>,
        mut read: impl FnMut(&Value, u64, &mut RunBuilder<'_>) -> Result<u64, ParseFailure>,
    ) -> Result<u64, ParseFailure> {
        match self.push(line, tool)? {
            Step::Open => Ok(0),
            Step::Whole { line, documents } => {
                let mut rows = 0;
                for doc in &documents {
                    rows += read(doc, line, b)?;
                }
                Ok(rows)
            }
            Step::Malformed(e) => b.bad_line(line, e).map(|()| 0),
        }
    }

    /// At the end of the input: a document still open was cut off.
    pub(super) fn finish(&self, b: &mut RunBuilder<'_>) {
        if self.is_open() {
            b.warn(format!(
                "line {}: the last JSON document is cut off; it was ignored",
                self.first_line
            ));
        }
    }

    fn track_brackets(&mut self, text: &str) {
        for c in text.bytes() {
            if self.in_string {
                match c {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(docs: &mut JsonDocuments, number: u64, text: &str) -> Step {
        let line = Line {
            number,
            text,
            terminated: true,
        };
        docs.push(&line, "amd-smi").expect("within the limit")
    }

    #[test]
    fn a_pretty_printed_document_is_whole_when_its_brackets_close() {
        let mut docs = JsonDocuments::default();
        assert!(matches!(feed(&mut docs, 3, "["), Step::Open));
        assert!(matches!(
            feed(
                &mut docs,
                4,
                r#"  {"gpu": 0, "name": "a } in a string \" ]"}"#
            ),
            Step::Open
        ));
        assert!(docs.is_open());
        match feed(&mut docs, 5, "]") {
            Step::Whole { line, documents } => {
                assert_eq!(line, 3);
                assert_eq!(documents.len(), 1);
                assert_eq!(documents[0][0]["name"], "a } in a string \" ]");
            }
            _ => panic!("the document closed on line 5"),
        }
        assert!(!docs.is_open());
    }

    #[test]
    fn two_documents_on_one_line_are_both_read() {
        let mut docs = JsonDocuments::default();
        match feed(&mut docs, 1, r#"{"card0": {}}{"card1": {}}"#) {
            Step::Whole { documents, .. } => assert_eq!(documents.len(), 2),
            _ => panic!("both documents are whole"),
        }
    }

    #[test]
    fn closed_brackets_around_something_else_name_the_line() {
        let mut docs = JsonDocuments::default();
        assert!(matches!(feed(&mut docs, 7, "{"), Step::Open));
        match feed(&mut docs, 8, "  gpu: 0 }") {
            Step::Malformed(e) => {
                assert_eq!(e.line, 8);
                assert!(e.reason.starts_with("not JSON"), "{}", e.reason);
            }
            _ => panic!("not JSON"),
        }
        assert!(!docs.is_open(), "the next document starts afresh");
    }
}
