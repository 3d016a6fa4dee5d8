//! Checks of what people type, shared by the endpoints: the body limit,
//! emails, display names and new passwords, each refused in the v1
//! envelope naming its field.

use crate::error::AccountsError;
use api::orgs::{normalize_email, password_problem};
use api::validation::BodyError;
use domain::errors::BadBody;
use domain::orgs::AccountError;

/// The largest JSON body an endpoint reads (a passkey's credential has its own).
pub(crate) const MAX_BODY: usize = 4096;

pub(crate) fn invalid(field: &str, reason: impl Into<String>) -> AccountsError {
    BadBody::Invalid(BodyError::Invalid {
        field: field.to_string(),
        reason: reason.into(),
    })
    .into()
}

pub(crate) fn email_of(raw: &str) -> Result<String, AccountsError> {
    normalize_email(raw).ok_or_else(|| invalid("email", "an email address such as ada@example.com"))
}

/// A display name: trimmed, 1 to 100 characters, no control characters.
pub(crate) fn name_of(field: &str, raw: &str) -> Result<String, AccountsError> {
    let name = raw.trim();
    let ok = (1..=100).contains(&name.chars().count()) && !name.chars().any(char::is_control);
    ok.then(|| name.to_string())
        .ok_or_else(|| invalid(field, "1 to 100 characters"))
}

pub(crate) fn new_password(password: &str) -> Result<(), AccountsError> {
    match password_problem(password) {
        Some(problem) => Err(AccountError::PasswordWeak(problem).into()),
        None => Ok(()),
    }
}
