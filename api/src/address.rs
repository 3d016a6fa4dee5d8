use serde::{Deserialize, Serialize};

use crate::places;
use crate::validation::BodyError;

/// What is wrong with one input field, for forms and for errors alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldProblem {
    /// Empty or only spaces.
    Missing,
    /// Present but not acceptable, and why ("must be …").
    Invalid(&'static str),
    /// Longer than `max` characters.
    TooLong { max: usize },
}

impl FieldProblem {
    /// Why the value is refused ("must be …").
    pub fn reason(self) -> String {
        match self {
            FieldProblem::Missing => "must not be empty".into(),
            FieldProblem::Invalid(reason) => reason.into(),
            FieldProblem::TooLong { max } => format!("must be at most {max} characters"),
        }
    }

    /// The `VALIDATION.FIELD.*` error for the field at `path`.
    pub fn to_body_error(self, path: String) -> BodyError {
        match self {
            FieldProblem::Missing => BodyError::Required { field: path },
            problem => BodyError::Invalid {
                field: path,
                reason: problem.reason(),
            },
        }
    }

    /// `TooLong` when `text` has more than `max` characters.
    pub fn length(text: &str, max: usize) -> Option<FieldProblem> {
        // Counting stops past the limit: a 3 MiB value costs no more than a short one.
        (text.chars().nth(max).is_some()).then_some(FieldProblem::TooLong { max })
    }
}

/// `prefix.field`, or `field` when there is no prefix.
pub fn field_path(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_string()
    } else {
        format!("{prefix}.{field}")
    }
}

/// An address's text fields in the interface's order (the six it shows,
/// then ours), whether each is required, and its longest accepted value
/// in characters. Carriers print less (UPS and FedEx 35 characters a
/// street line, Amazon 60, An Post 75; DHL's name 35) and the service
/// fits each to its carrier, splitting a long street over two lines where
/// the carrier has them; these bounds keep every real address (Shopify
/// and WooCommerce take 255 a line, which no street needs) and refuse only
/// what no address is: a pasted document, a megabyte in one cell. Email:
/// RFC 5321's 254; phone: 15 digits of E.164 with spaces, signs and an
/// extension.
pub const FIELDS: [(&str, bool, usize); 9] = [
    ("name", true, 100),
    ("street1", true, 100),
    ("street2", false, 100),
    ("city", true, 100),
    ("state", true, 100),
    ("zip", true, 20),
    ("country", true, 2),
    ("phone", false, 40),
    ("email", false, 254),
];

/// The longest accepted value of an address field (its JSON name).
pub fn max_chars(field: &str) -> Option<usize> {
    FIELDS.iter().find(|f| f.0 == field).map(|f| f.2)
}

