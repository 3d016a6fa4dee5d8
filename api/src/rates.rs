use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::error::ApiError;
use crate::parcel::Parcel;
use crate::validation::BodyError;

/// How long a quoted rate can be bought (part 2).
pub const RATE_VALIDITY_SECONDS: u64 = 15 * 60;

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum AccountType {
        Platform = "platform",
        Byoa = "byoa",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    pub id: String,
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
    /// YYYY-MM-DD
    pub carrier_eta: String,
    pub carbon_grams: i64,
    pub account_type: AccountType,
    /// Our addition: when the rate stops being buyable (unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatesRequest {
    pub from_address: Address,
    pub to_address: Address,
    pub parcel: Parcel,
}

impl RatesRequest {
    /// The rules serde cannot express (`Address::check`, `Parcel::check`),
    /// first problem first: what the simulator and the Worker both apply.
    pub fn check(&self) -> Result<(), BodyError> {
        self.from_address.check("from_address")?;
        self.to_address.check("to_address")?;
        self.parcel.check("parcel")
    }
}

/// `POST /v1/rates`: 200 with every carrier's rates, cheapest first. When a
/// carrier is down the status is 503 and the body holds both the error
/// (`RATE.CARRIER.UNAVAILABLE`, with `unavailable_carriers`) and the other
/// carriers' rates: `{"error": {...}, "rates": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatesResponse {
    pub rates: Vec<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}
