//! The accounts Worker's passkey endpoints (`api::passkeys`): challenges
//! kept in the directory (random 256 bits, single use, five minutes, bound
//! to their ceremony and, for an enrolment, to the person), the checks of
//! `orgs::passkeys`, and the ES256 signature through WebCrypto. A person's
//! passkeys live in the directory shard of their account id, which is the
//! user handle a sign-in hands back.

use api::orgs::{AccountId, AuditAction};
use api::passkeys::{
    AddPasskey, Authentication, AuthenticatorSelection, CHALLENGE_SECONDS, CreateOptionsRequest,
    CreationOptions, Descriptor, ES256, KeyParameter, MAX_PASSKEYS, PROMPT_MS, PasskeyList,
    RelyingParty as Rp, RequestOptions, User,
};
use domain::errors::SettingError;
use domain::orgs::AccountError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::attempts::Attempt;
use crate::caller::member;
use crate::crypto;
use crate::error::AccountsError;
use crate::input::{MAX_BODY, invalid, name_of};
use crate::random::random_bytes;
use crate::session::signed_in_first_org;
use domain::orgs::directory::{self, Account, Directory, PasskeyRefusal, StoredPasskey};
use domain::orgs::passkeys::{
    self as checks, Ceremony, ORIGINS_SETTING, RP_ID_SETTING, Refused, RelyingParty,
};
use domain::orgs::tokens::{base64url, from_base64url};
use domain::orgs::wire::{self, Caller};
use domain::orgs::{Org, Record};
use platform::objects::ask;
use platform::{body_bytes, header, json_body, now_s, random_hex, reply};

/// A registration's `toJSON()` is about 1.5 KB; a sign-in's less.
const MAX_CREDENTIAL_BODY: usize = 16 * 1024;
const PUBLIC_KEY: &str = "public-key";
const REQUIRED: &str = "required";

fn relying_party(env: &Env) -> Result<RelyingParty, AccountsError> {
    let var = |name| env.var(name).ok().map(|v| v.to_string());
    match RelyingParty::from_settings(
        var(RP_ID_SETTING).as_deref(),
        var(ORIGINS_SETTING).as_deref(),
    ) {
        Ok(Some(rp)) => Ok(rp),
        Ok(None) => Err(SettingError {
            setting: RP_ID_SETTING,
            problem: "it is not set, so passkeys are off on this deployment".into(),
        }
        .into()),
        Err((setting, problem)) => Err(SettingError { setting, problem }.into()),
    }
}

async fn new_challenge(
    env: &Env,
    ceremony: Ceremony,
    account: Option<&AccountId>,
    now: u64,
) -> Result<String, AccountsError> {
    let challenge = base64url(&random_bytes::<32>()?);
    let call = directory::Challenge {
        challenge: challenge.clone(),
        ceremony: ceremony.as_str().into(),
        account: account.cloned(),
        expires_at: now + CHALLENGE_SECONDS,
        at: now,
    };
    ask::<Directory, _>(env, &directory::challenge_shard(&challenge), call).await?;
    Ok(challenge)
}

/// Uses up `challenge`: whether it was this ceremony's (and person's), unexpired.
async fn take_challenge(
    env: &Env,
    challenge: &str,
    ceremony: Ceremony,
    account: Option<&AccountId>,
    now: u64,
) -> Result<bool, AccountsError> {
    let call = directory::TakeChallenge {
        challenge: challenge.to_string(),
        ceremony: ceremony.as_str().into(),
        account: account.cloned(),
        at: now,
    };
    ask::<Directory, _>(env, &directory::challenge_shard(challenge), call)
        .await
        .map_err(AccountsError::from)
}

/// `POST /api/session/passkey/options`: a sign-in's challenge. A throttled
/// address gets none.
pub(super) async fn sign_in_options(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let now = now_s();
    Attempt::passkey(&req).allowed(env, now).await?;
    let rp = relying_party(env)?;
    let options = RequestOptions {
        challenge: new_challenge(env, Ceremony::Get, None, now).await?,
        rp_id: rp.id,
        timeout: PROMPT_MS,
        user_verification: REQUIRED.into(),
        allow_credentials: Vec::new(),
    };
    reply::json(200, &options, &[])
}

/// Why a sign-in did not happen: refused (the same answer for every
/// reason), or a part that did not answer.
enum Failure {
    Refused(Refused),
    Error(AccountsError),
}

