//! The linear pre-scan of a PDF's raw bytes, before lopdf parses anything.
//!
//! A PDF is a zip of streams with a few dictionaries around them, and lopdf trusts both: it
//! decompresses an object stream whole while loading, and a content stream whole each time
//! pdf-extract asks for it. So the bytes are read once here, without building anything:
//!
//! 1. [`shape`]: a tokenizer over the bytes outside strings, comments and stream bodies: array
//!    and dictionary nesting against [`MAX_NESTING`], any `/Encrypt` name (the trailer's mark of
//!    an encrypted file), and each stream's dictionary and data.
//! 2. [`hidden_streams`]: every other `stream` keyword in the file, wherever it is. lopdf finds
//!    objects by the offsets in the cross-reference table, and an offset may point anywhere,
//!    into another stream's body or past a stray `(` that the tokenizer took for a string; a
//!    stream found only there has its dictionary read backwards (see [`dict_before`]).
//! 3. [`expand_streams`]: every stream through its filters, bounded ([`super::inflate`]), the
//!    expanded bytes summed against `max_stream_bytes`, and the objects an object stream
//!    declares counted with the `obj` keywords of the file against `max_objects`.

use std::sync::atomic::{AtomicBool, Ordering};

use super::inflate::{self, Budget, Filter, Stop};
use super::objects::{self, Dict, Obj, dict_at, is_regular, is_white, skip_literal_string};
use super::{PdfLimits, PdfRefusal};

/// The deepest nesting of arrays and dictionaries read. lopdf's own parser stops at 100; real
/// documents stay under ten.
pub(super) const MAX_NESTING: usize = 64;

/// Checks `bytes` against `limits` without parsing them into objects.
///
/// # Errors
///
/// The refusal for nesting past [`MAX_NESTING`], an encrypted file, more objects than
/// `max_objects`, streams expanding past `max_stream_bytes`, or a raised `cancel`.
pub(super) fn prescan(
    bytes: &[u8],
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<(), PdfRefusal> {
    let shape = shape(bytes)?;
    if shape.encrypted {
        return Err(PdfRefusal::Encrypted);
    }
    let declared_objects = count_obj_keywords(bytes);
    if declared_objects > limits.max_objects {
        return Err(PdfRefusal::TooManyObjects {
            limit: limits.max_objects,
        });
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(PdfRefusal::Cancelled);
    }
    let mut streams = shape.streams;
    let seen: Vec<usize> = streams.iter().map(|s| s.keyword).collect();
    streams.extend(hidden_streams(bytes, &seen));
    let budget = Budget::new(limits.max_stream_bytes, cancel);
    let packed_objects = expand_streams(bytes, &streams, &budget).map_err(|stop| match stop {
        Stop::OverLimit => PdfRefusal::StreamsTooLarge {
            limit: limits.max_stream_bytes,
        },
        Stop::Cancelled => PdfRefusal::Cancelled,
    })?;
    if declared_objects.saturating_add(packed_objects) > limits.max_objects {
        return Err(PdfRefusal::TooManyObjects {
            limit: limits.max_objects,
        });
    }
    Ok(())
}

/// A stream found in the raw bytes.
#[derive(Debug)]
struct RawStream {
    /// Offset of its `stream` keyword.
    keyword: usize,
    /// Offset of its first data byte, as lopdf takes it: after the keyword, spaces or tabs and
    /// one end of line.
    data: usize,
    /// Its dictionary; `None` where it could not be read within the work allowed, and is then
    /// taken to be Flate, the filter of nearly every stream.
    dict: Option<Dict>,
}

/// What the tokenizer pass found.
struct Shape {
    encrypted: bool,
    streams: Vec<RawStream>,
}

/// The tokenizer pass (step 1 of the module doc).
fn shape(bytes: &[u8]) -> Result<Shape, PdfRefusal> {
    let mut shape = Shape {
        encrypted: false,
        streams: Vec::new(),
    };
    let mut depth = 0usize;
    // Where the dictionary open at depth 0 started, and the last one closed there, for as long
    // as nothing but whitespace and comments followed it (a `stream` keyword must follow
    // directly).
    let mut open_dict = 0usize;
    let mut last_dict: Option<usize> = None;
    let mut i = 0usize;
    let too_deep = || PdfRefusal::NestedTooDeep { limit: MAX_NESTING };
    while let Some(&b) = bytes.get(i) {
        let mut after_dict = None;
        match b {
            _ if is_white(b) => {
                i += 1;
                after_dict = last_dict;
            }
            b'%' => {
                i = objects::skip_space(bytes, i);
                after_dict = last_dict;
            }
            b'(' => i = skip_literal_string(bytes, i).unwrap_or(bytes.len()),
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                if depth == 0 {
                    open_dict = i;
                }
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep());
                }
                i += 2;
            }
            b'<' => i = find(bytes, b">", i).map_or(bytes.len(), |e| e + 1),
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 2;
                if depth == 0 {
                    after_dict = Some(open_dict);
                }
            }
            b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep());
                }
                i += 1;
            }
            b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'/' => {
                let (name, end) = objects::name_at(bytes, i);
                shape.encrypted |= name == b"Encrypt";
                i = end;
            }
            _ if is_regular(b) => {
                let start = i;
                while bytes.get(i).copied().is_some_and(is_regular) {
                    i += 1;
                }
                if &bytes[start..i] == b"stream"
                    && let (Some(dict_start), Some(data)) = (last_dict, data_start(bytes, i))
                {
                    let dict = dict_at(bytes, dict_start).map(|(d, _)| d);
                    i = body_end(bytes, data, dict.as_ref());
                    shape.streams.push(RawStream {
                        keyword: start,
                        data,
                        dict,
                    });
                }
            }
            // A stray `)`, `>`, `}` or `{`.
            _ => i += 1,
        }
        last_dict = after_dict;
    }
    Ok(shape)
}

