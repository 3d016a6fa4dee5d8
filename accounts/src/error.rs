//! The accounts Worker's one error: each feature's, as made, answered in
//! the v1 envelope with the main Worker's request id (`endpoints::fetch`).

use domain::access::AccessError;
use domain::errors::{BadBody, Internal, RouteError, SettingError};
use domain::orgs::{AccountError, OrgError, Refusal};
use domain::upstream::UpstreamError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountsError {
    Account(AccountError),
    Org(OrgError),
    Access(AccessError),
    Route(RouteError),
    Body(BadBody),
    Setting(SettingError),
    Internal(Internal),
    Upstream(UpstreamError),
}

domain::failures!(AccountsError {
    Account(AccountError),
    Org(OrgError),
    Access(AccessError),
    Route(RouteError),
    Body(BadBody),
    Setting(SettingError),
    Internal(Internal),
    Upstream(UpstreamError),
});

impl From<Refusal> for AccountsError {
    fn from(r: Refusal) -> AccountsError {
        AccountsError::Account(r.into())
    }
}
