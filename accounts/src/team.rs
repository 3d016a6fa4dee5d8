//! The team (`api::orgs`), an admin's: the members and their roles, and
//! the audit log. The directory's copy of each person's organizations is
//! kept in step with the object's members.

use api::orgs::{AccountId, MemberList, OrgId, OrgSummary, RoleChange};
use api::session::Role;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::account::joined;
use crate::caller::{admin, membership};
use crate::error::AccountsError;
use crate::input::{MAX_BODY, invalid};
use domain::orgs::directory::{self, Directory};
use domain::orgs::wire::Caller;
use domain::orgs::{Org, Remove, SetRole};
use platform::objects::ask;
use platform::{json_body, now_s, reply};

async fn members(env: &Env, org: &OrgId) -> Result<MemberList, AccountsError> {
    let members = ask::<Org, _>(env, org.as_str(), domain::orgs::Members {}).await?;
    Ok(MemberList { members })
}

/// `GET /api/org/members`.
pub(crate) async fn list(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let (org, _) = admin(caller, env, "see the team").await?;
    reply::json(200, &members(env, &org).await?, &[])
}

/// `PUT /api/org/members/{id}`.
pub(crate) async fn set_role(
    req: Request,
    env: &Env,
    caller: &Caller,
    account: AccountId,
) -> Result<Response, AccountsError> {
    change_member(env, caller, &account, Some(req)).await
}

/// `DELETE /api/org/members/{id}`.
pub(crate) async fn remove(
    env: &Env,
    caller: &Caller,
    account: AccountId,
) -> Result<Response, AccountsError> {
    change_member(env, caller, &account, None).await
}

/// Gives `account` the role a `RoleChange` body names, or without one
/// removes them.
async fn change_member(
    env: &Env,
    caller: &Caller,
    account: &AccountId,
    role_change: Option<Request>,
) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, actor) = admin(caller, env, "change the team").await?;
    let role = match role_change {
        Some(req) => Some(json_body::<RoleChange>(&req, MAX_BODY).await?.role),
        None => None,
    };
    let before = members(env, &org).await?;
    let after = match role {
        Some(role) => {
            let call = SetRole {
                actor,
                account: account.clone(),
                role,
                at: now,
            };
            ask::<Org, _>(env, org.as_str(), call).await?
        }
        None => {
            let call = Remove {
                actor,
                account: account.clone(),
                at: now,
            };
            ask::<Org, _>(env, org.as_str(), call).await?
        }
    }
    .map_err(AccountsError::from)?;
    let org_name = membership(env, caller)
        .await?
        .map(|m| m.org_name)
        .unwrap_or_default();
    mirror(env, &org, &before, account, role, org_name).await?;
    reply::json(200, &MemberList { members: after }, &[])
}

/// Keeps the directory's copy of a member's organizations in step.
async fn mirror(
    env: &Env,
    org: &OrgId,
    before: &MemberList,
    account: &AccountId,
    role: Option<Role>,
    name: String,
) -> Result<(), AccountsError> {
    let Some(member) = before.members.iter().find(|m| &m.account == account) else {
        return Ok(());
    };
    let shard = directory::email_shard(&member.email);
    match role {
        Some(role) => {
            let summary = OrgSummary {
                id: org.clone(),
                name,
                role,
            };
            joined(env, &member.email, summary).await
        }
        None => {
            let leave = directory::Leave {
                email: member.email.clone(),
                org: org.clone(),
            };
            ask::<Directory, _>(env, &shard, leave)
                .await
                .map_err(AccountsError::from)
        }
    }
}

/// `GET /api/org/audit`: a page, newest first (`?before=` an entry's seq for older).
pub(crate) async fn audit(
    env: &Env,
    caller: &Caller,
    query: Option<&str>,
) -> Result<Response, AccountsError> {
    let (org, _) = admin(caller, env, "read the audit log").await?;
    let before = domain::routes::query_param(query, "before")
        .map(|b| {
            b.parse::<u64>()
                .map_err(|_| invalid("before", "an entry's seq"))
        })
        .transpose()?;
    let page = ask::<Org, _>(env, org.as_str(), domain::orgs::Audit { before }).await?;
    reply::json(200, &page, &[])
}
