use serde::{Deserialize, Serialize};

use crate::validation::BodyError;

/// What is wrong with one input field, for forms and for errors alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldProblem {
    /// Empty or only spaces.
    Missing,
    /// Present but not acceptable, and why ("must be …").
    Invalid(&'static str),
}

impl FieldProblem {
    /// The `VALIDATION.FIELD.*` error for the field at `path`.
    pub fn to_body_error(self, path: String) -> BodyError {
        match self {
            FieldProblem::Missing => BodyError::Required { field: path },
            FieldProblem::Invalid(reason) => BodyError::Invalid {
                field: path,
                reason: reason.to_string(),
            },
        }
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

fn two_letters(code: &str) -> bool {
    code.len() == 2 && code.bytes().all(|b| b.is_ascii_alphabetic())
}

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

    /// Every field problem, in the interface's field order: the six
    /// required fields, then the codes our simulator and carriers need: a
    /// two-letter country (ISO 3166-1 alpha-2) and, in the US, a two-letter state.
    pub fn problems(&self) -> Vec<(&'static str, FieldProblem)> {
        let mut problems: Vec<(&'static str, FieldProblem)> = [
            ("name", &self.name),
            ("street1", &self.street1),
            ("city", &self.city),
            ("state", &self.state),
            ("zip", &self.zip),
            ("country", &self.country),
        ]
        .into_iter()
        .filter(|(_, value)| value.trim().is_empty())
        .map(|(name, _)| (name, FieldProblem::Missing))
        .collect();
        let country = self.country.trim();
        if !country.is_empty() && !two_letters(country) {
            problems.push((
                "country",
                FieldProblem::Invalid("must be a two-letter country code such as US"),
            ));
        }
        let state = self.state.trim();
        if country.eq_ignore_ascii_case("US") && !state.is_empty() && !two_letters(state) {
            problems.push((
                "state",
                FieldProblem::Invalid("must be a two-letter state code such as CA"),
            ));
        }
        problems.sort_by_key(|(field, _)| FIELD_ORDER.iter().position(|f| f == field));
        problems
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

/// The order the interface lists an address's fields in.
const FIELD_ORDER: [&str; 6] = ["name", "street1", "city", "state", "zip", "country"];

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
                (
                    "country",
                    FieldProblem::Invalid("must be a two-letter country code such as US")
                ),
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
    fn two_letter_codes() {
        let usa = Address {
            country: "USA".into(),
            ..address()
        };
        assert_eq!(
            usa.check(""),
            Err(BodyError::Invalid {
                field: "country".into(),
                reason: "must be a two-letter country code such as US".into()
            })
        );
        let state = Address {
            state: "Ill".into(),
            ..address()
        };
        assert_eq!(
            state.check("to_address").unwrap_err().field(),
            "to_address.state"
        );
        // Outside the US a region may be longer (e.g. a Canadian "ON" or a UK county).
        let uk = Address {
            state: "Kent".into(),
            country: "GB".into(),
            ..address()
        };
        assert!(uk.problems().is_empty());
    }
}