/// The offset of a stream's first data byte, given the offset just past its `stream` keyword:
/// lopdf's `space0` (spaces and tabs) then one end of line, without which there is no stream.
fn data_start(bytes: &[u8], mut at: usize) -> Option<usize> {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    match bytes.get(at..at + 2) {
        Some(b"\r\n") => Some(at + 2),
        _ => matches!(bytes.get(at), Some(b'\n' | b'\r')).then_some(at + 1),
    }
}

/// The direct `/Length` of a stream when its data, that long, is followed by `endstream` as
/// lopdf requires; `None` where lopdf reads the length some other way.
fn exact_length(bytes: &[u8], data: usize, dict: Option<&Dict>) -> Option<usize> {
    let length = usize::try_from(dict?.int(b"Length")?).ok()?;
    let end = data.checked_add(length)?;
    let mut after = end;
    if bytes.get(after..after + 2) == Some(b"\r\n") {
        after += 2;
    } else if matches!(bytes.get(after), Some(b'\n' | b'\r')) {
        after += 1;
    }
    bytes
        .get(after..)?
        .starts_with(b"endstream")
        .then_some(length)
}

/// The offset past a stream's body and its `endstream`: by its length where that is exact, else
/// at the next `endstream`, else the end of the file.
fn body_end(bytes: &[u8], data: usize, dict: Option<&Dict>) -> usize {
    let from = exact_length(bytes, data, dict).map_or(data, |l| data + l);
    find(bytes, b"endstream", from).map_or(bytes.len(), |at| at + b"endstream".len())
}

/// How far back from a `stream` keyword its dictionary is looked for.
const LOOK_BACK: usize = 64 * 1024;
/// The candidate `>>` ends, and `<<` starts, tried for one hidden stream.
const TRIES: usize = 32;

/// The streams whose `stream` keyword the tokenizer did not see (step 2 of the module doc).
fn hidden_streams(bytes: &[u8], seen: &[usize]) -> Vec<RawStream> {
    let mut found = Vec::new();
    // Parsing backwards can cost a window per try; past this much, a hidden stream is taken to
    // be Flate rather than read.
    let mut work = 4 * bytes.len() + (4 << 20);
    let mut from = 0;
    while let Some(keyword) = find(bytes, b"stream", from) {
        from = keyword + 1;
        if bytes[..keyword].ends_with(b"end") || seen.binary_search(&keyword).is_ok() {
            continue;
        }
        let Some(data) = data_start(bytes, keyword + b"stream".len()) else {
            continue;
        };
        match dict_before(bytes, keyword, &mut work) {
            Lookup::Found(dict) => found.push(RawStream {
                keyword,
                data,
                dict: Some(dict),
            }),
            Lookup::OutOfWork => found.push(RawStream {
                keyword,
                data,
                dict: None,
            }),
            // No dictionary lopdf could read ends right before it: not a stream.
            Lookup::None => {}
        }
    }
    found
}

