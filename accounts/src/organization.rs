//! The `Organization` Durable Object (one per organization, SQLite): its
//! name, members, invitations, password reset links and audit log, its sealed keys and webhook
//! secrets, its access tokens, widget settings and saved addresses, each
//! in a module of its own below; this file holds the tables and answers
//! each call. The rules are `orgs::rules`; each change and its audit line
//! are written in one synchronous run of the object, so neither exists
//! without the other.

use std::cell::Cell;

use serde::Deserialize;
use worker::{DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object};

use domain::objects::reply;
use domain::orgs::keys::Sealed;
use domain::orgs::{
    Access, AuditLine, ChangeSaved, Check, Create, CreateInvite, CreateReset, CreateToken, MoveKey,
    MoveWebhookSecret, Org, OrgCall, PreviewReset, Remove, Reseal, RevokeInvite, RevokeToken,
    SetKey, SetLive, SetRole, SetWebhookSecret, SetWidget, SignedIn, Tokens, UseReset, UseToken,
};

mod access_tokens;
mod audit;
mod invitations;
mod keys;
mod members;
mod mode_switch;
mod resets;
mod saved;
mod widget;

#[durable_object]
pub struct Organization {
    state: State,
    tables_ready: Cell<bool>,
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

fn label(name: &str, email: &str) -> String {
    format!("{name} <{email}>")
}

impl Organization {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        if !self.tables_ready.get() {
            for ddl in [
                "CREATE TABLE IF NOT EXISTS org (id TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL)",
                "CREATE TABLE IF NOT EXISTS members (account TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL, joined_at INTEGER NOT NULL, last_sign_in INTEGER)",
                "CREATE TABLE IF NOT EXISTS invites (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, created_by TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, accepted_by TEXT, revoked INTEGER NOT NULL DEFAULT 0)",
                "CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL, detail TEXT NOT NULL)",
                // `json` is a `StoredKey`: its key only sealed (`orgs::sealing`).
                "CREATE TABLE IF NOT EXISTS keys (mode TEXT NOT NULL, slot TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (mode, slot))",
                // `json` is a `StoredSecret`, sealed likewise.
                "CREATE TABLE IF NOT EXISTS webhook (slot TEXT PRIMARY KEY, json TEXT NOT NULL)",
                access_tokens::DDL,
                resets::DDL,
                // One row: `json` is a `widget::StoredWidget`.
                "CREATE TABLE IF NOT EXISTS widget (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
                // One row: whether live mode is on (`keys::Sealed::live`); an
                // organization made before the row existed has none and stays live.
                "CREATE TABLE IF NOT EXISTS live_mode (one INTEGER PRIMARY KEY CHECK (one = 1), live INTEGER NOT NULL)",
                // One row: whether operators may switch modes (`keys::Sealed::operators_switch_mode`).
                "CREATE TABLE IF NOT EXISTS mode_switch (one INTEGER PRIMARY KEY CHECK (one = 1), operators INTEGER NOT NULL)",
                // One row: `json` is the saved addresses and presets (`presets::Saved`).
                "CREATE TABLE IF NOT EXISTS saved (one INTEGER PRIMARY KEY CHECK (one = 1), json TEXT NOT NULL)",
            ] {
                sql.exec(ddl, None)?;
            }
            self.tables_ready.set(true);
        }
        Ok(sql)
    }

    /// The values a query's `json` column holds.
    fn json_rows<T: serde::de::DeserializeOwned>(sql: &SqlStorage, query: &str) -> Result<Vec<T>> {
        #[derive(Deserialize)]
        struct Row {
            json: String,
        }
        let rows: Vec<Row> = sql.exec(query, None)?.to_array()?;
        rows.iter()
            .map(|r| serde_json::from_str(&r.json).map_err(internal))
            .collect()
    }

    /// Whether the organization was made, read without creating anything
    /// (a delivery to an unknown organization's URL must not make storage).
    fn exists(&self) -> Result<bool> {
        #[derive(Deserialize)]
        struct Count {
            n: u64,
        }
        let rows: Vec<Count> = self
            .state
            .storage()
            .sql()
            .exec(
                "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'org'",
                None,
            )?
            .to_array()?;
        Ok(rows.first().is_some_and(|c| c.n > 0))
    }

