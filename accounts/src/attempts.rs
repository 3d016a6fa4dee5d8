//! Sign-in attempts and their counters (`orgs::throttle`): a sign-in by
//! password, token or passkey is refused, before any hashing, while the
//! email's or the client address's failures in the window are at their
//! limit, and each failure counts against both (a token or a passkey names
//! no email: the address's alone). The counters live in the directory's shards.

use domain::orgs::AccountError;
use sha2::{Digest, Sha256};
use worker::Env;
use worker::web_sys::Request;

use crate::crypto;
use crate::error::AccountsError;
use domain::orgs::directory::{self, Account, Directory};
use domain::orgs::passwords::{self, PasswordRecord};
use domain::orgs::throttle::{ADDRESS_FAILURES, EMAIL_FAILURES};
use platform::header;
use platform::objects::ask;

/// Sign-in's throttle keys: the email's (a password sign-in) and the
/// client address's.
pub(crate) struct Attempt {
    email: Option<String>,
    address: String,
}

impl Attempt {
    pub(crate) fn new(req: &Request, email: &str) -> Attempt {
        Attempt {
            email: Some(email.to_string()),
            ..Attempt::from_address(req)
        }
    }

    /// A sign-in with an access token: it names no account to count against.
    pub(crate) fn from_address(req: &Request) -> Attempt {
        Attempt {
            email: None,
            address: header(req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into()),
        }
    }

    fn counters(&self) -> Vec<(String, String, u32)> {
        let email = self.email.iter().map(|email| {
            (
                directory::email_shard(email),
                format!("email:{email}"),
                EMAIL_FAILURES,
            )
        });
        let address = (
            directory::address_shard(&self.address),
            format!("address:{}", self.address),
            ADDRESS_FAILURES,
        );
        email.chain([address]).collect()
    }

    /// Refused before any hashing while either counter is at its limit.
    pub(crate) async fn allowed(&self, env: &Env, now: u64) -> Result<(), AccountsError> {
        for (shard, key, limit) in self.counters() {
            let call = directory::Throttled {
                key,
                limit,
                at: now,
            };
            if let Some(retry_after) = ask::<Directory, _>(env, &shard, call).await? {
                return Err(AccountError::SignInThrottled { retry_after }.into());
            }
        }
        Ok(())
    }

    /// Counts a failure; answers `refusal`.
    pub(crate) async fn failed(
        &self,
        env: &Env,
        now: u64,
        refusal: AccountsError,
    ) -> AccountsError {
        for (shard, key, limit) in self.counters() {
            let call = directory::Failed {
                key,
                limit,
                at: now,
            };
            if let Err(e) = ask::<Directory, _>(env, &shard, call).await {
                return e.into();
            }
        }
        refusal
    }

    /// Checks `password` against the email's account. An unknown email is
    /// checked against a record of the same cost, so both answers take
    /// about as long and say the same.
    pub(crate) async fn verify(
        &self,
        env: &Env,
        password: &str,
        now: u64,
    ) -> Result<Account, AccountsError> {
        self.allowed(env, now).await?;
        let email = self.email.clone().unwrap_or_default();
        let find = directory::Find {
            email: email.clone(),
        };
        let account = ask::<Directory, _>(env, &directory::email_shard(&email), find).await?;
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
                let cleared = directory::Cleared {
                    key: format!("email:{email}"),
                };
                ask::<Directory, _>(env, &directory::email_shard(&email), cleared).await?;
                Ok(account)
            }
            _ => Err(self
                .failed(env, now, AccountError::SignInFailed.into())
                .await),
        }
    }
}
