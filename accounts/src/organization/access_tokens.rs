//! The organization object's personal access tokens (`api::access_tokens`):
//! only their hashes, each with its audit line in the same run.

use api::access_tokens::AccessToken;
use api::orgs::{AccountId, AuditAction};
use api::session::Role;
use serde::Deserialize;
use worker::{Result, SqlStorage};

use super::{Organization, label};
use domain::orgs::{AuditLine, CreateToken, Refusal, RevokeToken, UseToken, rules};

pub(super) const DDL: &str = "CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, account TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, last_used_at INTEGER, last_four TEXT NOT NULL)";

/// A token with its owner (removing a member deletes their tokens, so
/// every token has one).
const SELECT: &str = "SELECT t.id, t.name, t.account, m.name AS owner_name, m.email AS owner_email, t.created_at, t.expires_at, t.last_used_at, t.last_four FROM tokens t JOIN members m ON m.account = t.account";
const NEWEST_FIRST: &str = "ORDER BY t.created_at DESC, t.id";

#[derive(Deserialize)]
struct TokenRow {
    id: String,
    name: String,
    account: String,
    owner_name: String,
    owner_email: String,
    created_at: u64,
    expires_at: u64,
    last_used_at: Option<u64>,
    last_four: String,
}

impl TokenRow {
    fn token(&self) -> Option<AccessToken> {
        Some(AccessToken {
            id: self.id.clone(),
            name: self.name.clone(),
            account: AccountId::parse(&self.account)?,
            owner: label(&self.owner_name, &self.owner_email),
            created_at: self.created_at,
            expires_at: self.expires_at,
            last_used_at: self.last_used_at,
            last_four: self.last_four.clone(),
        })
    }
}

impl Organization {
    /// `owner`'s tokens, or everyone's.
    pub(super) fn tokens(sql: &SqlStorage, owner: Option<&AccountId>) -> Result<Vec<AccessToken>> {
        let rows: Vec<TokenRow> = match owner {
            Some(owner) => sql.exec(
                &format!("{SELECT} WHERE t.account = ? {NEWEST_FIRST}"),
                vec![owner.as_str().into()],
            )?,
            None => sql.exec(&format!("{SELECT} {NEWEST_FIRST}"), None)?,
        }
        .to_array()?;
        Ok(rows.iter().filter_map(TokenRow::token).collect())
    }

    /// The new token, if its owner is (still) a member.
    pub(super) fn create_token(sql: &SqlStorage, c: CreateToken) -> Result<Option<AccessToken>> {
        if Self::membership(sql, c.account.as_str())?.is_none() {
            return Ok(None);
        }
        sql.exec(
            "INSERT INTO tokens (id, token_hash, account, name, created_at, expires_at, last_four) VALUES (?, ?, ?, ?, ?, ?, ?)",
            vec![
                c.id.clone().into(),
                c.token_hash.into(),
                c.account.as_str().into(),
                c.name.clone().into(),
                (c.at as i64).into(),
                (c.expires_at as i64).into(),
                c.last_four.clone().into(),
            ],
        )?;
        Self::audit(
            sql,
            c.at,
            AuditLine {
                actor: c.actor.label,
                action: AuditAction::TokenCreated,
                detail: format!(
                    "access token {} \"{}\" (…{}), expires {}",
                    c.id,
                    c.name,
                    c.last_four,
                    super::audit::when(c.expires_at)
                ),
            },
        )?;
        Ok(Self::tokens(sql, Some(&c.account))?
            .into_iter()
            .find(|t| t.id == c.id))
    }

    pub(super) fn revoke_token(
        sql: &SqlStorage,
        r: RevokeToken,
    ) -> Result<std::result::Result<Vec<AccessToken>, Refusal>> {
        let visible = Self::tokens(sql, r.owner.as_ref())?;
        let Some(token) = visible.iter().find(|t| t.id == r.id) else {
            return Ok(Err(Refusal::TokenUnknown));
        };
        sql.exec("DELETE FROM tokens WHERE id = ?", vec![r.id.clone().into()])?;
        Self::audit(
            sql,
            r.at,
            AuditLine {
                actor: r.actor.label,
                action: AuditAction::TokenRevoked,
                detail: format!(
                    "access token {} \"{}\" (…{}) of {} revoked",
                    token.id, token.name, token.last_four, token.owner
                ),
            },
        )?;
        Ok(Ok(Self::tokens(sql, r.owner.as_ref())?))
    }

    pub(super) fn use_token(sql: &SqlStorage, u: UseToken) -> Result<Option<(AccountId, Role)>> {
        #[derive(Deserialize)]
        struct Row {
            id: String,
            account: String,
            expires_at: u64,
        }
        let rows: Vec<Row> = sql
            .exec(
                "SELECT id, account, expires_at FROM tokens WHERE token_hash = ?",
                vec![u.token_hash.into()],
            )?
            .to_array()?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let owner = Self::membership(sql, &row.account)?.map(|m| m.role);
        let (Some(role), Some(account)) = (
            rules::token_role(row.expires_at, owner, u.at),
            AccountId::parse(&row.account),
        ) else {
            return Ok(None);
        };
        sql.exec(
            "UPDATE tokens SET last_used_at = ? WHERE id = ?",
            vec![(u.at as i64).into(), row.id.clone().into()],
        )?;
        sql.exec(
            "UPDATE members SET last_sign_in = ? WHERE account = ?",
            vec![(u.at as i64).into(), row.account.clone().into()],
        )?;
        Ok(Some((account, role)))
    }
}
