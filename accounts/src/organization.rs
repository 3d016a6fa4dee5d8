//! The `Organization` Durable Object (one per organization, SQLite): its
//! name, members, invitations and audit log. The rules are `orgs::rules`;
//! each change and its audit line are written in one synchronous run of
//! the object, so neither exists without the other.

use std::cell::Cell;

use api::orgs::{AuditAction, AuditEntry, AuditPage, Invite, InvitePreview, Member};
use api::session::Role;
use serde::Deserialize;
use worker::{DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object};

use domain::objects::reply;
use domain::orgs::keys::{Sealed, StoredKey, StoredSecret};
use domain::orgs::presets::{self, Saved};
use domain::orgs::rules::{self, InviteFacts};
use domain::orgs::widget::StoredWidget;
use domain::orgs::{
    AUDIT_PAGE, Accepted, Access, AuditLine, ChangeSaved, Check, Create, CreateInvite, CreateToken,
    Joining, Membership, MoveKey, MoveWebhookSecret, Org, OrgCall, Refusal, Remove, Reseal,
    RevokeInvite, RevokeToken, SetKey, SetRole, SetWebhookSecret, SetWidget, SignedIn, Tokens,
    UseToken,
};

mod access_tokens;

#[durable_object]
pub struct Organization {
    state: State,
    tables_ready: Cell<bool>,
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

#[derive(Deserialize)]
struct MemberRow {
    account: String,
    name: String,
    email: String,
    role: String,
    joined_at: u64,
    last_sign_in: Option<u64>,
}

impl MemberRow {
    fn role(&self) -> Role {
        // Only `Role::as_str` writes the column; anything else reads as the least.
        Role::from_name(&self.role).unwrap_or(Role::Viewer)
    }

    fn member(&self) -> Option<Member> {
        Some(Member {
            account: api::orgs::AccountId::parse(&self.account)?,
            name: self.name.clone(),
            email: self.email.clone(),
            role: self.role(),
            joined_at: self.joined_at,
            last_sign_in: self.last_sign_in,
        })
    }
}

#[derive(Deserialize)]
struct InviteRow {
    id: String,
    role: String,
    created_by: String,
    created_at: u64,
    expires_at: u64,
    accepted_by: Option<String>,
    revoked: u64,
}

impl InviteRow {
    fn facts(&self) -> InviteFacts {
        InviteFacts {
            expires_at: self.expires_at,
            accepted: self.accepted_by.is_some(),
            revoked: self.revoked != 0,
        }
    }

    fn role(&self) -> Role {
        Role::from_name(&self.role).unwrap_or(Role::Viewer)
    }

