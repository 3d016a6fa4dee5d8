use serde::{Deserialize, Serialize};

/// A full postal address (part 2). `street2`, `phone` and `email` are not
/// shown in the interface; we accept them as optional because carriers print
/// them and merchants expect them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address {
    pub name: String,
    pub street1: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub zip: String,
    pub country: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

impl Address {
    /// The first of the six required fields (part 2) that is empty or only
    /// spaces, by its JSON name, in the interface's order.
    pub fn first_blank_field(&self) -> Option<&'static str> {
        [
            ("name", &self.name),
            ("street1", &self.street1),
            ("city", &self.city),
            ("state", &self.state),
            ("zip", &self.zip),
            ("country", &self.country),
        ]
        .into_iter()
        .find(|(_, value)| value.trim().is_empty())
        .map(|(name, _)| name)
    }
}

/// Response of `POST /v1/addresses/validate` (field names are our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressValidation {
    /// Always true in a 200; failures are errors.
    pub valid: bool,
    /// Whether the carrier networks classify the address as residential
    /// (residential delivery carries a surcharge).
    pub residential: bool,
    /// The address as the carriers would print it (normalised case, ZIP+4 where known).
    pub normalized: Address,
}
