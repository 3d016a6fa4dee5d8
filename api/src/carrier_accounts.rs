use serde::{Deserialize, Serialize};

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CarrierAccountStatus {
        Active = "active",
        /// The carrier rejected the stored credentials; its rates are not offered.
        InvalidCredentials = "invalid_credentials",
    }
}

/// A connected BYOA carrier account (fields are our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarrierAccount {
    pub id: String,
    pub carrier: String,
    pub description: String,
    pub status: CarrierAccountStatus,
    pub created_at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarrierAccountList {
    pub carrier_accounts: Vec<CarrierAccount>,
}
