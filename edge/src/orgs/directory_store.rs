//! The `AccountDirectory` Durable Object (one per shard, SQLite): accounts
//! by email, and the failed sign-in counters of the emails and client
//! addresses that hash to this shard (`orgs::directory`, `orgs::throttle`).

use std::cell::Cell;

use serde::Deserialize;
use worker::{DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object};

use super::directory::{
    Account, Cleared, Directory, DirectoryCall, Failed, Find, Join, Leave, Register, Throttled,
};
use super::throttle::Failures;
use crate::objects::reply;

#[durable_object]
pub struct AccountDirectory {
    state: State,
    tables_ready: Cell<bool>,
}

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
            DirectoryCall::Throttled(Throttled { key, limit, at }) => {
                let wait = Self::failures(&sql, &key)?.retry_after(limit, at);
                reply::<Directory, Throttled>(&wait)
            }
            DirectoryCall::Failed(Failed { key, limit, at }) => {
                // Bounded: counters whose window ended go (a new failure starts afresh anyway).
                sql.exec(
                    "DELETE FROM failures WHERE window_start <= ?",
                    vec![(at.saturating_sub(super::throttle::WINDOW_SECONDS) as i64).into()],
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
            DirectoryCall::Cleared(Cleared { key }) => {
                sql.exec("DELETE FROM failures WHERE key = ?", vec![key.into()])?;
                reply::<Directory, Cleared>(&())
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
