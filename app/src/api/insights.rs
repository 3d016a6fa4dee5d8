//! Insights and the label history (`api::insights`) on the one typed client.

use super::{Client, ClientError};
use api::insights::{INSIGHTS_PATH, Insights, InsightsQuery};
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
}