enum Lookup {
    Found(Dict),
    None,
    OutOfWork,
}

/// The dictionary that ends just before `keyword`, whitespace and comments apart: the nearest
/// `>>` from which only whitespace and comments lead to the keyword (a `>>` inside such a comment
/// is tried and passed over) and the nearest `<<` from which a dictionary parses to exactly that
/// `>>`. Every byte looked at is charged to `work`.
fn dict_before(bytes: &[u8], keyword: usize, work: &mut usize) -> Lookup {
    let floor = keyword.saturating_sub(LOOK_BACK);
    let mut charge = |span: usize| match work.checked_sub(span) {
        Some(left) => {
            *work = left;
            true
        }
        None => false,
    };
    if !charge(keyword - floor) {
        return Lookup::OutOfWork;
    }
    let ends: Vec<usize> = (floor..keyword.saturating_sub(1))
        .rev()
        .filter(|&at| &bytes[at..at + 2] == b">>")
        .take(TRIES)
        .map(|at| at + 2)
        .collect();
    for end in ends {
        if !charge(keyword - end) {
            return Lookup::OutOfWork;
        }
        if objects::skip_space(bytes, end) != keyword {
            continue;
        }
        let window = &bytes[..end];
        let starts = (floor..end.saturating_sub(3))
            .rev()
            .filter(|&at| &bytes[at..at + 2] == b"<<")
            .take(TRIES);
        for start in starts {
            if !charge(end - start) {
                return Lookup::OutOfWork;
            }
            if let Some((dict, parsed_to)) = dict_at(window, start)
                && parsed_to == end
            {
                return Lookup::Found(dict);
            }
        }
    }
    Lookup::None
}

/// The filters lopdf applies to a stream with this dictionary.
fn filters(dict: Option<&Dict>) -> Vec<Filter> {
    let Some(dict) = dict else {
        return vec![Filter::Flate];
    };
    // lopdf reads `/DecodeParms` only when it is one direct dictionary.
    let early_change = match dict.get(b"DecodeParms") {
        Some(Obj::Dict(params)) => params.int(b"EarlyChange").is_none_or(|v| v != 0),
        _ => true,
    };
    match dict.get(b"Filter") {
        Some(Obj::Name(name)) => Filter::chain([name.as_slice()], early_change),
        // An array with anything but names fails as a whole: the data stays as it is.
        Some(Obj::Array(items)) => {
            let names: Option<Vec<&[u8]>> = items
                .iter()
                .map(|item| match item {
                    Obj::Name(n) => Some(n.as_slice()),
                    _ => None,
                })
                .collect();
            names.map_or_else(Vec::new, |names| Filter::chain(names, early_change))
        }
        _ => Vec::new(),
    }
}

/// Every stream through its filters within the budget (step 3 of the module doc); the number of
/// objects its object streams hold.
fn expand_streams(bytes: &[u8], streams: &[RawStream], budget: &Budget<'_>) -> Result<usize, Stop> {
    let mut packed = 0usize;
    for stream in streams {
        let dict = stream.dict.as_ref();
        // lopdf takes exactly `/Length` bytes when it can read the length; otherwise as many as
        // the reference it resolves says, which may be anything up to the end of the file.
        let end = exact_length(bytes, stream.data, dict).map_or(bytes.len(), |l| stream.data + l);
        let data = &bytes[stream.data..end];
        let index_bytes = dict
            .filter(|d| d.name(b"Type") == Some(b"ObjStm"))
            .and_then(|d| usize::try_from(d.int(b"First")?).ok());
        let mut index = ObjStmIndex::new(index_bytes.unwrap_or(0));
        inflate::expand(data, &filters(dict), budget, &mut |chunk| index.feed(chunk))?;
        packed = packed.saturating_add(index.objects());
    }
    Ok(packed)
}

