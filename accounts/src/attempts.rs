//! Sign-in attempts and their counts (`orgs::throttle`), before any
//! hashing: a client address at its limit is refused every way in but a
//! passkey, whose refusals it counts apart (a passkey cannot be guessed,
//! and must always let its person in); a password is checked only when
//! its account and address allow it now, and its outcome counted for both
//! (the account by email, known or not). What the counts did to a
//! member's account goes into the audit log of each of their
//! organizations. The counts live in the directory's shards.

use domain::orgs::AccountError;
use domain::orgs::directory::{self, Account, Directory};
use domain::orgs::passwords::{self, PasswordRecord};
use domain::orgs::throttle::{ADDRESS_FAILURES, Event};
use domain::orgs::{Org, Protected};
use sha2::{Digest, Sha256};
use worker::Env;
use worker::web_sys::Request;

use crate::crypto;
use crate::error::AccountsError;
use platform::header;
use platform::objects::ask;

/// How someone tries to sign in: what they are counted by.
enum Way {
    /// A password for this (normalized) email.
    Password(String),
    /// A personal access token: it names no account to count against.
    Token,
    Passkey,
}

/// One sign-in attempt from a client address.
pub(crate) struct Attempt {
    way: Way,
    address: String,
}

impl Attempt {
    fn from(req: &Request, way: Way) -> Attempt {
        let address = header(req, "CF-Connecting-IP").filter(|a| !a.is_empty());
        Attempt {
            way,
            address: address.unwrap_or_else(|| "unknown".into()),
        }
    }

    pub(crate) fn password(req: &Request, email: &str) -> Attempt {
        Attempt::from(req, Way::Password(email.to_string()))
    }

    pub(crate) fn token(req: &Request) -> Attempt {
        Attempt::from(req, Way::Token)
    }

    pub(crate) fn passkey(req: &Request) -> Attempt {
        Attempt::from(req, Way::Passkey)
    }

    /// The client address's counter for this way in.
    fn address_counter(&self) -> (String, String) {
        let kind = match self.way {
            Way::Passkey => "passkey",
            Way::Password(_) | Way::Token => "address",
        };
        (
            directory::address_shard(&self.address),
            format!("{kind}:{}", self.address),
        )
    }

    /// Refused while the client address is at its limit.
    pub(crate) async fn allowed(&self, env: &Env, now: u64) -> Result<(), AccountsError> {
        let (shard, key) = self.address_counter();
        let call = directory::Throttled {
            key,
            limit: ADDRESS_FAILURES,
            at: now,
        };
        match ask::<Directory, _>(env, &shard, call).await? {
            Some(retry_after) => Err(AccountError::SignInThrottled { retry_after }.into()),
            None => Ok(()),
        }
    }

    /// Counts a failure against the client address; answers `refusal`.
    pub(crate) async fn failed(
        &self,
        env: &Env,
        now: u64,
        refusal: AccountsError,
    ) -> AccountsError {
        let (shard, key) = self.address_counter();
        let call = directory::Failed {
            key,
            limit: ADDRESS_FAILURES,
            at: now,
        };
        match ask::<Directory, _>(env, &shard, call).await {
            Ok(_) => refusal,
            Err(e) => e.into(),
        }
    }

    /// `account`'s person signed in from this address (a passkey's
    /// sign-in; a password's is counted by `verify`): it is theirs from
    /// now on, and a lock there is lifted.
    pub(crate) async fn signed_in(
        &self,
        env: &Env,
        account: &Account,
        now: u64,
    ) -> Result<(), AccountsError> {
        self.outcome(env, Some(account), &account.email, true, now)
            .await
    }

    /// Counts a password's outcome for `email` and this address, and
    /// audits what it did to the account.
    async fn outcome(
        &self,
        env: &Env,
        account: Option<&Account>,
        email: &str,
        signed_in: bool,
        now: u64,
    ) -> Result<(), AccountsError> {
        let call = directory::Outcome {
            email: email.to_string(),
            address: self.address.clone(),
            signed_in,
            at: now,
        };
        let events = ask::<Directory, _>(env, &directory::email_shard(email), call).await?;
        self.audit(env, account, &events, now).await;
        Ok(())
    }

    /// Writes `events` into the audit log of each of the account's
    /// organizations (an email with no account has none). The counts
    /// stand either way; a miss is logged for the operator.
    async fn audit(&self, env: &Env, account: Option<&Account>, events: &[Event], now: u64) {
        let Some(account) = account else { return };
        for event in events {
            let (action, detail) = event.audit(&account.email, &self.address);
            for org in &account.orgs {
                let call = Protected {
                    action,
                    detail: detail.clone(),
                    at: now,
                };
                if ask::<Org, _>(env, org.id.as_str(), call).await.is_err() {
                    worker::console_error!(
                        "an audit entry was not recorded ({}, {}): {detail}",
                        org.id,
                        action.as_str()
                    );
                }
            }
        }
    }

    /// Checks `password` against the email's account, if the counts allow
    /// it now. An unknown email is checked against a record of the same
    /// cost and counted alike, so both answers take about as long and say
    /// the same.
    pub(crate) async fn verify(
        &self,
        env: &Env,
        password: &str,
        now: u64,
    ) -> Result<Account, AccountsError> {
        let Way::Password(email) = &self.way else {
            return Err(AccountError::SignInFailed.into());
        };
        self.allowed(env, now).await?;
        let shard = directory::email_shard(email);
        let find = directory::Find {
            email: email.clone(),
        };
        let account = ask::<Directory, _>(env, &shard, find).await?;
        let gate = directory::Gate {
            email: email.clone(),
            address: self.address.clone(),
            at: now,
        };
        let gated = ask::<Directory, _>(env, &shard, gate).await?;
        self.audit(env, account.as_ref(), gated.event.as_slice(), now)
            .await;
        if let Some(retry_after) = gated.wait {
            return Err(AccountError::SignInThrottled { retry_after }.into());
        }
        let record = account
            .as_ref()
            .and_then(|a| PasswordRecord::parse(&a.password))
            .unwrap_or_else(|| {
                let salt = Sha256::digest(format!("parcel dummy salt {email}").as_bytes());
                passwords::dummy(salt[..passwords::SALT_BYTES].to_vec())
            });
        let derived = crypto::derive(password, &record).await?;
        match account {
            Some(account) if record.matches(&derived) => {
                self.outcome(env, Some(&account), email, true, now).await?;
                Ok(account)
            }
            account => {
                self.outcome(env, account.as_ref(), email, false, now)
                    .await?;
                Err(self
                    .failed(env, now, AccountError::SignInFailed.into())
                    .await)
            }
        }
    }
}