impl From<Refused> for Failure {
    fn from(r: Refused) -> Failure {
        Failure::Refused(r)
    }
}

impl<E> From<E> for Failure
where
    AccountsError: From<E>,
{
    fn from(e: E) -> Failure {
        Failure::Error(e.into())
    }
}

/// §7.2 in full: the account whose passkey signed this challenge.
async fn verify(env: &Env, rp: &RelyingParty, body: &[u8], now: u64) -> Result<Account, Failure> {
    if body.len() > MAX_CREDENTIAL_BODY {
        return Err(Refused::Malformed("credential").into());
    }
    let auth: Authentication =
        serde_json::from_slice(body).map_err(|_| Refused::Malformed("credential"))?;
    let assertion = checks::check_assertion(&auth, rp)?;
    // The challenge is used up first, whatever fails after.
    if !take_challenge(env, &assertion.challenge, Ceremony::Get, None, now).await? {
        return Err(Refused::Challenge.into());
    }
    let account = std::str::from_utf8(&assertion.user_handle)
        .ok()
        .and_then(AccountId::parse)
        .ok_or(Refused::UnknownCredential)?;
    let find = directory::FindPasskey {
        account: account.clone(),
        credential_id: assertion.credential_id.clone(),
    };
    let key = ask::<Directory, _>(env, &directory::passkey_shard(&account), find)
        .await?
        .ok_or(Refused::UnknownCredential)?;
    let spki = from_base64url(&key.public_key).unwrap_or_default();
    if !crypto::verify_es256(&spki, &assertion.signature, &assertion.signed).await {
        return Err(Refused::Signature.into());
    }
    if !checks::sign_count_ok(key.sign_count, assertion.sign_count) {
        return Err(Refused::SignCount.into());
    }
    let used = directory::PasskeyUsed {
        account: account.clone(),
        credential_id: key.credential_id.clone(),
        from: key.sign_count,
        sign_count: assertion.sign_count,
        backed_up: assertion.backed_up,
        at: now,
    };
    if !ask::<Directory, _>(env, &directory::passkey_shard(&account), used).await? {
        return Err(Refused::SignCount.into());
    }
    let find = directory::Find {
        email: key.email.clone(),
    };
    match ask::<Directory, _>(env, &directory::email_shard(&key.email), find).await? {
        Some(found) if found.id == account => Ok(found),
        _ => Err(Refused::UnknownCredential.into()),
    }
}

/// `POST /api/session/passkey`: the session of the passkey's owner, in the
/// organization a password sign-in would choose, whatever wrong passwords
/// were tried for them (it lifts a lock at this address). Every refusal is
/// the same answer, logged with its reason, and counts against the client
/// address's passkey sign-ins.
pub(super) async fn sign_in(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let attempt = Attempt::passkey(&req);
    let now = now_s();
    attempt.allowed(env, now).await?;
    let rp = relying_party(env)?;
    let body = body_bytes(&req).await;
    match verify(env, &rp, &body, now).await {
        Ok(account) => {
            attempt.signed_in(env, &account, now).await?;
            signed_in_first_org(env, &account, now).await
        }
        Err(Failure::Error(e)) => Err(e),
        Err(Failure::Refused(reason)) => {
            let request_id = header(&req, wire::REQUEST_ID_HEADER).unwrap_or_default();
            worker::console_log!("{request_id} passkey sign-in refused: {reason}");
            Err(attempt
                .failed(env, now, AccountError::PasskeyRefused.into())
                .await)
        }
    }
}

async fn held(env: &Env, account: &AccountId) -> Result<Vec<StoredPasskey>, AccountsError> {
    let call = directory::Passkeys {
        account: account.clone(),
    };
    Ok(ask::<Directory, _>(env, &directory::passkey_shard(account), call).await?)
}

fn list(keys: &[StoredPasskey]) -> PasskeyList {
    PasskeyList {
        passkeys: keys.iter().map(StoredPasskey::view).collect(),
    }
}

/// A passkey added or removed is the person's, not the organization's;
/// it is written to the audit log of the organization the session names
/// (the only log there is), by the person.
async fn audit(
    env: &Env,
    caller: &Caller,
    action: AuditAction,
    name: &str,
    at: u64,
) -> Result<(), AccountsError> {
    let record = Record {
        account: caller.account.clone(),
        action,
        detail: format!(
            "“{name}” (a passkey of theirs: it signs in to each of their organizations)"
        ),
        at,
    };
    ask::<Org, _>(env, caller.org.as_str(), record)
        .await
        .map_err(AccountsError::from)
}

