//! The organization object's password reset links: one per member (a new
//! one replaces the earlier), only its token's hash stored, each made and
//! each used with its audit line; whether one is usable is `orgs::rules`.

use api::orgs::AuditAction;
use serde::Deserialize;
use worker::{Result, SqlStorage};

use super::{Organization, label};
use domain::orgs::rules::{self, ResetFacts};
use domain::orgs::{AuditLine, CreateReset, PreviewReset, Refusal, ResetFor, UseReset};

/// The table (in `Organization::sql`'s list).
pub(super) const DDL: &str = "CREATE TABLE IF NOT EXISTS resets (account TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created_by TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER)";

#[derive(Deserialize)]
struct ResetRow {
    account: String,
    created_by: String,
    expires_at: u64,
    used_at: Option<u64>,
}

impl ResetRow {
    fn facts(&self) -> ResetFacts {
        ResetFacts {
            expires_at: self.expires_at,
            used: self.used_at.is_some(),
        }
    }
}

impl Organization {
    /// The link of `token_hash` and whom it resets, if usable at `at` and
    /// its member still is one.
    fn reset_of(
        sql: &SqlStorage,
        token_hash: &str,
        at: u64,
    ) -> Result<std::result::Result<(ResetRow, ResetFor), Refusal>> {
        let rows: Vec<ResetRow> = sql
            .exec(
                "SELECT account, created_by, expires_at, used_at FROM resets WHERE token_hash = ?",
                vec![token_hash.into()],
            )?
            .to_array()?;
        let row = rows.into_iter().next();
        if let Err(refusal) = rules::reset_usable(row.as_ref().map(ResetRow::facts), at) {
            return Ok(Err(refusal));
        }
        let Some(row) = row else {
            return Ok(Err(Refusal::ResetUnknown));
        };
        // Removed since: the link went with the membership.
        let (Some(member), Some(account)) = (
            Self::membership(sql, &row.account)?,
            api::orgs::AccountId::parse(&row.account),
        ) else {
            return Ok(Err(Refusal::ResetUnknown));
        };
        let found = ResetFor {
            org_name: member.org_name,
            account,
            name: member.name,
            email: member.email,
            role: member.role,
            expires_at: row.expires_at,
        };
        Ok(Ok((row, found)))
    }

    pub(super) fn create_reset(
        sql: &SqlStorage,
        c: CreateReset,
    ) -> Result<std::result::Result<(), Refusal>> {
        let Some(member) = Self::membership(sql, c.account.as_str())? else {
            return Ok(Err(Refusal::NoSuchMember));
        };
        sql.exec(
            "INSERT OR REPLACE INTO resets (account, token_hash, created_by, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, NULL)",
            vec![
                c.account.as_str().into(),
                c.token_hash.into(),
                c.actor.label.clone().into(),
                (c.at as i64).into(),
                (c.expires_at as i64).into(),
            ],
        )?;
        Self::audit(
            sql,
            c.at,
            AuditLine {
                actor: c.actor.label,
                action: AuditAction::ResetLinkCreated,
                detail: format!(
                    "password reset link for {}, expires {}",
                    label(&member.name, &member.email),
                    super::audit::when(c.expires_at)
                ),
            },
        )?;
        Ok(Ok(()))
    }

    pub(super) fn preview_reset(
        sql: &SqlStorage,
        p: PreviewReset,
    ) -> Result<std::result::Result<ResetFor, Refusal>> {
        Ok(Self::reset_of(sql, &p.token_hash, p.at)?.map(|(_, found)| found))
    }

    /// Uses the link up before the Worker sets the password: a link
    /// answers one use, even two at once.
    pub(super) fn use_reset(
        sql: &SqlStorage,
        u: UseReset,
    ) -> Result<std::result::Result<ResetFor, Refusal>> {
        let (row, found) = match Self::reset_of(sql, &u.token_hash, u.at)? {
            Ok(usable) => usable,
            Err(refusal) => return Ok(Err(refusal)),
        };
        sql.exec(
            "UPDATE resets SET used_at = ? WHERE account = ?",
            vec![(u.at as i64).into(), row.account.clone().into()],
        )?;
        let who = label(&found.name, &found.email);
        Self::audit(
            sql,
            u.at,
            AuditLine {
                actor: who.clone(),
                action: AuditAction::PasswordReset,
                detail: format!(
                    "{who} set a new password with the reset link from {}",
                    row.created_by
                ),
            },
        )?;
        Ok(Ok(found))
    }
}
