//! People's accounts in the directory: found, or made with their password
//! hashed, when someone signs up or accepts an invitation; and the
//! directory's copy of the organizations each belongs to.

use api::orgs::{AccountId, OrgSummary};
use domain::errors::Internal;
use worker::Env;
use worker::web_sys::Request;

use crate::attempts::Attempt;
use crate::crypto;
use crate::error::AccountsError;
use crate::input::new_password;
use crate::random::random_bytes;
use domain::orgs::directory::{self, Account, Directory};
use domain::orgs::passwords;
use platform::objects::ask;
use platform::random_hex;

/// A new password's record, at today's cost.
pub(crate) async fn hash_new(password: &str) -> Result<String, AccountsError> {
    let salt = random_bytes::<{ passwords::SALT_BYTES }>()?.to_vec();
    let mut record = passwords::dummy(salt);
    let derived = crypto::derive(password, &record).await?;
    record.hash = derived.try_into().map_err(|_| Internal {
        what: "hash the password",
    })?;
    Ok(record.encode())
}

/// The account for `email`: a new one with `password`, or the existing one
/// if `password` is its password (throttled like sign-in).
pub(crate) async fn account_for(
    req: &Request,
    env: &Env,
    email: &str,
    name: &str,
    password: &str,
    now: u64,
) -> Result<Account, AccountsError> {
    let shard = directory::email_shard(email);
    let find = directory::Find {
        email: email.to_string(),
    };
    if ask::<Directory, _>(env, &shard, find).await?.is_some() {
        return Attempt::password(req, email)
            .verify(env, password, now)
            .await;
    }
    new_password(password)?;
    let id = AccountId::from_hex(&random_hex(8)?).ok_or(Internal {
        what: "name the account",
    })?;
    let account = Account {
        id,
        email: email.to_string(),
        name: name.to_string(),
        password: hash_new(password).await?,
        orgs: Vec::new(),
    };
    let register = directory::Register {
        account: account.clone(),
    };
    if !ask::<Directory, _>(env, &shard, register).await? {
        // Made by a concurrent request a moment ago: it must be signed in to.
        return Attempt::password(req, email)
            .verify(env, password, now)
            .await;
    }
    Ok(account)
}

/// Puts `org` in the directory's copy of `email`'s organizations.
pub(crate) async fn joined(env: &Env, email: &str, org: OrgSummary) -> Result<(), AccountsError> {
    let call = directory::Join {
        email: email.to_string(),
        org,
    };
    ask::<Directory, _>(env, &directory::email_shard(email), call)
        .await
        .map_err(AccountsError::from)
}
