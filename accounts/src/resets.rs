//! Password reset links (`api::orgs`): an admin makes one for a member
//! who forgot their password (no e-mail is sent: the admin hands it on);
//! whoever holds it previews it and sets a new password, once, within a
//! day, and is signed in. Only the token's hash is stored. The password is
//! the account's, so an account another organization shares is refused,
//! when the link is made and again when it is used (`rules::may_reset`).

use api::orgs::{AccountId, OrgId, ResetCreated, ResetPreview, ResetToken, UseReset as UseBody};
use domain::orgs::directory::{self, Directory, Find, SetPassword};
use domain::orgs::via::Via;
use domain::orgs::wire::Caller;
use domain::orgs::{
    AccountError, CreateReset, Org, OrgError, PreviewReset, Refusal, SignedIn, UseReset, rules,
    tokens,
};
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::account::hash_new;
use crate::caller::admin;
use crate::error::AccountsError;
use crate::input::{MAX_BODY, new_password};
use crate::random::random_bytes;
use crate::session::started;
use platform::objects::ask;
use platform::{json_body, now_s, reply};

fn reset_of(token: &str) -> Result<(OrgId, String), AccountsError> {
    tokens::read_reset(token).ok_or(AccountError::ResetUnknown.into())
}

/// Whether `member` (by `email`) may have their password reset by an
/// admin of `org` (`admin`: when the link is made), as the directory says
/// now. An account the directory does not know is refused as one of
/// another organization: nothing is changed on a guess.
async fn check_account(
    env: &Env,
    org: &OrgId,
    admin: Option<&AccountId>,
    member: &AccountId,
    email: &str,
) -> Result<(), AccountsError> {
    let find = Find {
        email: email.to_string(),
    };
    let account = ask::<Directory, _>(env, &directory::email_shard(email), find)
        .await?
        .filter(|a| &a.id == member)
        .ok_or(AccountError::ResetOtherOrg)?;
    let orgs: Vec<OrgId> = account.orgs.into_iter().map(|o| o.id).collect();
    rules::may_reset(org, admin, member, &orgs).map_err(AccountsError::from)
}

/// `POST /api/org/members/{id}/reset`: the token is in this answer only.
pub(crate) async fn create(
    env: &Env,
    caller: &Caller,
    account: AccountId,
) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, actor) = admin(caller, env, "make password reset links").await?;
    if account == caller.account {
        return Err(AccountError::ResetSelf.into());
    }
    let members = ask::<Org, _>(env, org.as_str(), domain::orgs::Members {}).await?;
    let member = members
        .into_iter()
        .find(|m| m.account == account)
        .ok_or(AccountError::MemberNotFound)?;
    check_account(env, &org, Some(&caller.account), &account, &member.email).await?;
    let secret = random_bytes::<{ tokens::INVITE_SECRET_BYTES }>()?;
    let token = tokens::reset_token(&org, &secret).ok_or(OrgError::ManagedBySettings)?;
    let expires_at = rules::reset_expires_at(now);
    let call = CreateReset {
        actor,
        account: account.clone(),
        token_hash: tokens::token_hash(&token),
        expires_at,
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), call)
        .await?
        .map_err(AccountsError::from)?;
    let created = ResetCreated {
        member: account,
        expires_at,
        token,
    };
    reply::json(201, &created, &[])
}

/// `POST /api/resets/preview`: whose password, in which organization.
pub(crate) async fn preview(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body: ResetToken = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = reset_of(&body.token)?;
    let call = PreviewReset {
        token_hash,
        at: now_s(),
    };
    let found = ask::<Org, _>(env, org.as_str(), call)
        .await?
        .map_err(AccountsError::from)?;
    let preview = ResetPreview {
        org_name: found.org_name,
        name: found.name,
        email: found.email,
        expires_at: found.expires_at,
    };
    reply::json(200, &preview, &[])
}

/// `POST /api/resets/use`: the new password set, the session of its person.
pub(crate) async fn use_link(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let body: UseBody = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = reset_of(&body.token)?;
    let now = now_s();
    new_password(&body.password)?;
    // Refusals come before the link is used up or a password hashed.
    let preview = PreviewReset {
        token_hash: token_hash.clone(),
        at: now,
    };
    let found = ask::<Org, _>(env, org.as_str(), preview)
        .await?
        .map_err(AccountsError::from)?;
    check_account(env, &org, None, &found.account, &found.email).await?;
    let password = hash_new(&body.password).await?;
    let found = ask::<Org, _>(
        env,
        org.as_str(),
        UseReset {
            token_hash,
            at: now,
        },
    )
    .await?
    .map_err(AccountsError::from)?;
    let set = SetPassword {
        email: found.email.clone(),
        account: found.account.clone(),
        password,
    };
    let shard = directory::email_shard(&found.email);
    if !ask::<Directory, _>(env, &shard, set).await? {
        return Err(AccountError::from(Refusal::ResetUnknown).into());
    }
    let signed = SignedIn {
        account: found.account.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), signed).await?;
    started(org, &found.account, found.role, Via::Person)
}
