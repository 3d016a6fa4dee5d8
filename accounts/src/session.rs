//! The session the main Worker is to start (`wire::Started`): what every
//! way in (password, token, passkey, setup link, invitation) answers.

use api::orgs::{AccountId, OrgId};
use api::session::Role;
use domain::orgs::OrgError;
use worker::Env;
use worker::web_sys::Response;

use crate::error::AccountsError;
use domain::orgs::directory::Account;
use domain::orgs::via::Via;
use domain::orgs::wire::Started;
use domain::orgs::{Org, SignedIn};
use platform::objects::ask;
use platform::reply;

/// The session the main Worker is to start.
pub(crate) fn started(
    org: OrgId,
    account: &AccountId,
    role: Role,
    via: Via,
) -> Result<Response, AccountsError> {
    let started = Started {
        org,
        account: account.clone(),
        role,
        via,
    };
    reply::text(200, &started.encode())
}

/// The session of `account`, signed in: in the first organization that
/// still has them (the directory's list is a copy).
pub(crate) async fn signed_in_first_org(
    env: &Env,
    account: &Account,
    now: u64,
) -> Result<Response, AccountsError> {
    for org in &account.orgs {
        let call = SignedIn {
            account: account.id.clone(),
            at: now,
        };
        if let Some(m) = ask::<Org, _>(env, org.id.as_str(), call).await? {
            return started(org.id.clone(), &account.id, m.role, Via::Person);
        }
    }
    Err(OrgError::NotFound.into())
}