    fn answer(&self, call: OrgCall) -> Result<String> {
        if matches!(call, OrgCall::Keys(_)) && !self.exists()? {
            return reply::<Org, domain::orgs::Keys>(&Sealed::default()).map_err(internal);
        }
        if matches!(call, OrgCall::Widget(_)) && !self.exists()? {
            return reply::<Org, domain::orgs::Widget>(&None).map_err(internal);
        }
        let sql = &self.sql()?;
        let json = match call {
            OrgCall::Create(c) => reply::<Org, Create>(&Self::create(sql, c)?),
            OrgCall::Check(Check { account }) => {
                reply::<Org, Check>(&Self::membership(sql, account.as_str())?)
            }
            OrgCall::SignedIn(s) => reply::<Org, SignedIn>(&Self::signed_in(sql, s)?),
            OrgCall::Members(_) => reply::<Org, domain::orgs::Members>(&Self::member_list(sql)?),
            OrgCall::SetRole(SetRole {
                actor,
                account,
                role,
                at,
            }) => reply::<Org, SetRole>(&Self::change(
                sql,
                &actor.label,
                account.as_str(),
                Some(role),
                at,
            )?),
            OrgCall::Remove(Remove { actor, account, at }) => reply::<Org, Remove>(&Self::change(
                sql,
                &actor.label,
                account.as_str(),
                None,
                at,
            )?),
            OrgCall::CreateInvite(c) => reply::<Org, CreateInvite>(&Self::create_invite(sql, c)?),
            OrgCall::Invites(domain::orgs::Invites { at }) => {
                reply::<Org, domain::orgs::Invites>(&Self::invites(sql, at)?)
            }
            OrgCall::RevokeInvite(r) => reply::<Org, RevokeInvite>(&Self::revoke_invite(sql, r)?),
            OrgCall::PreviewInvite(p) => {
                reply::<Org, domain::orgs::PreviewInvite>(&Self::preview_invite(sql, p)?)
            }
            OrgCall::AcceptInvite(a) => {
                reply::<Org, domain::orgs::AcceptInvite>(&Self::accept_invite(sql, a)?)
            }
            OrgCall::CreateReset(c) => reply::<Org, CreateReset>(&Self::create_reset(sql, c)?),
            OrgCall::PreviewReset(p) => reply::<Org, PreviewReset>(&Self::preview_reset(sql, p)?),
            OrgCall::UseReset(u) => reply::<Org, UseReset>(&Self::use_reset(sql, u)?),
            OrgCall::Access(Access { account }) => {
                let access = match Self::membership(sql, account.as_str())? {
                    Some(m) => Some((m, Self::sealed(sql)?)),
                    None => None,
                };
                reply::<Org, Access>(&access)
            }
            OrgCall::Keys(_) => reply::<Org, domain::orgs::Keys>(&Self::sealed(sql)?),
            OrgCall::SetKey(SetKey { key }) => reply::<Org, SetKey>(&Self::set_key(sql, key)?),
            OrgCall::MoveKey(m) => reply::<Org, MoveKey>(&Self::move_key(sql, m)?),
            OrgCall::Reseal(r) => reply::<Org, Reseal>(&Self::reseal(sql, r)?),
            OrgCall::SetWebhookSecret(SetWebhookSecret { secret }) => {
                reply::<Org, SetWebhookSecret>(&Self::set_secret(sql, secret)?)
            }
            OrgCall::MoveWebhookSecret(m) => {
                reply::<Org, MoveWebhookSecret>(&Self::move_secret(sql, m)?)
            }
            OrgCall::Record(r) => reply::<Org, domain::orgs::Record>(&Self::record(sql, r)?),
            OrgCall::Protected(p) => {
                let line = AuditLine {
                    actor: domain::orgs::PROTECTION_ACTOR.into(),
                    action: p.action,
                    detail: p.detail,
                };
                reply::<Org, domain::orgs::Protected>(&Self::audit(sql, p.at, line)?)
            }
            OrgCall::CreateToken(c) => reply::<Org, CreateToken>(&Self::create_token(sql, c)?),
            OrgCall::Tokens(Tokens { owner }) => {
                reply::<Org, Tokens>(&Self::tokens(sql, owner.as_ref())?)
            }
            OrgCall::RevokeToken(r) => reply::<Org, RevokeToken>(&Self::revoke_token(sql, r)?),
            OrgCall::UseToken(u) => reply::<Org, UseToken>(&Self::use_token(sql, u)?),
            OrgCall::Widget(_) => reply::<Org, domain::orgs::Widget>(&Self::widget(sql)?),
            OrgCall::SetWidget(SetWidget { widget }) => {
                reply::<Org, SetWidget>(&Self::set_widget(sql, widget)?)
            }
            OrgCall::SavedLists(_) => reply::<Org, domain::orgs::SavedLists>(&Self::saved(sql)?),
            OrgCall::ChangeSaved(c) => reply::<Org, ChangeSaved>(&Self::change_saved(sql, c)?),
            OrgCall::SetLive(s) => reply::<Org, SetLive>(&Self::set_live(sql, s)?),
            OrgCall::SetModeSwitch(s) => {
                reply::<Org, domain::orgs::SetModeSwitch>(&Self::set_mode_switch(sql, s)?)
            }
            OrgCall::Audit(domain::orgs::Audit { before }) => {
                reply::<Org, domain::orgs::Audit>(&Self::audit_page(sql, before)?)
            }
        };
        json.map_err(internal)
    }
}

impl DurableObject for Organization {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            tables_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let call = req.json::<OrgCall>().await?;
        Response::ok(self.answer(call)?)
    }
}
