//! Just enough of PDF's object syntax to read a stream's dictionary from the raw bytes, before
//! lopdf parses anything: `/Filter`, `/DecodeParms`, `/Length`, `/Type`, `/First`.
//!
//! It reads direct objects as lopdf's parser does (names with `#xx` escapes decoded, the last of
//! two equal keys winning, comments as whitespace) and gives up, rather than guess, on anything
//! else; nesting is bounded so that a hostile dictionary cannot take the stack.

/// A direct object, as far as a stream's dictionary needs one.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Obj {
    Name(Vec<u8>),
    Int(i64),
    Array(Vec<Obj>),
    Dict(Dict),
    /// A reference, real, string, boolean or null: present, but nothing the scan reads.
    Other,
}

/// A dictionary's entries in the order written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Dict(Vec<(Vec<u8>, Obj)>);

impl Dict {
    /// The value of `key`: the last one written, as lopdf keeps it.
    pub(super) fn get(&self, key: &[u8]) -> Option<&Obj> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key` if it is a name.
    pub(super) fn name(&self, key: &[u8]) -> Option<&[u8]> {
        match self.get(key) {
            Some(Obj::Name(n)) => Some(n),
            _ => None,
        }
    }

    /// The value of `key` if it is a direct integer.
    pub(super) fn int(&self, key: &[u8]) -> Option<i64> {
        match self.get(key) {
            Some(Obj::Int(i)) => Some(*i),
            _ => None,
        }
    }
}

/// How deep the parser follows arrays and dictionaries; the pre-scan refuses deeper nesting
/// anyway.
const MAX_DEPTH: usize = 64;

/// The dictionary that starts at `at` (its `<<`) and the offset just past its `>>`.
pub(super) fn dict_at(bytes: &[u8], at: usize) -> Option<(Dict, usize)> {
    let mut parser = Parser { bytes, at };
    match parser.object(0)? {
        Obj::Dict(dict) => Some((dict, parser.at)),
        _ => None,
    }
}

/// Whether `b` is PDF whitespace.
pub(super) fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0C' | b'\0')
}

/// Whether `b` is a PDF delimiter.
pub(super) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Whether `b` can be part of a name or keyword.
pub(super) fn is_regular(b: u8) -> bool {
    !is_white(b) && !is_delimiter(b)
}

/// The offset past whitespace and comments from `at`, as lopdf's `space` skips them.
pub(super) fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&b) = bytes.get(at) {
        if is_white(b) {
            at += 1;
        } else if b == b'%' {
            while bytes.get(at).is_some_and(|&b| b != b'\r' && b != b'\n') {
                at += 1;
            }
        } else {
            break;
        }
    }
    at
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.bytes[self.at.min(self.bytes.len())..].starts_with(s)
    }

    fn object(&mut self, depth: usize) -> Option<Obj> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at = skip_space(self.bytes, self.at);
        match self.peek()? {
            b'<' if self.starts_with(b"<<") => self.dict(depth).map(Obj::Dict),
            b'<' => self.hex_string(),
            b'[' => self.array(depth),
            b'(' => self.literal_string(),
            b'/' => {
                let (name, end) = name_at(self.bytes, self.at);
                self.at = end;
                Some(Obj::Name(name))
            }
            b'+' | b'-' | b'.' | b'0'..=b'9' => self.number_or_reference(),
            _ => {
                let word = self.word();
                matches!(word, b"true" | b"false" | b"null").then_some(Obj::Other)
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Dict> {
        self.at += 2;
        let mut entries = Vec::new();
        loop {
            self.at = skip_space(self.bytes, self.at);
            if self.starts_with(b">>") {
                self.at += 2;
                return Some(Dict(entries));
            }
            if self.peek()? != b'/' {
                return None;
            }
            let (key, end) = name_at(self.bytes, self.at);
            self.at = end;
            let value = self.object(depth + 1)?;
            entries.push((key, value));
        }
    }

    fn array(&mut self, depth: usize) -> Option<Obj> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.at = skip_space(self.bytes, self.at);
            if self.peek()? == b']' {
                self.at += 1;
                return Some(Obj::Array(items));
            }
            items.push(self.object(depth + 1)?);
        }
    }

    fn word(&mut self) -> &'a [u8] {
        let bytes = self.bytes;
        let start = self.at;
        while self.peek().is_some_and(is_regular) {
            self.at += 1;
        }
        &bytes[start..self.at]
    }

    fn number_or_reference(&mut self) -> Option<Obj> {
        let word = self.word();
        let text = std::str::from_utf8(word).ok()?;
        let Ok(int) = text.parse::<i64>() else {
            return text.parse::<f64>().is_ok().then_some(Obj::Other);
        };
        // `12 0 R` is a reference; anything else leaves the integer as it is.
        let save = self.at;
        let after = skip_space(self.bytes, self.at);
        self.at = after;
        let generation = self.word();
        if !generation.is_empty() && generation.iter().all(u8::is_ascii_digit) {
            self.at = skip_space(self.bytes, self.at);
            if self.word() == b"R" {
                return Some(Obj::Other);
            }
        }
        self.at = save;
        Some(Obj::Int(int))
    }

    fn literal_string(&mut self) -> Option<Obj> {
        let end = skip_literal_string(self.bytes, self.at)?;
        self.at = end;
        Some(Obj::Other)
    }

    fn hex_string(&mut self) -> Option<Obj> {
        let close = self.bytes[self.at..].iter().position(|&b| b == b'>')?;
        self.at += close + 1;
        Some(Obj::Other)
    }
}

/// The name whose `/` is at `at`, `#xx` escapes decoded, and the offset just past it.
pub(super) fn name_at(bytes: &[u8], at: usize) -> (Vec<u8>, usize) {
    let mut i = at + 1;
    let mut name = Vec::new();
    while let Some(&b) = bytes.get(i).filter(|&&b| is_regular(b)) {
        let escaped = (b == b'#')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(decoded) => {
                name.push(decoded);
                i += 3;
            }
            None => {
                name.push(b);
                i += 1;
            }
        }
    }
    (name, i)
}

/// The offset just past the literal string that opens at `at` (its `(`), balanced parentheses
/// and backslash escapes followed; `None` when the bytes end first.
pub(super) fn skip_literal_string(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_dictionary_reads_as_lopdf_reads_it() {
        let raw = b"<< /Length 42 /Filter [/Fl#61teDecode /ASCII85Decode] % note\n /DecodeParms << /EarlyChange 0 >> /Length 7 /Ref 3 0 R /S (a (b) \\) c) /H <00ff> >>rest";
        let (dict, end) = dict_at(raw, 0).expect("a dictionary");
        assert_eq!(&raw[end..], b"rest");
        assert_eq!(dict.int(b"Length"), Some(7));
        let Some(Obj::Array(filters)) = dict.get(b"Filter") else {
            panic!("filters: {dict:?}");
        };
        assert_eq!(filters[0], Obj::Name(b"FlateDecode".to_vec()));
        let Some(Obj::Dict(params)) = dict.get(b"DecodeParms") else {
            panic!("params");
        };
        assert_eq!(params.int(b"EarlyChange"), Some(0));
        assert_eq!(dict.get(b"Ref"), Some(&Obj::Other));
    }

    #[test]
    fn nesting_past_the_bound_and_broken_syntax_give_nothing() {
        let deep = format!("<< /A {}1{} >>", "[".repeat(100), "]".repeat(100));
        assert!(dict_at(deep.as_bytes(), 0).is_none());
        assert!(dict_at(b"<< /A 1 ", 0).is_none());
        assert!(dict_at(b"<< A 1 >>", 0).is_none());
    }
}
