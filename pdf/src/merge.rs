//! Label PDFs merged into one file to print: every page of every label, in
//! the order given. Each label keeps its own objects (renumbered); the
//! page attributes a label's pages inherit from its own page tree (media
//! box, resources, rotation) are copied onto its pages, since that tree is
//! replaced by the merged file's.

use lopdf::{Dictionary, Document, Object, ObjectId};

/// Why a merge failed: which label (0-based in the input; `None` when the
/// merged file could not be written) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError {
    pub label: Option<usize>,
    pub reason: String,
}

/// Page attributes a page may inherit from its ancestors (PDF 32000-1, 7.7.3.4).
const INHERITED: [&[u8]; 4] = [b"Resources", b"MediaBox", b"CropBox", b"Rotate"];

/// The inherited attributes `page` lacks, found up its `Parent` chain.
fn inherited(doc: &Document, page: &Dictionary) -> Vec<(Vec<u8>, Object)> {
    let mut found = Vec::new();
    let mut parent = page.get(b"Parent").and_then(Object::as_reference).ok();
    // A malformed tree could loop: the chain is followed a bounded number of steps.
    for _ in 0..32 {
        let Some(node) = parent.and_then(|id| doc.get_dictionary(id).ok()) else {
            break;
        };
        for key in INHERITED {
            let missing =
                !page.has(key) && !found.iter().any(|(k, _): &(Vec<u8>, Object)| k == key);
            if missing && let Ok(value) = node.get(key) {
                found.push((key.to_vec(), value.clone()));
            }
        }
        parent = node.get(b"Parent").and_then(Object::as_reference).ok();
    }
    found
}

/// One PDF with every page of `labels`, in order; or which label could
/// not be read.
pub fn merge<B: AsRef<[u8]>>(labels: &[B]) -> Result<Vec<u8>, MergeError> {
    let mut out = Document::with_version("1.5");
    let tree: ObjectId = out.new_object_id();
    let mut kids = Vec::new();
    for (n, bytes) in labels.iter().enumerate() {
        let fail = |reason: String| MergeError {
            label: Some(n),
            reason,
        };
        let mut doc = Document::load_mem(bytes.as_ref()).map_err(|e| fail(e.to_string()))?;
        if doc.is_encrypted() {
            return Err(fail("the PDF is encrypted".into()));
        }
        doc.renumber_objects_with(out.max_id + 1);
        out.max_id = out.max_id.max(doc.max_id);
        let pages: Vec<ObjectId> = doc.get_pages().into_values().collect();
        if pages.is_empty() {
            return Err(fail("the PDF has no page".into()));
        }
        let mut own_pages = Vec::with_capacity(pages.len());
        for id in &pages {
            let mut page = doc
                .get_dictionary(*id)
                .map_err(|e| fail(e.to_string()))?
                .clone();
            for (key, value) in inherited(&doc, &page) {
                page.set(key, value);
            }
            page.set("Parent", tree);
            own_pages.push((*id, page));
        }
        // The label's own catalog and page tree are replaced by the merged file's.
        let dropped: Vec<ObjectId> = doc
            .objects
            .iter()
            .filter(|(_, o)| {
                o.as_dict()
                    .and_then(|d| d.get_type())
                    .is_ok_and(|t| t == b"Catalog" || t == b"Pages")
            })
            .map(|(id, _)| *id)
            .collect();
        for id in dropped {
            doc.objects.remove(&id);
        }
        for (id, page) in own_pages {
            doc.objects.insert(id, Object::Dictionary(page));
        }
        out.objects.extend(doc.objects);
        kids.extend(pages);
    }
    let count = kids.len() as i64;
    let mut tree_dict = Dictionary::new();
    tree_dict.set("Type", "Pages");
    tree_dict.set(
        "Kids",
        kids.into_iter().map(Object::Reference).collect::<Vec<_>>(),
    );
    tree_dict.set("Count", count);
    out.objects.insert(tree, Object::Dictionary(tree_dict));
    let mut catalog = Dictionary::new();
    catalog.set("Type", "Catalog");
    catalog.set("Pages", tree);
    let catalog = out.add_object(catalog);
    out.trailer.set("Root", catalog);
    out.compress();
    let mut bytes = Vec::new();
    out.save_to(&mut bytes).map_err(|e| MergeError {
        label: None,
        reason: e.to_string(),
    })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::content::{Content, Operation};
    use lopdf::{Stream, dictionary};

    /// A one-page label whose page inherits its media box and resources.
    fn label(text: &str) -> Vec<u8> {
        let mut doc = Document::with_version("1.4");
        let tree = doc.new_object_id();
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let content = Content {
            operations: vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 18.into()]),
                Operation::new("Td", vec![36.into(), 380.into()]),
                Operation::new("Tj", vec![Object::string_literal(text)]),
                Operation::new("ET", vec![]),
            ],
        };
        let stream = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => tree, "Contents" => stream,
        });
        doc.objects.insert(
            tree,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
                "MediaBox" => vec![0.into(), 0.into(), 288.into(), 432.into()],
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_hundred_labels_make_a_hundred_pages_in_order() {
        let labels: Vec<Vec<u8>> = (0..100).map(|i| label(&format!("LABEL {i:03}"))).collect();
        let merged = Document::load_mem(&merge(&labels).unwrap()).unwrap();
        let pages = merged.get_pages();
        assert_eq!(pages.len(), 100);
        for (n, id) in pages.values().enumerate() {
            let text = merged.extract_text(&[n as u32 + 1]).unwrap();
            assert!(
                text.contains(&format!("LABEL {n:03}")),
                "page {n}: {text:?}"
            );
            // What the page inherited from its label's tree came along.
            let page = merged.get_dictionary(*id).unwrap();
            assert!(page.has(b"MediaBox") && page.has(b"Resources"), "page {n}");
        }
    }

    #[test]
    fn a_broken_label_is_named() {
        let labels = vec![label("ok"), b"%PDF-1.4 not really".to_vec()];
        assert_eq!(merge(&labels).unwrap_err().label, Some(1));
    }
}
