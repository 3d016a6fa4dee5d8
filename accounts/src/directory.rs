//! The `AccountDirectory` Durable Object (one per shard, SQLite): accounts
//! by email with their sign-in counts and the addresses that signed their
//! person in, and the failed sign-in counters of the client addresses that
//! hash to this shard (`orgs::directory`, `orgs::throttle`).

use std::cell::Cell;

use serde::Deserialize;
use worker::{DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object};

use domain::objects::reply;
use domain::orgs::directory::{
    Account, AddPasskey, Challenge, Directory, DirectoryCall, Failed, Find, FindPasskey, Gate,
    Join, Leave, Outcome, PasskeyRefusal, PasskeyUsed, Passkeys, Register, RemovePasskey,
    SetPassword, StoredPasskey, TakeChallenge, Throttled,
};
use domain::orgs::throttle::{
    self, ACCOUNT_MEMORY, AccountCount, Failures, Held, KNOWN_MAX, KNOWN_MEMORY, PAIR_MEMORY, Pair,
};

#[durable_object]
pub struct AccountDirectory {
    state: State,
    tables_ready: Cell<bool>,
}

/// The address of an account's own row in `counts` (no client's is empty).
const ACCOUNT_ROW: &str = "";

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

impl AccountDirectory {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        if !self.tables_ready.get() {
            for ddl in [
                "CREATE TABLE IF NOT EXISTS accounts (email TEXT PRIMARY KEY, json TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, window_start INTEGER NOT NULL)",
                // An account's sign-in counts (`throttle::AccountCount` by
                // email, `throttle::Pair` by email and address), each kept
                // until `forget_at`, and the addresses that signed its person in.
                "CREATE TABLE IF NOT EXISTS counts (email TEXT NOT NULL, address TEXT NOT NULL, json TEXT NOT NULL, forget_at INTEGER NOT NULL, PRIMARY KEY (email, address))",
                "CREATE TABLE IF NOT EXISTS known (email TEXT NOT NULL, address TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (email, address))",
                // A person's passkeys (this shard holds them by account id) and
                // the ceremonies' challenges (by a hash of the challenge).
                "CREATE TABLE IF NOT EXISTS passkeys (credential_id TEXT PRIMARY KEY, account TEXT NOT NULL, json TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS challenges (challenge TEXT PRIMARY KEY, ceremony TEXT NOT NULL, account TEXT NOT NULL, expires_at INTEGER NOT NULL)",
            ] {
                sql.exec(ddl, None)?;
            }
            self.tables_ready.set(true);
        }
        Ok(sql)
    }

    fn find(sql: &SqlStorage, email: &str) -> Result<Option<Account>> {
        #[derive(Deserialize)]
        struct Row {
            json: String,
        }
        let rows: Vec<Row> = sql
            .exec(
                "SELECT json FROM accounts WHERE email = ?",
                vec![email.into()],
            )?
            .to_array()?;
        rows.first()
            .map(|r| serde_json::from_str(&r.json).map_err(internal))
            .transpose()
    }

    fn store(sql: &SqlStorage, account: &Account) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO accounts (email, json) VALUES (?, ?)",
            vec![
                account.email.clone().into(),
                serde_json::to_string(account).map_err(internal)?.into(),
            ],
        )?;
        Ok(())
    }

    fn failures(sql: &SqlStorage, key: &str) -> Result<Failures> {
        #[derive(Deserialize)]
        struct Row {
            count: u32,
            window_start: u64,
        }
        let rows: Vec<Row> = sql
            .exec(
                "SELECT count, window_start FROM failures WHERE key = ?",
                vec![key.into()],
            )?
            .to_array()?;
        Ok(rows.first().map_or_else(Failures::default, |r| Failures {
            count: r.count,
            window_start: r.window_start,
        }))
    }

    /// One row of `counts` (the account's own is [`ACCOUNT_ROW`]'s), if kept.
    fn count<T: serde::de::DeserializeOwned>(
        sql: &SqlStorage,
        email: &str,
        address: &str,
        now: u64,
    ) -> Result<Option<T>> {
        #[derive(Deserialize)]
        struct Row {
            json: String,
        }
        let rows: Vec<Row> = sql
            .exec(
                "SELECT json FROM counts WHERE email = ? AND address = ? AND forget_at > ?",
                vec![email.into(), address.into(), (now as i64).into()],
            )?
            .to_array()?;
        rows.first()
            .map(|r| serde_json::from_str(&r.json).map_err(internal))
            .transpose()
    }

    fn keep_count(
        sql: &SqlStorage,
        email: &str,
        address: &str,
        json: String,
        forget_at: u64,
    ) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO counts (email, address, json, forget_at) VALUES (?, ?, ?, ?)",
            vec![
                email.into(),
                address.into(),
                json.into(),
                (forget_at as i64).into(),
            ],
        )?;
        Ok(())
    }

    /// What is held about `email` and `address` at `now`.
    fn held(sql: &SqlStorage, email: &str, address: &str, now: u64) -> Result<Held> {
        #[derive(Deserialize)]
        struct Row {
            at: u64,
        }
        let known: Vec<Row> = sql
            .exec(
                "SELECT at FROM known WHERE email = ? AND address = ?",
                vec![email.into(), address.into()],
            )?
            .to_array()?;
        Ok(Held {
            pair: Self::count(sql, email, address, now)?.unwrap_or_default(),
            account: Self::count(sql, email, ACCOUNT_ROW, now)?.unwrap_or_default(),
            known: known
                .first()
                .is_some_and(|k| now < k.at.saturating_add(KNOWN_MEMORY)),
        })
    }

    /// Stores `held` (with the address as the person's if they `signed_in`
    /// from it); bounded: forgotten counts and addresses go with every
    /// write, and an account keeps its newest [`KNOWN_MAX`] addresses.
    fn keep(
        sql: &SqlStorage,
        email: &str,
        address: &str,
        held: &Held,
        signed_in: bool,
        now: u64,
    ) -> Result<()> {
        sql.exec(
            "DELETE FROM counts WHERE forget_at <= ?",
            vec![(now as i64).into()],
        )?;
        if held.pair == Pair::default() {
            sql.exec(
                "DELETE FROM counts WHERE email = ? AND address = ?",
                vec![email.into(), address.into()],
            )?;
        } else {
            let forget_at = held.pair.last.saturating_add(PAIR_MEMORY);
            let json = serde_json::to_string(&held.pair).map_err(internal)?;
            Self::keep_count(sql, email, address, json, forget_at)?;
        }
        if held.account != AccountCount::default() {
            let forget_at = held.account.last.saturating_add(ACCOUNT_MEMORY);
            let json = serde_json::to_string(&held.account).map_err(internal)?;
            Self::keep_count(sql, email, ACCOUNT_ROW, json, forget_at)?;
        }
        if signed_in {
            sql.exec(
                "DELETE FROM known WHERE at <= ?",
                vec![(now.saturating_sub(KNOWN_MEMORY) as i64).into()],
            )?;
            sql.exec(
                "INSERT OR REPLACE INTO known (email, address, at) VALUES (?, ?, ?)",
                vec![email.into(), address.into(), (now as i64).into()],
            )?;
            sql.exec(
                "DELETE FROM known WHERE email = ? AND address NOT IN (SELECT address FROM known WHERE email = ? ORDER BY at DESC LIMIT ?)",
                vec![email.into(), email.into(), (KNOWN_MAX as i64).into()],
            )?;
        }
        Ok(())
    }

    /// The passkeys `column` names `value` (an account's, or one credential).
    fn passkeys_by(sql: &SqlStorage, column: &str, value: &str) -> Result<Vec<StoredPasskey>> {
        #[derive(Deserialize)]
        struct Row {
            json: String,
        }
        let rows: Vec<Row> = sql
            .exec(
                &format!("SELECT json FROM passkeys WHERE {column} = ?"),
                vec![value.into()],
            )?
            .to_array()?;
        let mut keys = rows
            .iter()
            .map(|r| serde_json::from_str::<StoredPasskey>(&r.json).map_err(internal))
            .collect::<Result<Vec<_>>>()?;
        keys.sort_by_key(|k| k.created_at);
        Ok(keys)
    }

    /// The account's passkeys, oldest first.
    fn passkeys(sql: &SqlStorage, account: &str) -> Result<Vec<StoredPasskey>> {
        Self::passkeys_by(sql, "account", account)
    }

    fn store_passkey(sql: &SqlStorage, passkey: &StoredPasskey) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO passkeys (credential_id, account, json) VALUES (?, ?, ?)",
            vec![
                passkey.credential_id.clone().into(),
                passkey.account.to_string().into(),
                serde_json::to_string(passkey).map_err(internal)?.into(),
            ],
        )?;
        Ok(())
    }

    fn find_passkey(
        sql: &SqlStorage,
        account: &str,
        credential_id: &str,
    ) -> Result<Option<StoredPasskey>> {
        Ok(Self::passkeys(sql, account)?
            .into_iter()
            .find(|k| k.credential_id == credential_id))
    }

    fn answer(&self, call: DirectoryCall) -> Result<String> {
        let sql = self.sql()?;
        let json = match call {
            DirectoryCall::Find(Find { email }) => {
                reply::<Directory, Find>(&Self::find(&sql, &email)?)
            }
            DirectoryCall::Register(Register { account }) => {
                let fresh = Self::find(&sql, &account.email)?.is_none();
                if fresh {
                    Self::store(&sql, &account)?;
                }
                reply::<Directory, Register>(&fresh)
            }
            DirectoryCall::Join(Join { email, org }) => {
                if let Some(mut account) = Self::find(&sql, &email)? {
                    account.orgs.retain(|o| o.id != org.id);
                    account.orgs.push(org);
                    Self::store(&sql, &account)?;
                }
                reply::<Directory, Join>(&())
            }
            DirectoryCall::Leave(Leave { email, org }) => {
                if let Some(mut account) = Self::find(&sql, &email)? {
                    account.orgs.retain(|o| o.id != org);
                    Self::store(&sql, &account)?;
                }
                reply::<Directory, Leave>(&())
            }
            DirectoryCall::SetPassword(SetPassword {
                email,
                account,
                password,
            }) => {
                let found = Self::find(&sql, &email)?.filter(|a| a.id == account);
                if let Some(mut record) = found.clone() {
                    record.password = password;
                    Self::store(&sql, &record)?;
                }
                reply::<Directory, SetPassword>(&found.is_some())
            }
            DirectoryCall::Throttled(Throttled { key, limit, at }) => {
                let wait = Self::failures(&sql, &key)?.retry_after(limit, at);
                reply::<Directory, Throttled>(&wait)
            }
            DirectoryCall::Failed(Failed { key, limit, at }) => {
                // Bounded: counters whose window ended go (a new failure starts afresh anyway).
                sql.exec(
                    "DELETE FROM failures WHERE window_start <= ?",
                    vec![(at.saturating_sub(domain::orgs::throttle::WINDOW_SECONDS) as i64).into()],
                )?;
                let next = Self::failures(&sql, &key)?.fail(at);
                sql.exec(
                    "INSERT OR REPLACE INTO failures (key, count, window_start) VALUES (?, ?, ?)",
                    vec![
                        key.into(),
                        i64::from(next.count).into(),
                        (next.window_start as i64).into(),
                    ],
                )?;
                reply::<Directory, Failed>(&next.retry_after(limit, at))
            }
            DirectoryCall::Gate(Gate { email, address, at }) => {
                let mut held = Self::held(&sql, &email, &address, at)?;
                let gated = held.gate(at);
                Self::keep(&sql, &email, &address, &held, false, at)?;
                reply::<Directory, Gate>(&gated)
            }
            DirectoryCall::Outcome(Outcome {
                email,
                address,
                signed_in,
                at,
            }) => {
                let mut held = Self::held(&sql, &email, &address, at)?;
                let events: Vec<throttle::Event> = if signed_in {
                    held.signed_in(at).into_iter().collect()
                } else {
                    held.failed(&address, at)
                };
                Self::keep(&sql, &email, &address, &held, signed_in, at)?;
                reply::<Directory, Outcome>(&events)
            }
            DirectoryCall::Challenge(Challenge {
                challenge,
                ceremony,
                account,
                expires_at,
                at,
            }) => {
                // Bounded: the expired go with every new one.
                sql.exec(
                    "DELETE FROM challenges WHERE expires_at <= ?",
                    vec![(at as i64).into()],
                )?;
                sql.exec(
                    "INSERT INTO challenges (challenge, ceremony, account, expires_at) VALUES (?, ?, ?, ?)",
                    vec![
                        challenge.into(),
                        ceremony.into(),
                        account.map(|a| a.to_string()).unwrap_or_default().into(),
                        (expires_at as i64).into(),
                    ],
                )?;
                reply::<Directory, Challenge>(&())
            }
            DirectoryCall::TakeChallenge(TakeChallenge {
                challenge,
                ceremony,
                account,
                at,
            }) => {
                #[derive(Deserialize)]
                struct Row {
                    ceremony: String,
                    account: String,
                    expires_at: u64,
                }
                let rows: Vec<Row> = sql
                    .exec(
                        "DELETE FROM challenges WHERE challenge = ? RETURNING ceremony, account, expires_at",
                        vec![challenge.into()],
                    )?
                    .to_array()?;
                let account = account.map(|a| a.to_string()).unwrap_or_default();
                let valid = rows.first().is_some_and(|r| {
                    r.ceremony == ceremony && r.account == account && at < r.expires_at
                });
                reply::<Directory, TakeChallenge>(&valid)
            }
            DirectoryCall::AddPasskey(AddPasskey { passkey, max }) => {
                let held = Self::passkeys(&sql, passkey.account.as_str())?;
                let exists = Self::passkeys_by(&sql, "credential_id", &passkey.credential_id)?;
                let added = if !exists.is_empty() {
                    Err(PasskeyRefusal::Exists)
                } else if held.len() >= max {
                    Err(PasskeyRefusal::Limit)
                } else {
                    Self::store_passkey(&sql, &passkey)?;
                    Ok(Self::passkeys(&sql, passkey.account.as_str())?)
                };
                reply::<Directory, AddPasskey>(&added)
            }
            DirectoryCall::Passkeys(Passkeys { account }) => {
                reply::<Directory, Passkeys>(&Self::passkeys(&sql, account.as_str())?)
            }
            DirectoryCall::RemovePasskey(RemovePasskey { account, id }) => {
                let held = Self::passkeys(&sql, account.as_str())?;
                let removed = match held.iter().find(|k| k.id == id) {
                    Some(gone) => {
                        sql.exec(
                            "DELETE FROM passkeys WHERE credential_id = ?",
                            vec![gone.credential_id.clone().into()],
                        )?;
                        Some((gone.clone(), Self::passkeys(&sql, account.as_str())?))
                    }
                    None => None,
                };
                reply::<Directory, RemovePasskey>(&removed)
            }
            DirectoryCall::FindPasskey(FindPasskey {
                account,
                credential_id,
            }) => {
                let found = Self::find_passkey(&sql, account.as_str(), &credential_id)?;
                reply::<Directory, FindPasskey>(&found)
            }
            DirectoryCall::PasskeyUsed(PasskeyUsed {
                account,
                credential_id,
                from,
                sign_count,
                backed_up,
                at,
            }) => {
                // One call of one object at a time: read, compare and write are one step.
                let used = match Self::find_passkey(&sql, account.as_str(), &credential_id)? {
                    Some(mut key) if key.sign_count == from => {
                        key.sign_count = sign_count;
                        key.backed_up = backed_up;
                        key.last_used_at = Some(at);
                        Self::store_passkey(&sql, &key)?;
                        true
                    }
                    _ => false,
                };
                reply::<Directory, PasskeyUsed>(&used)
            }
        };
        json.map_err(internal)
    }
}

impl DurableObject for AccountDirectory {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            tables_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let call = req.json::<DirectoryCall>().await?;
        Response::ok(self.answer(call)?)
    }
}
