//! The shipments the ledger Worker follows (`api::shipments`).

use super::{Client, ClientError};
use api::shipments::{SHIPMENTS_PATH, ShipmentList};
use gloo_net::http::Request;

impl Client {
    /// The session's mode's shipments, newest first, as their trackers were last read.
    pub async fn shipments(self) -> Result<ShipmentList, ClientError> {
        self.send(Request::get(SHIPMENTS_PATH)).await
    }
}
