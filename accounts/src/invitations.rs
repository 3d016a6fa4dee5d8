//! Invitations (`api::orgs`): an admin makes, lists and withdraws them;
//! anyone holding one previews it and accepts it, joining with a new
//! account or an existing one (its password proves it theirs). Only the
//! token's hash is stored.

use api::orgs::{
    AcceptInvite as AcceptBody, InviteCreated, InviteList, InviteRequest, InviteToken, OrgId,
    OrgSummary,
};
use domain::orgs::AccountError;
use domain::orgs::OrgError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::account::{account_for, joined};
use crate::caller::admin;
use crate::error::AccountsError;
use crate::input::{MAX_BODY, email_of, invalid, name_of};
use crate::random::random_bytes;
use crate::session::started;
use domain::orgs::via::Via;
use domain::orgs::wire::Caller;
use domain::orgs::{CreateInvite, Joining, Org, RevokeInvite, SignedIn, rules, tokens};
use platform::objects::ask;
use platform::{json_body, now_s, random_hex, reply};

fn invite_of(token: &str) -> Result<(OrgId, String), AccountsError> {
    tokens::read_invite(token).ok_or(AccountError::InviteUnknown.into())
}

/// `GET /api/org/invites`.
pub(crate) async fn list(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, _) = admin(caller, env, "see the invitations").await?;
    let invites = ask::<Org, _>(env, org.as_str(), domain::orgs::Invites { at: now }).await?;
    reply::json(200, &InviteList { invites }, &[])
}

/// `POST /api/org/invites`: the token is in this answer only.
pub(crate) async fn create(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, actor) = admin(caller, env, "invite people").await?;
    let body: InviteRequest = json_body(&req, MAX_BODY).await?;
    let days = rules::invite_days(body.expires_in_days)
        .map_err(|reason| invalid("expires_in_days", reason))?;
    let secret = random_bytes::<{ tokens::INVITE_SECRET_BYTES }>()?;
    let token = tokens::invite_token(&org, &secret).ok_or(OrgError::ManagedBySettings)?;
    let call = CreateInvite {
        actor,
        id: format!("inv_{}", random_hex(6)?),
        token_hash: tokens::token_hash(&token),
        role: body.role,
        expires_at: now + u64::from(days) * 86_400,
        at: now,
    };
    let invite = ask::<Org, _>(env, org.as_str(), call).await?;
    reply::json(201, &InviteCreated { invite, token }, &[])
}

/// `DELETE /api/org/invites/{id}`.
pub(crate) async fn revoke(
    env: &Env,
    caller: &Caller,
    id: String,
) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, actor) = admin(caller, env, "withdraw invitations").await?;
    let call = RevokeInvite { actor, id, at: now };
    let invites = ask::<Org, _>(env, org.as_str(), call)
        .await?
        .map_err(AccountsError::from)?;
    reply::json(200, &InviteList { invites }, &[])
}

/// `POST /api/invites/preview`: which organization, as what, from whom.
pub(crate) async fn preview(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body: InviteToken = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = invite_of(&body.token)?;
    let call = domain::orgs::PreviewInvite {
        token_hash,
        at: now_s(),
    };
    let preview = ask::<Org, _>(env, org.as_str(), call)
        .await?
        .map_err(AccountsError::from)?;
    reply::json(200, &preview, &[])
}

/// `POST /api/invites/accept`: the session of the person who joined.
pub(crate) async fn accept(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body: AcceptBody = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = invite_of(&body.token)?;
    let now = now_s();
    let email = email_of(&body.email)?;
    let name = match body
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        Some(name) => name_of("name", name)?,
        None => email.split('@').next().unwrap_or_default().to_string(),
    };
    // Refusals of the invitation come before an account is made for nothing.
    let preview = domain::orgs::PreviewInvite {
        token_hash: token_hash.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), preview)
        .await?
        .map_err(AccountsError::from)?;
    let account = account_for(&req, env, &email, &name, &body.password, now).await?;
    let accept = domain::orgs::AcceptInvite {
        token_hash,
        person: Joining {
            account: account.id.clone(),
            name: account.name.clone(),
            email: email.clone(),
        },
        at: now,
    };
    let accepted = ask::<Org, _>(env, org.as_str(), accept)
        .await?
        .map_err(AccountsError::from)?;
    let summary = OrgSummary {
        id: org.clone(),
        name: accepted.org_name,
        role: accepted.role,
    };
    joined(env, &email, summary).await?;
    let signed = SignedIn {
        account: account.id.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), signed).await?;
    started(org, &account.id, accepted.role, Via::Person)
}
