//! Batches (part 2, part 4): up to 5,000 items bought from quoted rates,
//! paid in full at creation, processed after `buy`. Where the interface says
//! "not shown" (states, the buy body, per-item results and their paging),
//! the choices are ours and listed in `sim/README.md`.

use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::error::ApiError;
use crate::parcel::Parcel;
use crate::validation::BodyError;

pub const MAX_BATCH_ITEMS: usize = 5000;

/// One item: a shipment and the rate quoted for it. The service checks that
/// `rate_id` is usable (as a label purchase would) and that the other
/// fields are the ones the rate was quoted for, so an item cannot pay less
/// than its rate or ship something else than was priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchItem {
    pub from_address: Address,
    pub to_address: Address,
    pub parcel: Parcel,
    pub rate_id: String,
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
}

impl BatchItem {
    /// The item's addresses and parcel by the rules serde cannot express,
    /// fields under `prefix` (`items[3]`). Its rate is the service's to check.
    pub fn check(&self, prefix: &str) -> Result<(), BodyError> {
        self.from_address.check(&format!("{prefix}.from_address"))?;
        self.to_address.check(&format!("{prefix}.to_address"))?;
        self.parcel.check(&format!("{prefix}.parcel"))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateBatchRequest {
    pub items: Vec<BatchItem>,
}

impl CreateBatchRequest {
    /// Every item's [`BatchItem::check`], the first problem first.
    pub fn check(&self) -> Result<(), BodyError> {
        self.items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| item.check(&format!("items[{i}]")))
    }
}

/// `POST /v1/batches/{id}/buy` body (our choice; the interface shows none):
/// optional; when sent, a JSON object, whose fields are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyBatchRequest {}

crate::names! {
    /// Batch states (names are our choice).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum BatchState {
        /// Created and paid; `buy` not called yet.
        Created = "created",
        Processing = "processing",
        /// Every item processed: each became a label or failed (and was refunded).
        Completed = "completed",
    }
}

/// The same enum under the name used in the brief (`batch.state` on the wire).
pub type BatchStatus = BatchState;

crate::names! {
    /// Where one item stands.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum BatchItemState {
        /// Not processed yet (or `buy` not called).
        Pending = "pending",
        /// Its label exists (`label_id`, `tracking_number`).
        Created = "created",
        /// No label; `error` says why, and its price was refunded (live).
        Failed = "failed",
    }
}

/// One item's result, in `Batch::results`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchItemResult {
    /// The item's position in the `items` it was created with, from 0.
    pub index: u32,
    pub state: BatchItemState,
    pub rate_cents: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
    /// The label's PDF (as `Label::label_url`), so a client can print a
    /// batch's labels without reading each label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_url: Option<String>,
    /// Why the item failed, as the same purchase by `POST /v1/labels` would
    /// have been refused (`LABEL.ADDRESS.UNDELIVERABLE`, ...), with its
    /// suggestion; `field` is under `items[index]`, `request_id` is the
    /// `buy` request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}

/// A batch as returned by create, buy and read. Items are not echoed back (a
/// 5,000-item batch would be megabytes): their results come a page at a
/// time (`results`, see [`ResultsPage`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    pub id: String,
    pub state: BatchState,
    pub item_count: u32,
    pub total_cost_cents: i64,
    /// The balance right after the deduction at creation.
    pub wallet_balance_after_cents: i64,
    /// Processed items (created or failed) in percent of all, rounded down.
    pub estimated_completion_percentage: u32,
    pub estimated_time_remaining_seconds: u64,
    pub labels_created: u32,
    pub labels_failed: u32,
    /// Given back to the wallet for failed items so far (0 in sandbox, which
    /// charges nothing).
    pub refunded_cents: i64,
    pub sandbox: bool,
    /// Index of the first entry of `results`.
    pub results_offset: u32,
    /// How many results there are in all (= `item_count`).
    pub results_total: u32,
    /// Items `results_offset ..` (at most the page's limit), in order.
    pub results: Vec<BatchItemResult>,
}

impl Batch {
    /// Items processed so far, created or failed.
    pub fn items_processed(&self) -> u32 {
        self.labels_created + self.labels_failed
    }

    /// The page after this one, `None` when this one reached the end.
    pub fn next_results_page(&self, limit: u32) -> Option<ResultsPage> {
        let next = self.results_offset as u64 + self.results.len() as u64;
        (!self.results.is_empty() && next < self.results_total as u64).then_some(ResultsPage {
            offset: next as u32,
            limit,
        })
    }
}

