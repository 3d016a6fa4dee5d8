//! How much of the key's limits batch jobs use, and how large a v1 batch
//! they make.

use super::plan::DEFAULT_RATES_SHARE;
use crate::errors::SettingError;
use crate::settings::{Lookup, bounded, share};

pub const BATCH_RATES_SHARE: &str = "BATCH_RATES_SHARE";
pub const BATCH_MAX_CHUNK_ROWS: &str = "BATCH_MAX_CHUNK_ROWS";

#[derive(Clone, Copy)]
pub struct Settings {
    /// The share of the rates limit batch jobs may use (the rest is kept
    /// for interactive users and the widget).
    pub rates_share: f64,
    /// At most this many rows per v1 batch (smaller batches put less at
    /// stake when one's outcome is unknown).
    pub max_chunk_rows: u32,
}

impl Settings {
    pub fn from_lookup(get: Lookup) -> Result<Settings, SettingError> {
        Ok(Settings {
            rates_share: share(
                get(BATCH_RATES_SHARE),
                BATCH_RATES_SHARE,
                DEFAULT_RATES_SHARE,
            )?,
            max_chunk_rows: bounded(
                get(BATCH_MAX_CHUNK_ROWS),
                BATCH_MAX_CHUNK_ROWS,
                api::jobs::MAX_ROWS as u64,
                1..=api::jobs::MAX_ROWS as u64,
                "a whole number of rows from 1 to 5000",
            )? as u32,
        })
    }
}