    fn invite(&self, now: u64) -> Invite {
        Invite {
            id: self.id.clone(),
            role: self.role(),
            created_by: self.created_by.clone(),
            created_at: self.created_at,
            expires_at: self.expires_at,
            state: self.facts().state(now),
            accepted_by: self.accepted_by.clone(),
        }
    }
}

const INVITE_COLUMNS: &str = "id, role, created_by, created_at, expires_at, accepted_by, revoked";

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
                // One row: `json` is a `widget::StoredWidget`.
                "CREATE TABLE IF NOT EXISTS widget (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
                // One row: `json` is the saved addresses and presets (`presets::Saved`).
                "CREATE TABLE IF NOT EXISTS saved (one INTEGER PRIMARY KEY CHECK (one = 1), json TEXT NOT NULL)",
            ] {
                sql.exec(ddl, None)?;
            }
            self.tables_ready.set(true);
        }
        Ok(sql)
    }

    fn name(sql: &SqlStorage) -> Result<Option<String>> {
        #[derive(Deserialize)]
        struct Name {
            name: String,
        }
        let rows: Vec<Name> = sql.exec("SELECT name FROM org LIMIT 1", None)?.to_array()?;
        Ok(rows.into_iter().next().map(|r| r.name))
    }

    fn members(sql: &SqlStorage) -> Result<Vec<MemberRow>> {
        sql.exec(
            "SELECT account, name, email, role, joined_at, last_sign_in FROM members ORDER BY joined_at, account",
            None,
        )?
        .to_array()
    }

    fn member_list(sql: &SqlStorage) -> Result<Vec<Member>> {
        Ok(Self::members(sql)?
            .iter()
            .filter_map(MemberRow::member)
            .collect())
    }

    fn audit(sql: &SqlStorage, at: u64, line: AuditLine) -> Result<()> {
        sql.exec(
            "INSERT INTO audit (at, actor, action, detail) VALUES (?, ?, ?, ?)",
            vec![
                (at as i64).into(),
                line.actor.into(),
                line.action.as_str().into(),
                line.detail.into(),
            ],
        )?;
        Ok(())
    }

    fn join(sql: &SqlStorage, person: &Joining, role: Role, at: u64) -> Result<()> {
        sql.exec(
            "INSERT INTO members (account, name, email, role, joined_at) VALUES (?, ?, ?, ?, ?)",
            vec![
                person.account.as_str().into(),
                person.name.clone().into(),
                person.email.clone().into(),
                role.as_str().into(),
                (at as i64).into(),
            ],
        )?;
        Ok(())
    }

    fn membership(sql: &SqlStorage, account: &str) -> Result<Option<Membership>> {
        let Some(org_name) = Self::name(sql)? else {
            return Ok(None);
        };
        let rows: Vec<MemberRow> = sql
            .exec(
                "SELECT account, name, email, role, joined_at, last_sign_in FROM members WHERE account = ?",
                vec![account.into()],
            )?
            .to_array()?;
        Ok(rows.first().map(|m| Membership {
            org_name,
            role: m.role(),
            name: m.name.clone(),
            email: m.email.clone(),
        }))
    }

    fn invite_by_hash(sql: &SqlStorage, token_hash: &str) -> Result<Option<InviteRow>> {
        let rows: Vec<InviteRow> = sql
            .exec(
                &format!("SELECT {INVITE_COLUMNS} FROM invites WHERE token_hash = ?"),
                vec![token_hash.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    fn invites(sql: &SqlStorage, now: u64) -> Result<Vec<Invite>> {
        let rows: Vec<InviteRow> = sql
            .exec(
                &format!(
                    "SELECT {INVITE_COLUMNS} FROM invites ORDER BY created_at DESC, id LIMIT 200"
                ),
                None,
            )?
            .to_array()?;
        Ok(rows.iter().map(|r| r.invite(now)).collect())
    }

    fn create(sql: &SqlStorage, c: Create) -> Result<std::result::Result<(), Refusal>> {
        if Self::name(sql)?.is_some() {
            return Ok(Err(Refusal::Exists));
        }
        sql.exec(
            "INSERT INTO org (id, name, created_at) VALUES (?, ?, ?)",
            vec![
                c.org.as_str().into(),
                c.name.clone().into(),
                (c.at as i64).into(),
            ],
        )?;
        Self::join(sql, &c.admin, Role::Admin, c.at)?;
        let actor = label(&c.admin.name, &c.admin.email);
        Self::audit(
            sql,
            c.at,
            AuditLine {
                actor: actor.clone(),
                action: AuditAction::OrgCreated,
                detail: format!("{} created by {actor} (admin) from a setup link", c.name),
            },
        )?;
        Ok(Ok(()))
    }

    fn change(
        sql: &SqlStorage,
        actor: &str,
        account: &str,
        role: Option<Role>,
        at: u64,
    ) -> Result<std::result::Result<Vec<Member>, Refusal>> {
        let members = Self::members(sql)?;
        let roles = members.iter().map(|m| (m.account.as_str(), m.role()));
        if let Err(refusal) = rules::may_change(roles, account, role) {
            return Ok(Err(refusal));
        }
        let Some(row) = members.iter().find(|m| m.account == account) else {
            return Ok(Err(Refusal::NoSuchMember));
        };
        let who = label(&row.name, &row.email);
        let line = match role {
            Some(role) => {
                sql.exec(
                    "UPDATE members SET role = ? WHERE account = ?",
                    vec![role.as_str().into(), account.into()],
                )?;
                AuditLine {
                    actor: actor.to_string(),
                    action: AuditAction::RoleChanged,
                    detail: format!("{who}: {} → {role}", row.role()),
                }
            }
            None => {
                sql.exec(
                    "DELETE FROM members WHERE account = ?",
                    vec![account.into()],
                )?;
                // Their access tokens go with them (a return by invitation revives none).
                sql.exec("DELETE FROM tokens WHERE account = ?", vec![account.into()])?;
                AuditLine {
                    actor: actor.to_string(),
                    action: AuditAction::MemberRemoved,
                    detail: format!("{who} ({}) removed", row.role()),
                }
            }
        };
        Self::audit(sql, at, line)?;
        Ok(Ok(Self::member_list(sql)?))
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

    fn keys(sql: &SqlStorage) -> Result<Vec<StoredKey>> {
        Self::json_rows(sql, "SELECT json FROM keys ORDER BY mode, slot")
    }

    fn webhook(sql: &SqlStorage) -> Result<Vec<StoredSecret>> {
        Self::json_rows(sql, "SELECT json FROM webhook ORDER BY slot")
    }

    fn put_secret(sql: &SqlStorage, secret: &StoredSecret) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO webhook (slot, json) VALUES (?, ?)",
            vec![
                secret.slot.as_str().into(),
                serde_json::to_string(secret).map_err(internal)?.into(),
            ],
        )?;
        Ok(())
    }

    fn sealed(sql: &SqlStorage) -> Result<Sealed> {
        Ok(Sealed {
            keys: Self::keys(sql)?,
            webhook: Self::webhook(sql)?,
        })
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

    fn move_secret(
        sql: &SqlStorage,
        m: MoveWebhookSecret,
    ) -> Result<std::result::Result<Vec<StoredSecret>, Refusal>> {
        use api::session::KeySlot;
        let Some(next) = Self::webhook(sql)?
            .into_iter()
            .find(|s| s.slot == KeySlot::Next)
        else {
            return Ok(Err(Refusal::NoNextKey));
        };
        sql.exec("DELETE FROM webhook WHERE slot = 'next'", None)?;
        let detail = if m.promote {
            Self::put_secret(
                sql,
                &StoredSecret {
                    slot: KeySlot::Current,
                    ..next.clone()
                },
            )?;
            format!(
                "webhook secret rotated: {} is now the only one",
                next.redacted
            )
        } else {
            format!(
                "webhook secret rotation abandoned: {} discarded",
                next.redacted
            )
        };
        Self::audit(
            sql,
            m.at,
            AuditLine {
                actor: m.actor.label,
                action: AuditAction::WebhookSecretSet,
                detail,
            },
        )?;
        Ok(Ok(Self::webhook(sql)?))
    }

    fn put_key(sql: &SqlStorage, key: &StoredKey) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO keys (mode, slot, json) VALUES (?, ?, ?)",
            vec![
                key.mode.as_str().into(),
                key.slot.as_str().into(),
                serde_json::to_string(key).map_err(internal)?.into(),
            ],
        )?;
        Ok(())
    }

    fn set_key(sql: &SqlStorage, key: StoredKey) -> Result<Vec<StoredKey>> {
        Self::put_key(sql, &key)?;
        let scopes: Vec<&str> = key.scopes.iter().map(|s| s.as_str()).collect();
        Self::audit(
            sql,
            key.set_at,
            AuditLine {
                actor: key.set_by.clone(),
                action: AuditAction::KeySet,
                detail: format!(
                    "{} key ({}) set to {}, scopes: {}",
                    key.mode,
                    key.slot.as_str(),
                    key.redacted,
                    scopes.join(", ")
                ),
            },
        )?;
        Self::keys(sql)
    }

    fn move_key(
        sql: &SqlStorage,
        m: MoveKey,
    ) -> Result<std::result::Result<Vec<StoredKey>, Refusal>> {
        use api::session::KeySlot;
        let stored = Self::keys(sql)?;
        let Some(next) = stored
            .into_iter()
            .find(|k| k.mode == m.mode && k.slot == KeySlot::Next)
        else {
            return Ok(Err(Refusal::NoNextKey));
        };
        sql.exec(
            "DELETE FROM keys WHERE mode = ? AND slot = ?",
            vec![m.mode.as_str().into(), KeySlot::Next.as_str().into()],
        )?;
        let detail = if m.promote {
            Self::put_key(
                sql,
                &StoredKey {
                    slot: KeySlot::Current,
                    ..next.clone()
                },
            )?;
            format!(
                "{} key rotated: {} is now the only one",
                m.mode, next.redacted
            )
        } else {
            format!(
                "{} key rotation abandoned: {} discarded",
                m.mode, next.redacted
            )
        };
        Self::audit(
            sql,
            m.at,
            AuditLine {
                actor: m.actor.label,
                action: AuditAction::KeySet,
                detail,
            },
        )?;
        Ok(Ok(Self::keys(sql)?))
    }

    fn widget(sql: &SqlStorage) -> Result<Option<StoredWidget>> {
        Ok(Self::json_rows(sql, "SELECT json FROM widget")?.pop())
    }

    fn set_widget(sql: &SqlStorage, widget: StoredWidget) -> Result<StoredWidget> {
        let before = Self::widget(sql)?.map(|w| w.settings).unwrap_or_default();
        sql.exec(
            "INSERT OR REPLACE INTO widget (id, json) VALUES (1, ?)",
            vec![serde_json::to_string(&widget).map_err(internal)?.into()],
        )?;
        Self::audit(
            sql,
            widget.set_at,
            AuditLine {
                actor: widget.set_by.clone(),
                action: AuditAction::WidgetChanged,
                detail: domain::orgs::widget::describe_change(&before, &widget.settings),
            },
        )?;
        Ok(widget)
    }

    fn saved(sql: &SqlStorage) -> Result<Saved> {
        Ok(Self::json_rows(sql, "SELECT json FROM saved")?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    /// A change and its audit line, together; a refused one changes nothing.
    fn change_saved(
        sql: &SqlStorage,
        c: ChangeSaved,
    ) -> Result<std::result::Result<Saved, presets::Refused>> {
        let mut saved = Self::saved(sql)?;
        let line = match presets::apply(&mut saved, *c.change, &c.actor.label, c.at) {
            Ok(line) => line,
            Err(refused) => return Ok(Err(refused)),
        };
        sql.exec(
            "INSERT OR REPLACE INTO saved (one, json) VALUES (1, ?)",
            vec![serde_json::to_string(&saved).map_err(internal)?.into()],
        )?;
        Self::audit(sql, c.at, line)?;
        Ok(Ok(saved))
    }

    fn answer(&self, call: OrgCall) -> Result<String> {
        if matches!(call, OrgCall::Keys(_)) && !self.exists()? {
            return reply::<Org, domain::orgs::Keys>(&Sealed::default()).map_err(internal);
        }
        if matches!(call, OrgCall::Widget(_)) && !self.exists()? {
            return reply::<Org, domain::orgs::Widget>(&None).map_err(internal);
        }
        let sql = self.sql()?;
        let json = match call {
            OrgCall::Create(c) => reply::<Org, Create>(&Self::create(&sql, c)?),
            OrgCall::Check(Check { account }) => {
                reply::<Org, Check>(&Self::membership(&sql, account.as_str())?)
            }
            OrgCall::SignedIn(SignedIn { account, at }) => {
                sql.exec(
                    "UPDATE members SET last_sign_in = ? WHERE account = ?",
                    vec![(at as i64).into(), account.as_str().into()],
                )?;
                reply::<Org, SignedIn>(&Self::membership(&sql, account.as_str())?)
            }
            OrgCall::Members(_) => reply::<Org, domain::orgs::Members>(&Self::member_list(&sql)?),
            OrgCall::SetRole(SetRole {
                actor,
                account,
                role,
                at,
            }) => reply::<Org, SetRole>(&Self::change(
                &sql,
                &actor.label,
                account.as_str(),
                Some(role),
                at,
            )?),
            OrgCall::Remove(Remove { actor, account, at }) => reply::<Org, Remove>(&Self::change(
                &sql,
                &actor.label,
                account.as_str(),
                None,
                at,
            )?),
            OrgCall::CreateInvite(c) => {
                sql.exec(
                    "INSERT INTO invites (id, token_hash, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                    vec![
                        c.id.clone().into(),
                        c.token_hash.into(),
                        c.role.as_str().into(),
                        c.actor.label.clone().into(),
                        (c.at as i64).into(),
                        (c.expires_at as i64).into(),
                    ],
                )?;
                Self::audit(
                    &sql,
                    c.at,
                    AuditLine {
                        actor: c.actor.label.clone(),
                        action: AuditAction::InviteCreated,
                        detail: format!(
                            "invitation {} as {}, expires {}",
                            c.id, c.role, c.expires_at
                        ),
                    },
                )?;
                let invite = Invite {
                    id: c.id,
                    role: c.role,
                    created_by: c.actor.label,
                    created_at: c.at,
                    expires_at: c.expires_at,
                    state: api::orgs::InviteState::Pending,
                    accepted_by: None,
                };
                reply::<Org, CreateInvite>(&invite)
            }
            OrgCall::Invites(domain::orgs::Invites { at }) => {
                reply::<Org, domain::orgs::Invites>(&Self::invites(&sql, at)?)
            }
            OrgCall::RevokeInvite(RevokeInvite { actor, id, at }) => {
                let rows: Vec<InviteRow> = sql
                    .exec(
                        &format!("SELECT {INVITE_COLUMNS} FROM invites WHERE id = ?"),
                        vec![id.clone().into()],
                    )?
                    .to_array()?;
                let answer = match rows.first().map(|r| r.facts().usable(at)) {
                    None => Err(Refusal::InviteUnknown),
                    Some(Err(refusal)) => Err(refusal),
                    Some(Ok(())) => {
                        sql.exec(
                            "UPDATE invites SET revoked = 1 WHERE id = ?",
                            vec![id.clone().into()],
                        )?;
                        Self::audit(
                            &sql,
                            at,
                            AuditLine {
                                actor: actor.label,
                                action: AuditAction::InviteRevoked,
                                detail: format!("invitation {id} withdrawn"),
                            },
                        )?;
                        Ok(Self::invites(&sql, at)?)
                    }
                };
                reply::<Org, RevokeInvite>(&answer)
            }
            OrgCall::PreviewInvite(p) => {
                let answer = match (
                    Self::invite_by_hash(&sql, &p.token_hash)?,
                    Self::name(&sql)?,
                ) {
                    (Some(row), Some(org_name)) => {
                        row.facts().usable(p.at).map(|()| InvitePreview {
                            org_name,
                            role: row.role(),
                            invited_by: row.created_by.clone(),
                            expires_at: row.expires_at,
                        })
                    }
                    _ => Err(Refusal::InviteUnknown),
                };
                reply::<Org, domain::orgs::PreviewInvite>(&answer)
            }
            OrgCall::AcceptInvite(a) => {
                let answer = match (
                    Self::invite_by_hash(&sql, &a.token_hash)?,
                    Self::name(&sql)?,
                ) {
                    (Some(row), Some(org_name)) => match row.facts().usable(a.at) {
                        Err(refusal) => Err(refusal),
                        Ok(()) => {
                            let who = label(&a.person.name, &a.person.email);
                            sql.exec(
                                "UPDATE invites SET accepted_by = ? WHERE id = ?",
                                vec![who.clone().into(), row.id.clone().into()],
                            )?;
                            // Already a member: the invitation is used, the role kept.
                            let role = match Self::membership(&sql, a.person.account.as_str())? {
                                Some(m) => m.role,
                                None => {
                                    Self::join(&sql, &a.person, row.role(), a.at)?;
                                    row.role()
                                }
                            };
                            Self::audit(
                                &sql,
                                a.at,
                                AuditLine {
                                    actor: who.clone(),
                                    action: AuditAction::MemberJoined,
                                    detail: format!(
                                        "{who} joined as {role} (invitation {} from {})",
                                        row.id, row.created_by
                                    ),
                                },
                            )?;
                            Ok(Accepted { org_name, role })
                        }
                    },
                    _ => Err(Refusal::InviteUnknown),
                };
                reply::<Org, domain::orgs::AcceptInvite>(&answer)
            }
            OrgCall::Access(Access { account }) => {
                let access = match Self::membership(&sql, account.as_str())? {
                    Some(m) => Some((m.role, Self::sealed(&sql)?)),
                    None => None,
                };
                reply::<Org, Access>(&access)
            }
            OrgCall::Keys(_) => reply::<Org, domain::orgs::Keys>(&Self::sealed(&sql)?),
            OrgCall::SetKey(SetKey { key }) => reply::<Org, SetKey>(&Self::set_key(&sql, key)?),
            OrgCall::MoveKey(m) => reply::<Org, MoveKey>(&Self::move_key(&sql, m)?),
            OrgCall::Reseal(Reseal { from, to }) => {
                for mut key in Self::keys(&sql)? {
                    if key.sealed == from {
                        key.sealed = to.clone();
                        Self::put_key(&sql, &key)?;
                    }
                }
                for mut secret in Self::webhook(&sql)? {
                    if secret.sealed == from {
                        secret.sealed = to.clone();
                        Self::put_secret(&sql, &secret)?;
                    }
                }
                reply::<Org, Reseal>(&())
            }
            OrgCall::SetWebhookSecret(SetWebhookSecret { secret }) => {
                Self::put_secret(&sql, &secret)?;
                Self::audit(
                    &sql,
                    secret.set_at,
                    AuditLine {
                        actor: secret.set_by.clone(),
                        action: AuditAction::WebhookSecretSet,
                        detail: format!(
                            "webhook secret ({}) set to {}",
                            secret.slot.as_str(),
                            secret.redacted
                        ),
                    },
                )?;
                reply::<Org, SetWebhookSecret>(&Self::webhook(&sql)?)
            }
            OrgCall::MoveWebhookSecret(m) => {
                reply::<Org, MoveWebhookSecret>(&Self::move_secret(&sql, m)?)
            }
            OrgCall::Record(domain::orgs::Record {
                account,
                action,
                detail,
                at,
            }) => {
                // Money committed by someone since removed is still written, by their account.
                let actor = match Self::membership(&sql, account.as_str())? {
                    Some(member) => member.actor(&account).label,
                    None => account.to_string(),
                };
                Self::audit(
                    &sql,
                    at,
                    AuditLine {
                        actor,
                        action,
                        detail,
                    },
                )?;
                reply::<Org, domain::orgs::Record>(&())
            }
            OrgCall::CreateToken(c) => reply::<Org, CreateToken>(&Self::create_token(&sql, c)?),
            OrgCall::Tokens(Tokens { owner }) => {
                reply::<Org, Tokens>(&Self::tokens(&sql, owner.as_ref())?)
            }
            OrgCall::RevokeToken(r) => reply::<Org, RevokeToken>(&Self::revoke_token(&sql, r)?),
            OrgCall::UseToken(u) => reply::<Org, UseToken>(&Self::use_token(&sql, u)?),
            OrgCall::Widget(_) => reply::<Org, domain::orgs::Widget>(&Self::widget(&sql)?),
            OrgCall::SetWidget(SetWidget { widget }) => {
                reply::<Org, SetWidget>(&Self::set_widget(&sql, widget)?)
            }
            OrgCall::SavedLists(_) => reply::<Org, domain::orgs::SavedLists>(&Self::saved(&sql)?),
            OrgCall::ChangeSaved(c) => reply::<Org, ChangeSaved>(&Self::change_saved(&sql, c)?),
            OrgCall::Audit(domain::orgs::Audit { before }) => {
                #[derive(Deserialize)]
                struct Row {
                    seq: u64,
                    at: u64,
                    actor: String,
                    action: String,
                    detail: String,
                }
                let rows: Vec<Row> = sql
                    .exec(
                        "SELECT seq, at, actor, action, detail FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT ?",
                        vec![
                            (before.unwrap_or(i64::MAX as u64).min(i64::MAX as u64) as i64).into(),
                            i64::from(AUDIT_PAGE).into(),
                        ],
                    )?
                    .to_array()?;
                let full = rows.len() == AUDIT_PAGE as usize;
                let entries: Vec<AuditEntry> = rows
                    .into_iter()
                    .filter_map(|r| {
                        Some(AuditEntry {
                            seq: r.seq,
                            at: r.at,
                            actor: r.actor,
                            action: AuditAction::from_name(&r.action)?,
                            detail: r.detail,
                        })
                    })
                    .collect();
                let next_before = if full {
                    entries.last().map(|e| e.seq)
                } else {
                    None
                };
                reply::<Org, domain::orgs::Audit>(&AuditPage {
                    entries,
                    next_before,
                })
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
