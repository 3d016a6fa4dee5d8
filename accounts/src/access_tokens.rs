//! Personal access tokens (`api::access_tokens`): a member makes, lists
//! and revokes their own; an admin sees and revokes everyone's. Only a
//! token's hash is stored; the token is in its creation's answer only.

use api::access_tokens::{TokenCreated, TokenList, TokenRequest};
use api::orgs::AccountId;
use api::session::Role;
use domain::access::AccessError;
use domain::orgs::OrgError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::member;
use crate::error::AccountsError;
use crate::input::{MAX_BODY, invalid, name_of};
use crate::random::random_bytes;
use domain::access::SignInReason;
use domain::orgs::wire::Caller;
use domain::orgs::{Actor, CreateToken, Org, RevokeToken, Tokens, rules, tokens};
use platform::objects::ask;
use platform::{json_body, now_s, random_hex, reply};

/// Whose tokens the caller sees (`None`: an admin, everyone's), and who they are.
async fn holder(env: &Env, caller: &Caller) -> Result<(Option<AccountId>, Actor), AccountsError> {
    let m = member(env, caller).await?;
    let owner = (m.role != Role::Admin).then(|| caller.account.clone());
    Ok((owner, m.actor(&caller.account)))
}

/// `GET /api/org/tokens`.
pub(crate) async fn list(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let (owner, _) = holder(env, caller).await?;
    let tokens = ask::<Org, _>(env, caller.org.as_str(), Tokens { owner }).await?;
    reply::json(200, &TokenList { tokens }, &[])
}

/// `POST /api/org/tokens`: always the caller's own.
pub(crate) async fn create(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let (_, actor) = holder(env, caller).await?;
    let now = now_s();
    let body: TokenRequest = json_body(&req, MAX_BODY).await?;
    let name = name_of("name", &body.name)?;
    let days = rules::token_days(body.expires_in_days)
        .map_err(|reason| invalid("expires_in_days", reason))?;
    let secret = random_bytes::<{ tokens::INVITE_SECRET_BYTES }>()?;
    let token = tokens::access_token(&caller.org, &secret).ok_or(OrgError::ManagedBySettings)?;
    let call = CreateToken {
        actor,
        account: caller.account.clone(),
        id: format!("tok_{}", random_hex(8)?),
        token_hash: tokens::token_hash(&token),
        name,
        last_four: token
            .get(token.len().saturating_sub(4)..)
            .unwrap_or_default()
            .to_string(),
        expires_at: now + u64::from(days) * 86_400,
        at: now,
    };
    let info = ask::<Org, _>(env, caller.org.as_str(), call)
        .await?
        .ok_or(AccessError::SignInRequired(SignInReason::SessionEnded))?;
    reply::json(201, &TokenCreated { info, token }, &[])
}

/// `DELETE /api/org/tokens/{id}`.
pub(crate) async fn revoke(
    env: &Env,
    caller: &Caller,
    id: String,
) -> Result<Response, AccountsError> {
    let (owner, actor) = holder(env, caller).await?;
    let call = RevokeToken {
        actor,
        owner,
        id,
        at: now_s(),
    };
    let tokens = ask::<Org, _>(env, caller.org.as_str(), call)
        .await?
        .map_err(AccountsError::from)?;
    reply::json(200, &TokenList { tokens }, &[])
}