const COUNTRY_REASON: &str = "must be a two-letter country code (ISO 3166-1) such as US";
const US_STATE_REASON: &str = "must be a two-letter US state or territory code such as CA";
const CA_PROVINCE_REASON: &str =
    "must be a two-letter Canadian province or territory code such as ON";

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
        FIELDS
            .iter()
            .find(|&&(field, required, _)| required && self.value(field).trim().is_empty())
            .map(|f| f.0)
    }

    fn value(&self, field: &str) -> &str {
        match field {
            "name" => &self.name,
            "street1" => &self.street1,
            "street2" => self.street2.as_deref().unwrap_or_default(),
            "city" => &self.city,
            "state" => &self.state,
            "zip" => &self.zip,
            "country" => &self.country,
            "phone" => self.phone.as_deref().unwrap_or_default(),
            _ => self.email.as_deref().unwrap_or_default(),
        }
    }

    /// Every field problem, at most one a field, in [`FIELDS`] order: the
    /// required fields, each field's length, a country code that exists
    /// (ISO 3166-1 alpha-2) and, in the US and Canada, a state or province
    /// code of that country (`api::places`). Other countries' regions are
    /// free text.
    pub fn problems(&self) -> Vec<(&'static str, FieldProblem)> {
        FIELDS
            .iter()
            .filter_map(|&(field, required, max)| {
                let value = self.value(field);
                let problem = if value.trim().is_empty() {
                    required.then_some(FieldProblem::Missing)
                } else if field == "country" {
                    (!places::is_country(value.trim()))
                        .then_some(FieldProblem::Invalid(COUNTRY_REASON))
                } else if let Some(long) = FieldProblem::length(value, max) {
                    Some(long)
                } else if field == "state" {
                    let country = self.country.trim();
                    match places::is_region(country, value) {
                        Some(false) if country.eq_ignore_ascii_case("CA") => {
                            Some(FieldProblem::Invalid(CA_PROVINCE_REASON))
                        }
                        Some(false) => Some(FieldProblem::Invalid(US_STATE_REASON)),
                        _ => None,
                    }
                } else {
                    None
                };
                problem.map(|p| (field, p))
            })
            .collect()
    }

    /// The first problem as the v1 validation error, its field under `prefix`
    /// (`to_address.zip`); what the simulator and the Worker both apply.
    pub fn check(&self, prefix: &str) -> Result<(), BodyError> {
        match self.problems().into_iter().next() {
            Some((field, problem)) => Err(problem.to_body_error(field_path(prefix, field))),
            None => Ok(()),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn address() -> Address {
        Address {
            name: "Ada".into(),
            street1: "1 Main St".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    #[test]
    fn a_full_us_address_has_no_problem() {
        assert!(address().problems().is_empty());
        assert_eq!(address().check("to_address"), Ok(()));
    }

    #[test]
    fn every_problem_at_once_in_field_order() {
        let a = Address {
            name: " ".into(),
            state: "Illinois".into(),
            zip: "".into(),
            country: "USA".into(),
            ..address()
        };
        assert_eq!(
            a.problems(),
            vec![
                ("name", FieldProblem::Missing),
                ("zip", FieldProblem::Missing),
                ("country", FieldProblem::Invalid(COUNTRY_REASON)),
            ]
        );
        assert_eq!(
            a.check("from_address"),
            Err(BodyError::Required {
                field: "from_address.name".into()
            })
        );
    }

    #[test]
    fn codes_that_exist() {
        let usa = Address {
            country: "USA".into(),
            ..address()
        };
        assert_eq!(
            usa.check(""),
            Err(BodyError::Invalid {
                field: "country".into(),
                reason: "must be a two-letter country code (ISO 3166-1) such as US".into()
            })
        );
        let uk = Address {
            country: "UK".into(),
            ..address()
        };
        assert_eq!(
            uk.check("").unwrap_err().field(),
            "country",
            "UK is not assigned: GB is"
        );
        for state in ["Ill", "ZZ", "ON", "Illinois"] {
            let a = Address {
                state: state.into(),
                ..address()
            };
            assert_eq!(
                a.problems(),
                [("state", FieldProblem::Invalid(US_STATE_REASON))],
                "{state}"
            );
        }
        let lower = Address {
            state: "il".into(),
            country: "us".into(),
            ..address()
        };
        assert!(lower.problems().is_empty(), "codes in any case");
        let canada = |state: &str| Address {
            state: state.into(),
            zip: "M5V 2T6".into(),
            country: "CA".into(),
            ..address()
        };
        assert!(canada("ON").problems().is_empty());
        assert_eq!(
            canada("Ontario").check("to_address"),
            Err(BodyError::Invalid {
                field: "to_address.state".into(),
                reason: "must be a two-letter Canadian province or territory code such as ON"
                    .into()
            })
        );
        // Other countries' regions are free text (a UK county, a Swiss canton).
        let kent = Address {
            state: "Kent".into(),
            country: "GB".into(),
            ..address()
        };
        assert!(kent.problems().is_empty());
    }

    #[test]
    fn every_text_field_has_a_length_limit_naming_it() {
        let long = |n: usize| "x".repeat(n);
        let at_limit = Address {
            name: long(100),
            street1: long(100),
            street2: Some(long(100)),
            city: long(100),
            zip: long(20),
            phone: Some(long(40)),
            email: Some(long(254)),
            ..address()
        };
        assert!(at_limit.problems().is_empty());
        let over = Address {
            name: long(101),
            street2: Some(long(2_621_440)),
            zip: "1".repeat(21),
            email: Some(long(255)),
            ..address()
        };
        assert_eq!(
            over.problems(),
            [
                ("name", FieldProblem::TooLong { max: 100 }),
                ("street2", FieldProblem::TooLong { max: 100 }),
                ("zip", FieldProblem::TooLong { max: 20 }),
                ("email", FieldProblem::TooLong { max: 254 }),
            ]
        );
        assert_eq!(
            over.check("rows[3].to_address").unwrap_err().message(),
            "The field rows[3].to_address.name is invalid: must be at most 100 characters."
        );
        // Characters, not bytes: 100 accented letters are 200 bytes.
        let accents = Address {
            name: "é".repeat(100),
            ..address()
        };
        assert!(accents.problems().is_empty());
        let state = Address {
            state: long(101),
            country: "GB".into(),
            ..address()
        };
        assert_eq!(
            state.problems(),
            [("state", FieldProblem::TooLong { max: 100 })]
        );
        assert_eq!(max_chars("street1"), Some(100));
    }
}
