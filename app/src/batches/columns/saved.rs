//! The merchant's own mappings, saved in this browser by the file's
//! headers: a file from the same export next time is mapped the same way.

use super::{Mapping, normalise};
use serde::{Deserialize, Serialize};

/// A mapping the merchant confirmed, for files with the same headers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMapping {
    pub signature: String,
    pub mapping: Mapping,
}

/// The headers, normalised, in order: a file from the same export has the same.
pub fn signature(headers: &[String]) -> String {
    headers
        .iter()
        .map(|h| normalise(h))
        .collect::<Vec<_>>()
        .join(",")
}

/// At most this many mappings are kept; the oldest is dropped.
pub const MAX_SAVED: usize = 20;

/// `saved` with `mapping` for `headers` first.
pub fn remember(
    mut saved: Vec<SavedMapping>,
    headers: &[String],
    mapping: Mapping,
) -> Vec<SavedMapping> {
    let signature = signature(headers);
    saved.retain(|s| s.signature != signature);
    saved.insert(0, SavedMapping { signature, mapping });
    saved.truncate(MAX_SAVED);
    saved
}

const SAVED_KEY: &str = "parcel.batch-mappings";

pub fn load_saved() -> Vec<SavedMapping> {
    crate::state::stored::load(SAVED_KEY)
}

pub fn store_saved(saved: &[SavedMapping]) {
    crate::state::stored::store(SAVED_KEY, saved);
}
