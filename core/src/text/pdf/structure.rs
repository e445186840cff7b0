//! Checks on the parsed document, with lopdf, before pdf-extract is let near it.
//!
//! pdf-extract trusts the document's graph. It looks a page's resources up its `/Parent` chain by
//! recursion, so a chain that loops takes the stack; it draws a form (`Do`) by recursing into the
//! form's content, so a form that draws itself never returns, and forms that each draw the next
//! a thousand times (nothing drawn, so nothing to cancel on) take hours; and it draws an image
//! XObject the same way, parsing JPEG bytes as drawing instructions. So, in order:
//!
//! 1. [`check_pages`]: the page count against `max_pages`, and every page's `/Parent` chain
//!    walked as pdf-extract walks it, refused if it loops or passes [`MAX_PAGE_TREE_DEPTH`].
//! 2. [`blank_images`]: every image XObject's data replaced by nothing, so that drawing one
//!    draws nothing (the text layer is all that is read; whether a page drew any image is kept,
//!    to tell a scanned document from an empty one).
//! 3. [`Walk`]: every page's drawing followed through the forms it draws, as pdf-extract will
//!    follow it: a form reached again on its own path is a loop, forms nested past
//!    [`MAX_FORM_DEPTH`] are refused, and the bytes of drawing instructions pdf-extract would
//!    decode (a form once per `Do`) are summed, a page against [`page_limit`] and the document
//!    against `max_stream_bytes`, and a page's operations against [`MAX_PAGE_OPERATIONS`]. What
//!    pdf-extract copies on each saved graphics state is bounded too: the nesting of `q`
//!    ([`MAX_STATE_DEPTH`]) and the soft masks it carries.
//!
//! A stream is parsed here (with lopdf, as pdf-extract will) only when its bytes could name an
//! object (`Do`, `BI`) or nest states too deep (more `q` than the limit); most text pages are
//! only measured.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::inflate::{self, Budget, Filter, Stop};
use super::objects;
use super::{PdfLimits, PdfRefusal};

/// The longest `/Parent` chain from a page to the root; real page trees are a few levels deep.
pub(super) const MAX_PAGE_TREE_DEPTH: usize = 64;
/// The deepest nesting of forms drawn inside forms.
pub(super) const MAX_FORM_DEPTH: usize = 16;

/// The deepest nesting of saved graphics states (`q`) in one stream. pdf-extract copies its whole
/// graphics state on each `q` and keeps the copies until the `Q`: fifteen kilobytes of `q`
/// compressed made 8 GB. Acrobat's own limit is 28.
pub(super) const MAX_STATE_DEPTH: usize = 32;
/// The heaviest soft mask dictionary (objects in it, a string counting one per 64 bytes):
/// pdf-extract copies it with the graphics state on each `q`. A real one has half a dozen
/// entries.
const MAX_SOFT_MASK_WEIGHT: usize = 256;

/// The most bytes of drawing instructions one page may have pdf-extract decode, forms included:
/// a sixty-fourth of the document's stream budget (4 MiB by default). lopdf holds a page's
/// instructions parsed, many times their size (2.4 MB of `0 0 m` took 260 MB), so it is one
/// page's instructions, in bytes and in operations ([`MAX_PAGE_OPERATIONS`]), that bound the
/// memory a read takes.
pub(super) fn page_limit(limits: &PdfLimits) -> u64 {
    (limits.max_stream_bytes / 64).max(1)
}

/// The most drawing operations one page may have pdf-extract parse, forms included: parsed, an
/// operation costs lopdf some six hundred bytes however short it is written (two bytes of `Q`),
/// so 400,000 of them take about 250 MB. A dense chart has tens of thousands. Counted on the
/// bytes before any parse (every word that may be an operator), so an overlong page is refused
/// unparsed.
pub(super) const MAX_PAGE_OPERATIONS: u64 = 400_000;

/// What the checks learnt about a document that passed them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Checked {
    /// The number of pages, numbered from 1 as pdf-extract numbers them.
    pub(super) pages: u32,
    /// Whether some page draws an image (an image XObject or an inline image).
    pub(super) draws_images: bool,
}

