//! What a print does next, decided from what the job's prints object holds
//! (`prints`, its I/O): it fetches each label's PDF once and keeps it, and
//! keeps each merged file under the exact list of its labels, so a file is
//! merged once and served from storage after that. A part whose labels
//! changed (a retry bought a failed row, which moves every later label) has
//! another key: it is merged again, never served stale.
//!
//! A Workers invocation on the free plan may make 50 subrequests to the
//! Internet (label PDFs are on the service's or a carrier's host), so one
//! call to the object fetches at most [`FETCH_PER_CALL`] labels, and the
//! PDF Worker calls it again until the file is ready. Calls to a Durable
//! Object or through a service binding are subrequests to Cloudflare
//! services (1,000 per invocation on every plan): a part of 100 labels is
//! one download on the free plan too, three calls to the object.

use sha2::{Digest, Sha256};

use domain::prints::LabelSource;

/// Label PDFs fetched in one call to the prints object: under the free
/// plan's 50 subrequests, with room for redirects (each counts).
pub const FETCH_PER_CALL: usize = 40;
/// Stored files are cut into pieces of this size: a row of a Durable
/// Object's SQLite holds at most 2 MB.
pub const PIECE_BYTES: usize = 1 << 20;

/// The calls to the prints object one file of `labels` takes at most: the
/// fetches (the call that fetches the last labels also merges), and one
/// more should a label change meanwhile.
pub fn calls_for(labels: usize) -> usize {
    labels.div_ceil(FETCH_PER_CALL) + 1
}

/// A merged file's key: its labels, in order.
pub fn file_key(labels: &[LabelSource]) -> String {
    let mut hash = Sha256::new();
    for label in labels {
        hash.update(label.url.as_bytes());
        // A URL holds no newline: the list reads back one way only.
        hash.update(b"\n");
    }
    hex::encode(hash.finalize())
}

/// What a call to the prints object does next for a file it does not
/// hold under its key.
#[derive(Debug, PartialEq, Eq)]
pub enum Next<'a> {
    /// Fetch these labels (at most [`FETCH_PER_CALL`]).
    Fetch(Vec<&'a LabelSource>),
    /// Every label is stored: merge them.
    Merge,
}

/// The next step for `labels`, given which labels are stored.
pub fn next<'a>(labels: &'a [LabelSource], stored: impl Fn(&str) -> bool) -> Next<'a> {
    let missing: Vec<&LabelSource> = labels
        .iter()
        .filter(|l| !stored(&l.url))
        .take(FETCH_PER_CALL)
        .collect();
    if missing.is_empty() {
        Next::Merge
    } else {
        Next::Fetch(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashSet;

    fn labels(n: usize) -> Vec<LabelSource> {
        (0..n)
            .map(|i| LabelSource {
                reference: format!("#{i:05}"),
                url: format!("https://api.ship.example/labels/lbl_{i}.pdf"),
                with_key: true,
            })
            .collect()
    }

    #[test]
    fn a_hundred_labels_take_three_calls_of_at_most_forty_fetches() {
        let part = labels(100);
        let stored = RefCell::new(HashSet::new());
        let mut fetched_per_call = vec![];
        for call in 1..=calls_for(part.len()) {
            let mut fetched = 0;
            let merged = loop {
                match next(&part, |url| stored.borrow().contains(url)) {
                    // One batch of fetches per call.
                    Next::Fetch(_) if fetched > 0 => break false,
                    Next::Fetch(batch) => {
                        assert!(batch.len() <= FETCH_PER_CALL);
                        fetched = batch.len();
                        stored
                            .borrow_mut()
                            .extend(batch.iter().map(|l| l.url.clone()));
                    }
                    Next::Merge => break true,
                }
            };
            fetched_per_call.push(fetched);
            if merged {
                assert_eq!(call, 3);
                break;
            }
        }
        assert_eq!(fetched_per_call, [40, 40, 20]);
        assert_eq!(calls_for(100), 4);
        assert_eq!(calls_for(1), 2);
    }

    #[test]
    fn only_the_labels_not_stored_are_fetched_in_row_order() {
        let part = labels(5);
        let stored = |url: &str| url.ends_with("lbl_1.pdf") || url.ends_with("lbl_3.pdf");
        let Next::Fetch(batch) = next(&part, stored) else {
            panic!("labels are missing");
        };
        let refs: Vec<&str> = batch.iter().map(|l| l.reference.as_str()).collect();
        assert_eq!(refs, ["#00000", "#00002", "#00004"]);
        assert_eq!(next(&part, |_| true), Next::Merge);
    }

    #[test]
    fn the_key_is_the_exact_list_of_labels() {
        let part = labels(100);
        assert_eq!(file_key(&part), file_key(&part.clone()));
        assert_eq!(file_key(&part).len(), 64);
        // A retry bought row 3's label: every later label moves by one.
        let mut moved = part.clone();
        moved.insert(
            3,
            LabelSource {
                reference: "#99999".into(),
                url: "https://api.ship.example/labels/lbl_new.pdf".into(),
                with_key: true,
            },
        );
        moved.pop();
        assert_ne!(file_key(&part), file_key(&moved));
        let mut swapped = part.clone();
        swapped.swap(0, 1);
        assert_ne!(
            file_key(&part),
            file_key(&swapped),
            "order is part of the file"
        );
        // The reference names a row; the file is its labels.
        let mut renamed = part.clone();
        renamed[0].reference = "#renamed".into();
        assert_eq!(file_key(&part), file_key(&renamed));
        assert_ne!(file_key(&part[..99]), file_key(&part));
    }
}