/// Query parameters of `GET /v1/batches/{id}` choosing the page of
/// `results`: `results_offset` (from 0, default 0; past the end gives an
/// empty page) and `results_limit` (1 to 1,000, default 100).
pub const RESULTS_OFFSET_PARAM: &str = "results_offset";
pub const RESULTS_LIMIT_PARAM: &str = "results_limit";
pub const DEFAULT_RESULTS_LIMIT: u32 = 100;
pub const MAX_RESULTS_LIMIT: u32 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultsPage {
    pub offset: u32,
    pub limit: u32,
}

impl Default for ResultsPage {
    fn default() -> Self {
        ResultsPage {
            offset: 0,
            limit: DEFAULT_RESULTS_LIMIT,
        }
    }
}

impl ResultsPage {
    /// Reads the page from a query string (without `?`). Other parameters
    /// are ignored; each of ours may appear once, as decimal digits.
    pub fn from_query(query: Option<&str>) -> Result<ResultsPage, BodyError> {
        let mut page = ResultsPage::default();
        let (mut offset_seen, mut limit_seen) = (false, false);
        for pair in query.unwrap_or("").split('&') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (seen, max) = match name {
                RESULTS_OFFSET_PARAM => (&mut offset_seen, u32::MAX),
                RESULTS_LIMIT_PARAM => (&mut limit_seen, MAX_RESULTS_LIMIT),
                _ => continue,
            };
            let invalid = |reason: &str| BodyError::Invalid {
                field: name.to_string(),
                reason: reason.to_string(),
            };
            if std::mem::replace(seen, true) {
                return Err(invalid("must be given at most once"));
            }
            let min = if name == RESULTS_LIMIT_PARAM { 1 } else { 0 };
            let n = Some(value)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|n| (min..=max as u64).contains(n))
                .ok_or_else(|| {
                    invalid(&if name == RESULTS_LIMIT_PARAM {
                        format!("must be a whole number from 1 to {MAX_RESULTS_LIMIT}")
                    } else {
                        "must be a whole number from 0".to_string()
                    })
                })? as u32;
            if name == RESULTS_LIMIT_PARAM {
                page.limit = n;
            } else {
                page.offset = n;
            }
        }
        Ok(page)
    }

    /// The query string that asks for this page (without `?`).
    pub fn to_query(&self) -> String {
        format!(
            "{RESULTS_OFFSET_PARAM}={}&{RESULTS_LIMIT_PARAM}={}",
            self.offset, self.limit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_page_reads_its_two_parameters() {
        assert_eq!(ResultsPage::from_query(None), Ok(ResultsPage::default()));
        assert_eq!(
            ResultsPage::from_query(Some("results_limit=500&results_offset=1000&x=y")),
            Ok(ResultsPage {
                offset: 1000,
                limit: 500
            })
        );
        let page = ResultsPage {
            offset: 7,
            limit: 1000,
        };
        assert_eq!(ResultsPage::from_query(Some(&page.to_query())), Ok(page));
        for (query, field) in [
            ("results_limit=0", "results_limit"),
            ("results_limit=1001", "results_limit"),
            ("results_limit=", "results_limit"),
            ("results_limit=-1", "results_limit"),
            ("results_limit=+5", "results_limit"),
            ("results_offset=1.5", "results_offset"),
            ("results_offset=99999999999", "results_offset"),
            ("results_offset=1&results_offset=2", "results_offset"),
        ] {
            let e = ResultsPage::from_query(Some(query)).unwrap_err();
            assert_eq!(e.field(), field, "{query}");
        }
    }

    #[test]
    fn the_next_page_follows_the_results_read() {
        let result = |index| BatchItemResult {
            index,
            state: BatchItemState::Pending,
            rate_cents: 1,
            label_id: None,
            tracking_number: None,
            label_url: None,
            error: None,
        };
        let mut batch = Batch {
            id: "batch_1".into(),
            state: BatchState::Created,
            item_count: 3,
            total_cost_cents: 3,
            wallet_balance_after_cents: 0,
            estimated_completion_percentage: 0,
            estimated_time_remaining_seconds: 1,
            labels_created: 0,
            labels_failed: 0,
            refunded_cents: 0,
            sandbox: false,
            results_offset: 0,
            results_total: 3,
            results: vec![result(0), result(1)],
        };
        assert_eq!(
            batch.next_results_page(2),
            Some(ResultsPage {
                offset: 2,
                limit: 2
            })
        );
        batch.results_offset = 2;
        batch.results = vec![result(2)];
        assert_eq!(batch.next_results_page(2), None);
        batch.results_offset = 5;
        batch.results = vec![];
        assert_eq!(batch.next_results_page(2), None);
    }
}