/// `GET /api/account/passkeys`.
pub(super) async fn passkeys(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    member(env, caller).await?;
    reply::json(200, &list(&held(env, &caller.account).await?), &[])
}

/// `POST /api/account/passkeys/options`: an enrolment's challenge, after
/// the person's password (a session cookie alone may not add a way in).
pub(super) async fn create_options(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let body: CreateOptionsRequest = json_body(&req, MAX_BODY).await?;
    let m = member(env, caller).await?;
    let rp = relying_party(env)?;
    let now = now_s();
    let account = Attempt::password(&req, &m.email)
        .verify(env, &body.password, now)
        .await?;
    if account.id != caller.account {
        return Err(AccountError::SignInFailed.into());
    }
    let keys = held(env, &caller.account).await?;
    if keys.len() >= MAX_PASSKEYS {
        return Err(AccountError::PasskeyLimit.into());
    }
    let options = CreationOptions {
        rp: Rp {
            id: rp.id,
            name: "Parcel".into(),
        },
        user: User {
            id: base64url(caller.account.as_str().as_bytes()),
            name: m.email,
            display_name: m.name,
        },
        challenge: new_challenge(env, Ceremony::Create, Some(&caller.account), now).await?,
        pub_key_cred_params: vec![KeyParameter {
            kind: PUBLIC_KEY.into(),
            alg: ES256,
        }],
        timeout: PROMPT_MS,
        exclude_credentials: keys
            .iter()
            .map(|k| Descriptor {
                kind: PUBLIC_KEY.into(),
                id: k.credential_id.clone(),
            })
            .collect(),
        authenticator_selection: AuthenticatorSelection {
            resident_key: REQUIRED.into(),
            require_resident_key: true,
            user_verification: REQUIRED.into(),
        },
        attestation: "none".into(),
    };
    reply::json(200, &options, &[])
}

/// `POST /api/account/passkeys`: §7.1 for attestation "none"; audited.
pub(super) async fn add(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let body: AddPasskey = json_body(&req, MAX_CREDENTIAL_BODY).await?;
    let name = name_of("name", &body.name)?;
    let m = member(env, caller).await?;
    let rp = relying_party(env)?;
    let now = now_s();
    let refused = |r: Refused| {
        worker::console_log!("a passkey was not added: {r}");
        invalid("credential", "the passkey did not check out; add it again")
    };
    let new = checks::check_registration(&body.credential, &rp).map_err(refused)?;
    if !take_challenge(
        env,
        &new.challenge,
        Ceremony::Create,
        Some(&caller.account),
        now,
    )
    .await?
    {
        return Err(refused(Refused::Challenge));
    }
    let passkey = StoredPasskey {
        id: format!("pk_{}", random_hex(8)?),
        credential_id: new.credential_id,
        account: caller.account.clone(),
        email: m.email,
        name: name.clone(),
        public_key: base64url(&new.public_key),
        sign_count: new.sign_count,
        backup_eligible: new.backup_eligible,
        backed_up: new.backed_up,
        created_at: now,
        last_used_at: None,
    };
    let call = directory::AddPasskey {
        passkey,
        max: MAX_PASSKEYS,
    };
    let keys = ask::<Directory, _>(env, &directory::passkey_shard(&caller.account), call)
        .await?
        .map_err(|r| match r {
            PasskeyRefusal::Limit => AccountError::PasskeyLimit.into(),
            PasskeyRefusal::Exists => invalid("credential", "this passkey is added already"),
        })?;
    audit(env, caller, AuditAction::PasskeyAdded, &name, now).await?;
    reply::json(201, &list(&keys), &[])
}

/// `DELETE /api/account/passkeys/{id}`: one of the person's own; audited.
pub(super) async fn remove(
    env: &Env,
    caller: &Caller,
    id: String,
) -> Result<Response, AccountsError> {
    member(env, caller).await?;
    let call = directory::RemovePasskey {
        account: caller.account.clone(),
        id,
    };
    let (gone, keys) = ask::<Directory, _>(env, &directory::passkey_shard(&caller.account), call)
        .await?
        .ok_or(AccountError::PasskeyNotFound)?;
    audit(
        env,
        caller,
        AuditAction::PasskeyRemoved,
        &gone.name,
        now_s(),
    )
    .await?;
    reply::json(200, &list(&keys), &[])
}
