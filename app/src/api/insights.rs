//! Insights and the label history (`api::insights`) on the one typed client.

use super::{Client, ClientError, encode};
use api::KeyEnv;
use api::insights::{
    EXPORT_PATH, HISTORY_PATH, HistoryPage, HistoryQuery, INSIGHTS_PATH, Insights, InsightsQuery,
    LABEL_RECORD_PATH, LabelRecord,
};
use gloo_net::http::Request;

impl Client {
    /// The period's sums, per day or week and carrier, in the session's mode.
    pub async fn insights(self, query: InsightsQuery) -> Result<Insights, ClientError> {
        self.send(Request::get(&format!(
            "{INSIGHTS_PATH}?{}",
            query.to_query()
        )))
        .await
    }

    /// One page of the label history, newest first.
    pub async fn history(self, query: HistoryQuery) -> Result<HistoryPage, ClientError> {
        self.send(Request::get(&format!(
            "{HISTORY_PATH}?{}",
            query.to_query()
        )))
        .await
    }

    /// One label as the organization's ledger holds it, in `mode`'s history
    /// (404 `LABEL.NOT_FOUND`: the ledger has no record of it).
    pub async fn label_record(self, id: &str, mode: KeyEnv) -> Result<LabelRecord, ClientError> {
        self.send(Request::get(&format!(
            "{LABEL_RECORD_PATH}?id={}&mode={mode}",
            encode(id)
        )))
        .await
    }
}

/// Where the browser downloads every label `query` selects, as CSV (the
/// Worker streams it; the session cookie goes with a same-origin link).
pub fn export_href(query: &HistoryQuery) -> String {
    let all = HistoryQuery {
        cursor: None,
        limit: api::insights::DEFAULT_HISTORY_LIMIT,
        ..query.clone()
    };
    format!("{EXPORT_PATH}?{}", all.to_query())
}