/// Counts the objects an object stream holds, as lopdf does: the number pairs in the index
/// before its `/First` offset.
struct ObjStmIndex {
    left: usize,
    numbers: usize,
    in_number: bool,
}

impl ObjStmIndex {
    fn new(index_bytes: usize) -> Self {
        ObjStmIndex {
            left: index_bytes,
            numbers: 0,
            in_number: false,
        }
    }

    fn feed(&mut self, chunk: &[u8]) {
        let take = self.left.min(chunk.len());
        self.left -= take;
        for &b in &chunk[..take] {
            let white = b.is_ascii_whitespace();
            if !white && !self.in_number {
                self.numbers += 1;
            }
            self.in_number = !white;
        }
    }

    fn objects(&self) -> usize {
        self.numbers / 2
    }
}

/// The `obj` keywords of the file (`endobj` and words such as "objects" aside): one per object
/// outside object streams. Counted wherever they are, so that no stray string or comment can
/// hide objects from it.
fn count_obj_keywords(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut from = 0;
    while let Some(at) = find(bytes, b"obj", from) {
        let ends_keyword = bytes.get(at + 3).is_none_or(|&b| !is_regular(b));
        if ends_keyword && !bytes[..at].ends_with(b"end") {
            count += 1;
        }
        from = at + 3;
    }
    count
}

/// The first offset at or after `from` where `needle` starts.
fn find(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let mut at = from;
    while at + needle.len() <= bytes.len() {
        let next = bytes[at..=bytes.len() - needle.len()]
            .iter()
            .position(|&b| b == first)?;
        at += next;
        if bytes[at..].starts_with(needle) {
            return Some(at);
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> PdfLimits {
        PdfLimits::default()
    }

    #[test]
    fn the_tokenizer_skips_strings_comments_and_stream_bodies() {
        let raw = b"%PDF-1.4\n1 0 obj << /A (x [[[[ <<) /B [1 2] >> % [[[[\nstream\n[[[[[[[[\nendstream endobj\ntrailer << /Root 1 0 R >>";
        let shape = shape(raw).expect("shallow");
        assert!(!shape.encrypted);
        assert_eq!(shape.streams.len(), 1);
        assert_eq!(&raw[shape.streams[0].data..][..4], b"[[[[");
        assert!(shape.streams[0].dict.is_some());
        assert_eq!(count_obj_keywords(raw), 1);
    }

    #[test]
    fn nesting_past_the_limit_is_refused_and_encrypt_is_seen() {
        let deep = format!(
            "%PDF-1.4\n1 0 obj {}{} endobj",
            "[".repeat(65),
            "]".repeat(65)
        );
        assert!(matches!(
            shape(deep.as_bytes()),
            Err(PdfRefusal::NestedTooDeep { limit: 64 })
        ));
        let shallow = format!(
            "%PDF-1.4\n1 0 obj {}{} endobj",
            "[".repeat(64),
            "]".repeat(64)
        );
        assert!(shape(shallow.as_bytes()).is_ok());
        let encrypted = b"%PDF-1.4\ntrailer << /Encr#79pt 5 0 R /Root 1 0 R >>";
        assert!(shape(encrypted).expect("shallow").encrypted);
    }

    #[test]
    fn a_stream_hidden_inside_another_is_found_with_its_dictionary() {
        let raw = b"%PDF-1.4\n1 0 obj << /Length 60 >>\nstream\n2 0 obj << /Type /ObjStm /Note (>>) /Filter /FlateDecode >>\nstream\nxx\nendstream\nendobj";
        let shape = shape(raw).expect("shallow");
        let seen: Vec<usize> = shape.streams.iter().map(|s| s.keyword).collect();
        let hidden = hidden_streams(raw, &seen);
        assert_eq!(hidden.len(), 1, "{hidden:?}");
        let dict = hidden[0].dict.as_ref().expect("read backwards");
        assert_eq!(dict.name(b"Type"), Some(&b"ObjStm"[..]));
        assert_eq!(filters(Some(dict)), vec![Filter::Flate]);
    }

    #[test]
    fn a_pdf_without_streams_passes() {
        let go = AtomicBool::new(false);
        let raw = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>";
        assert_eq!(prescan(raw, &limits(), &go), Ok(()));
    }
}
