//! The shipments the ledger Worker follows, the tracking page's brand and
//! the shop's tracking events (`api::shipments`).

use super::{Client, ClientError};
use api::shipments::{
    Brand, EventSettings, RESEND_EVENT_PATH, SHIPMENTS_PATH, ShipmentList, ShopEvents,
    TRACKING_EVENTS_PATH, TRACKING_SETTINGS_PATH,
};
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

    /// The shop's events: their URL and the newest deliveries (admins).
    pub async fn shop_events(self) -> Result<ShopEvents, ClientError> {
        self.send(Request::get(TRACKING_EVENTS_PATH)).await
    }

    /// New settings; the answer has the signing secret when one was made.
    pub async fn change_shop_events(
        self,
        settings: &EventSettings,
    ) -> Result<ShopEvents, ClientError> {
        self.send_json(Request::put(TRACKING_EVENTS_PATH), settings)
            .await
    }

    /// One delivery sent again now; the deliveries as they then stand.
    pub async fn resend_event(self, id: &str) -> Result<ShopEvents, ClientError> {
        self.send(Request::post(&RESEND_EVENT_PATH.replace("{id}", id)))
            .await
    }
}