/// Runs the checks of the module doc, blanking the images of `doc` on the way.
///
/// # Errors
///
/// The refusal for the first check that fails.
pub(super) fn check(
    doc: &mut Document,
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<Checked, PdfRefusal> {
    if doc.is_encrypted() || doc.was_encrypted() {
        return Err(PdfRefusal::Encrypted);
    }
    if doc.objects.len() > limits.max_objects {
        return Err(PdfRefusal::TooManyObjects {
            limit: limits.max_objects,
        });
    }
    let pages = check_pages(doc, limits)?;
    blank_images(doc);
    let empty = Dictionary::new();
    let mut walk = Walk {
        doc,
        empty: &empty,
        cancel,
        page_limit: page_limit(limits),
        total_limit: limits.max_stream_bytes,
        total: 0,
        forms: HashMap::new(),
        path: Vec::new(),
        masks_checked: HashSet::new(),
        draws_images: false,
    };
    for (&number, &page) in &pages {
        walk.page(number, page)?;
    }
    Ok(Checked {
        pages: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        draws_images: walk.draws_images,
    })
}

/// Step 1 of the module doc: the pages, numbered, once their count and parent chains pass.
fn check_pages(
    doc: &Document,
    limits: &PdfLimits,
) -> Result<std::collections::BTreeMap<u32, ObjectId>, PdfRefusal> {
    // lopdf's page iterator bounds itself: no more kids than objects, a tree at most 256 deep.
    let pages = doc.get_pages();
    if pages.len() > limits.max_pages {
        return Err(PdfRefusal::TooManyPages {
            limit: limits.max_pages,
        });
    }
    if pages.is_empty() {
        return Err(PdfRefusal::Damaged("it has no pages".into()));
    }
    for &page in pages.values() {
        check_parent_chain(doc, page)?;
    }
    Ok(pages)
}

/// A page's `/Parent` chain as pdf-extract's `get_inherited` follows it: a direct reference to
/// a dictionary, and up again, until a link is missing.
fn check_parent_chain(doc: &Document, page: ObjectId) -> Result<(), PdfRefusal> {
    let mut seen = vec![page];
    let mut current = page;
    loop {
        let parent = doc
            .get_dictionary(current)
            .and_then(|d| d.get(b"Parent"))
            .and_then(Object::as_reference);
        let Ok(parent) = parent else {
            return Ok(());
        };
        if doc.get_dictionary(parent).is_err() {
            return Ok(());
        }
        if seen.contains(&parent) {
            return Err(PdfRefusal::ParentLoop);
        }
        if seen.len() > MAX_PAGE_TREE_DEPTH {
            return Err(PdfRefusal::PageTreeTooDeep {
                limit: MAX_PAGE_TREE_DEPTH,
            });
        }
        seen.push(parent);
        current = parent;
    }
}

/// Step 2 of the module doc.
fn blank_images(doc: &mut Document) {
    let images: Vec<ObjectId> = doc
        .objects
        .iter()
        .filter(|(_, object)| matches!(object, Object::Stream(s) if is_image(doc, s)))
        .map(|(&id, _)| id)
        .collect();
    for id in images {
        if let Some(Object::Stream(stream)) = doc.objects.get_mut(&id) {
            stream.set_plain_content(Vec::new());
        }
    }
}

fn is_image(doc: &Document, stream: &Stream) -> bool {
    stream
        .dict
        .get(b"Subtype")
        .and_then(|s| doc.dereference(s))
        .and_then(|(_, s)| s.as_name())
        .is_ok_and(|name| name == b"Image")
}

/// The filters lopdf applies to a parsed stream, as [`inflate`] runs them.
fn filters_of(stream: &Stream) -> Vec<Filter> {
    let Ok(names) = stream.filters() else {
        return Vec::new();
    };
    let early_change = stream
        .dict
        .get(b"DecodeParms")
        .and_then(Object::as_dict)
        .and_then(|p| p.get(b"EarlyChange"))
        .and_then(Object::as_i64)
        .map_or(true, |v| v != 0);
    Filter::chain(names, early_change)
}

/// A byte-level look at drawing instructions as they are decoded: their size, whether they may
/// name a form or an image (`Do`) or hold an inline image (`BI`), and how many `q` tokens they
/// have, strings and all (never fewer than the `q` operators lopdf will parse).
#[derive(Default)]
struct ContentScan {
    bytes: u64,
    /// Tokens that may be operators (words starting with a letter or a quote, strings' words
    /// included): never fewer than the operations lopdf will parse.
    operations: u64,
    may_draw_objects: bool,
    q_tokens: usize,
    /// The current run of regular bytes: its length and first two bytes.
    token_len: usize,
    token: [u8; 2],
}

impl ContentScan {
    fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        for &b in chunk {
            if objects::is_regular(b) {
                if let Some(slot) = self.token.get_mut(self.token_len) {
                    *slot = b;
                }
                self.token_len += 1;
            } else {
                self.end_token();
            }
        }
    }

    fn end_token(&mut self) {
        if self.token_len > 0 && matches!(self.token[0], b'a'..=b'z' | b'A'..=b'Z' | b'\'' | b'"') {
            self.operations += 1;
        }
        match &self.token[..self.token_len.min(2)] {
            b"q" if self.token_len == 1 => self.q_tokens += 1,
            b"Do" | b"BI" if self.token_len == 2 => self.may_draw_objects = true,
            _ => {}
        }
        self.token_len = 0;
    }

    /// Whether the instructions must be parsed to know what they draw and how deep they nest.
    fn needs_parse(&self) -> bool {
        self.may_draw_objects || self.q_tokens > MAX_STATE_DEPTH
    }
}

