//! The caller the main Worker names (`wire::Caller`), as their
//! organization's object says now: a membership the session named may have
//! ended since, and a role may have changed.

use api::orgs::OrgId;
use api::session::Role;
use domain::access::AccessError;
use worker::Env;

use crate::error::AccountsError;
use domain::access::SignInReason;
use domain::orgs::wire::Caller;
use domain::orgs::{Actor, Check, Membership, Org};
use platform::objects::ask;

/// The caller's membership, as their organization's object says now.
pub(crate) async fn membership(
    env: &Env,
    caller: &Caller,
) -> Result<Option<Membership>, AccountsError> {
    let check = Check {
        account: caller.account.clone(),
    };
    Ok(ask::<Org, _>(env, caller.org.as_str(), check).await?)
}

/// The caller's membership; a session whose membership ended must sign in again.
pub(crate) async fn member(env: &Env, caller: &Caller) -> Result<Membership, AccountsError> {
    membership(env, caller)
        .await?
        .ok_or(AccessError::SignInRequired(SignInReason::SessionEnded).into())
}

/// The caller, if an admin of their organization now, and who they are.
pub(crate) async fn admin(
    caller: &Caller,
    env: &Env,
    action: &'static str,
) -> Result<(OrgId, Actor), AccountsError> {
    let m = member(env, caller).await?;
    if m.role != Role::Admin {
        return Err(AccessError::AdminOnly { action }.into());
    }
    Ok((caller.org.clone(), m.actor(&caller.account)))
}
