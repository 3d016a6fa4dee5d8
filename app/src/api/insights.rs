//! Insights and the label history (`api::insights`) on the one typed client.

use super::{Client, ClientError};
use api::insights::{
    EXPORT_PATH, HISTORY_PATH, HistoryPage, HistoryQuery, INSIGHTS_PATH, Insights, InsightsQuery,
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