/// The cost of a form drawn once, with everything it draws, and how many forms deep it goes.
#[derive(Clone, Copy)]
struct FormCost {
    bytes: u64,
    operations: u64,
    depth: usize,
}

/// Step 3 of the module doc.
struct Walk<'d, 'c> {
    doc: &'d Document,
    /// The resources of a page that has none.
    empty: &'d Dictionary,
    cancel: &'c AtomicBool,
    page_limit: u64,
    total_limit: u64,
    total: u64,
    /// Forms already costed, by id and the resources they were drawn with (a form without
    /// `/Resources` draws with its caller's, as pdf-extract does).
    forms: HashMap<(ObjectId, usize), FormCost>,
    /// The forms being drawn, outermost first.
    path: Vec<ObjectId>,
    /// Resources whose soft masks were checked, by address.
    masks_checked: HashSet<usize>,
    draws_images: bool,
}

impl<'d> Walk<'d, '_> {
    fn page(&mut self, number: u32, page: ObjectId) -> Result<(), PdfRefusal> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(PdfRefusal::Cancelled);
        }
        let doc = self.doc;
        let page_dict = doc.get_dictionary(page).unwrap_or(self.empty);
        let resources = self.inherited_resources(page_dict).unwrap_or(self.empty);
        self.check_soft_masks(resources)?;
        let mut scan = ContentScan::default();
        for id in doc.get_page_contents(page) {
            if let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) {
                self.measure(stream, number, &mut scan)?;
                // lopdf joins a page's streams with a line break.
                scan.feed(b"\n");
            }
        }
        // Over the limits already: refused before lopdf parses it.
        if scan.operations > MAX_PAGE_OPERATIONS {
            return Err(self.page_too_much(number));
        }
        let mut cost = scan.bytes;
        let mut operations = scan.operations;
        if scan.needs_parse() {
            let content = doc.get_page_content(page).unwrap_or_default();
            for (id, stream, form_resources) in self.parse_drawing(&content, resources)? {
                let form_cost = self.form(id, stream, form_resources, number)?;
                cost = cost.saturating_add(form_cost.bytes);
                operations = operations.saturating_add(form_cost.operations);
            }
        }
        if cost > self.page_limit || operations > MAX_PAGE_OPERATIONS {
            return Err(self.page_too_much(number));
        }
        self.total = self.total.saturating_add(cost);
        if self.total > self.total_limit {
            return Err(PdfRefusal::DrawsTooMuch {
                limit: self.total_limit,
            });
        }
        Ok(())
    }

    /// A form's cost, drawn once; refused if it is already being drawn on this path (a loop)
    /// or nests too deep.
    fn form(
        &mut self,
        id: ObjectId,
        stream: &'d Stream,
        resources: &'d Dictionary,
        page: u32,
    ) -> Result<FormCost, PdfRefusal> {
        if self.path.contains(&id) {
            return Err(PdfRefusal::FormLoop);
        }
        let key = (id, std::ptr::from_ref(resources) as usize);
        let depth_here = self.path.len() + 1;
        if let Some(&known) = self.forms.get(&key) {
            return self
                .within_depth(depth_here + known.depth - 1)
                .map(|()| known);
        }
        self.within_depth(depth_here)?;
        if self.cancel.load(Ordering::Relaxed) {
            return Err(PdfRefusal::Cancelled);
        }
        self.check_soft_masks(resources)?;
        let mut scan = ContentScan::default();
        self.measure(stream, page, &mut scan)?;
        if scan.operations > MAX_PAGE_OPERATIONS {
            return Err(self.page_too_much(page));
        }
        let mut cost = FormCost {
            bytes: scan.bytes,
            operations: scan.operations,
            depth: 1,
        };
        if scan.needs_parse() {
            let content = decoded(stream);
            self.path.push(id);
            for (inner_id, inner, inner_resources) in self.parse_drawing(&content, resources)? {
                let inner_cost = self.form(inner_id, inner, inner_resources, page)?;
                cost.bytes = cost.bytes.saturating_add(inner_cost.bytes);
                cost.operations = cost.operations.saturating_add(inner_cost.operations);
                cost.depth = cost.depth.max(inner_cost.depth + 1);
            }
            self.path.pop();
        }
        self.forms.insert(key, cost);
        Ok(cost)
    }

    fn page_too_much(&self, page: u32) -> PdfRefusal {
        PdfRefusal::PageDrawsTooMuch {
            page,
            limit: self.page_limit,
            operations: MAX_PAGE_OPERATIONS,
        }
    }

    fn within_depth(&self, depth: usize) -> Result<(), PdfRefusal> {
        if depth > MAX_FORM_DEPTH {
            return Err(PdfRefusal::FormsTooDeep {
                limit: MAX_FORM_DEPTH,
            });
        }
        Ok(())
    }

    /// A stream decoded into `scan`, within the page's budget.
    fn measure(
        &self,
        stream: &Stream,
        page: u32,
        scan: &mut ContentScan,
    ) -> Result<(), PdfRefusal> {
        let budget = Budget::new(self.page_limit, self.cancel);
        inflate::expand(
            &stream.content,
            &filters_of(stream),
            &budget,
            &mut |chunk| scan.feed(chunk),
        )
        .map_err(|stop| match stop {
            Stop::OverLimit => self.page_too_much(page),
            Stop::Cancelled => PdfRefusal::Cancelled,
        })?;
        scan.end_token();
        Ok(())
    }

    /// Refuses resources whose graphics states carry a soft mask too heavy to copy on each `q`.
    fn check_soft_masks(&mut self, resources: &'d Dictionary) -> Result<(), PdfRefusal> {
        if !self
            .masks_checked
            .insert(std::ptr::from_ref(resources) as usize)
        {
            return Ok(());
        }
        let doc = self.doc;
        let deref = |o: &'d Object| doc.dereference(o).map(|(_, o)| o).ok();
        let Some(Object::Dictionary(states)) = resources.get(b"ExtGState").ok().and_then(deref)
        else {
            return Ok(());
        };
        for (_, state) in states.iter() {
            let mask = match deref(state) {
                Some(Object::Dictionary(state)) => state.get(b"SMask").ok().and_then(deref),
                _ => None,
            };
            if let Some(mask @ Object::Dictionary(_)) = mask
                && weight(mask, MAX_SOFT_MASK_WEIGHT + 1) > MAX_SOFT_MASK_WEIGHT
            {
                return Err(PdfRefusal::Damaged(
                    "a soft mask of its graphics states is malformed".into(),
                ));
            }
        }
        Ok(())
    }

    /// The forms a content stream draws, in order, each with the resources it will draw with;
    /// images drawn are noted and left out. Refuses `q` nested past [`MAX_STATE_DEPTH`].
    fn parse_drawing(
        &mut self,
        content: &[u8],
        resources: &'d Dictionary,
    ) -> Result<Vec<(ObjectId, &'d Stream, &'d Dictionary)>, PdfRefusal> {
        let doc = self.doc;
        // Content pdf-extract cannot parse panics there, and is refused as damaged then.
        let Ok(content) = Content::decode(content) else {
            return Ok(Vec::new());
        };
        let xobjects = resources
            .get(b"XObject")
            .and_then(|x| doc.dereference(x))
            .and_then(|(_, x)| x.as_dict());
        let mut drawn = Vec::new();
        let mut states = 0usize;
        for operation in &content.operations {
            match operation.operator.as_str() {
                "q" => {
                    states += 1;
                    if states > MAX_STATE_DEPTH {
                        return Err(PdfRefusal::StatesTooDeep {
                            limit: MAX_STATE_DEPTH,
                        });
                    }
                }
                "Q" => states = states.saturating_sub(1),
                "BI" => self.draws_images = true,
                "Do" => {
                    let target = operation
                        .operands
                        .first()
                        .and_then(|name| name.as_name().ok())
                        .and_then(|name| xobjects.as_ref().ok()?.get(name).ok())
                        .and_then(|object| doc.dereference(object).ok());
                    let Some((Some(id), Object::Stream(stream))) = target else {
                        continue;
                    };
                    if is_image(doc, stream) {
                        self.draws_images = true;
                        continue;
                    }
                    let own = stream
                        .dict
                        .get(b"Resources")
                        .and_then(|r| doc.dereference(r))
                        .and_then(|(_, r)| r.as_dict());
                    drawn.push((id, stream, own.unwrap_or(resources)));
                }
                _ => {}
            }
        }
        Ok(drawn)
    }

    /// A page's `/Resources`, looked up its parent chain as pdf-extract does.
    fn inherited_resources(&self, page: &'d Dictionary) -> Option<&'d Dictionary> {
        let doc = self.doc;
        let mut current = page;
        // The chain was checked (step 1); the bound only keeps this loop obviously finite.
        for _ in 0..=MAX_PAGE_TREE_DEPTH {
            if let Ok((_, Object::Dictionary(resources))) =
                current.get(b"Resources").and_then(|r| doc.dereference(r))
            {
                return Some(resources);
            }
            let parent = current.get(b"Parent").and_then(Object::as_reference).ok()?;
            current = doc.get_dictionary(parent).ok()?;
        }
        None
    }
}

/// A stream's content as pdf-extract reads it: decompressed, or as it is where that fails.
fn decoded(stream: &Stream) -> Vec<u8> {
    if stream.filters().is_ok() {
        stream
            .decompressed_content()
            .unwrap_or_else(|_| stream.content.clone())
    } else {
        stream.content.clone()
    }
}

/// What copying `object` costs, in objects (a string counting one per 64 bytes), counted up to
/// `cap`. References count one: they are copied, not followed.
fn weight(object: &Object, cap: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![object];
    while let Some(object) = stack.pop() {
        total += 1;
        match object {
            Object::String(bytes, _) | Object::Name(bytes) => total += bytes.len() / 64,
            Object::Array(items) => stack.extend(items),
            Object::Dictionary(dict) => stack.extend(dict.iter().map(|(_, v)| v)),
            Object::Stream(stream) => stack.extend(stream.dict.iter().map(|(_, v)| v)),
            _ => {}
        }
        if total >= cap {
            break;
        }
    }
    total
}
