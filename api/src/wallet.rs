use serde::{Deserialize, Serialize};

/// The card on file that auto-reload charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardState {
    Ok,
    Declined,
    Missing,
}

/// When the balance cannot cover a purchase, the card is charged `amount_cents`
/// (repeatedly if needed) so that the balance stays above `threshold_cents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoReload {
    pub threshold_cents: i64,
    pub amount_cents: i64,
}

/// `GET /v1/wallet` (field names are our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wallet {
    pub balance_cents: i64,
    pub currency: String,
    /// True for a sandbox key: nothing is charged.
    pub sandbox: bool,
    /// True when the wallet never runs out (sandbox).
    pub unlimited: bool,
    #[serde(default)]
    pub auto_reload: Option<AutoReload>,
    pub card: CardState,
}
