//! The shipments the ledger Worker follows, and the tracking page's brand (`api::shipments`).

use super::{Client, ClientError};
use api::shipments::{Brand, SHIPMENTS_PATH, ShipmentList, TRACKING_SETTINGS_PATH};
use gloo_net::http::Request;

impl Client {
    /// The session's mode's shipments, newest first, as their trackers were last read.
    pub async fn shipments(self) -> Result<ShipmentList, ClientError> {
        self.send(Request::get(SHIPMENTS_PATH)).await
    }

    /// The tracking page's brand (`None` until an admin sets one).
    pub async fn tracking_brand(self) -> Result<Option<Brand>, ClientError> {
        self.send(Request::get(TRACKING_SETTINGS_PATH)).await
    }

    /// A new brand (the ledger Worker checks it; a refusal names the field).
    pub async fn change_tracking_brand(self, brand: &Brand) -> Result<Option<Brand>, ClientError> {
        self.send_json(Request::put(TRACKING_SETTINGS_PATH), brand)
            .await
    }
}
