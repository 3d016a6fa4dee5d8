//! Signing in (`api::orgs`): by password, by personal access token (the
//! main Worker's `wire::TOKEN_URL`), and switching to another of one's
//! organizations. Passkeys sign in through `passkeys`.

use api::orgs::{PasswordSignIn, SwitchOrg, normalize_email};
use domain::access::AccessError;
use domain::orgs::AccountError;
use domain::orgs::OrgError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::attempts::Attempt;
use crate::error::AccountsError;
use crate::input::MAX_BODY;
use crate::session::{signed_in_first_org, started};
use domain::orgs::via::Via;
use domain::orgs::wire::Caller;
use domain::orgs::{Org, SignedIn, UseToken, tokens};
use platform::objects::ask;
use platform::{json_body, now_s};

/// `POST /api/session/password`: the session of the account whose password this is.
pub(crate) async fn password(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body: PasswordSignIn = json_body(&req, MAX_BODY).await?;
    let email = normalize_email(&body.email).ok_or(AccountError::SignInFailed)?;
    let now = now_s();
    let account = Attempt::password(&req, &email)
        .verify(env, &body.password, now)
        .await?;
    signed_in_first_org(env, &account, now).await
}

/// Sign-in with a personal access token (`wire::TOKEN_URL`): the session
/// of its owner, with their role now. Every refusal is the same as an
/// unknown token's, and counts against the client address like a wrong password.
pub(crate) async fn token(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body = platform::request::body_bytes(&req).await;
    let token = std::str::from_utf8(&body).unwrap_or_default().trim();
    let attempt = Attempt::token(&req);
    let now = now_s();
    attempt.allowed(env, now).await?;
    if let Some((org, token_hash)) = tokens::read_access_token(token) {
        let call = UseToken {
            token_hash,
            at: now,
        };
        if let Some((account, role)) = ask::<Org, _>(env, org.as_str(), call).await? {
            return started(org, &account, role, Via::Token);
        }
    }
    Err(attempt
        .failed(env, now, AccessError::InvalidToken.into())
        .await)
}

/// Another of the caller's organizations, if they are a member of it and
/// the session reaches it (`via`: a token's stays in its organization,
/// answered as any organization they are not in).
pub(crate) async fn switch_org(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let body: SwitchOrg = json_body(&req, MAX_BODY).await?;
    if !caller.via.reaches(&caller.org, &body.org) {
        return Err(OrgError::NotFound.into());
    }
    let call = SignedIn {
        account: caller.account.clone(),
        at: now_s(),
    };
    let m = ask::<Org, _>(env, body.org.as_str(), call)
        .await?
        .ok_or(OrgError::NotFound)?;
    started(body.org, &caller.account, m.role, caller.via)
}
