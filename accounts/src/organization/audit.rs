//! The organization object's audit log: written by each change in the
//! same run as the change, and by the main Worker's money decisions
//! (`Record`); read a page at a time, newest first.

use api::orgs::{AuditAction, AuditEntry, AuditPage};
use serde::Deserialize;
use worker::{Result, SqlStorage};

use super::Organization;
use domain::orgs::{AUDIT_PAGE, AuditLine, Record};

/// A time in an audit line's words: `2026-12-05 18:36 UTC`, never Unix seconds.
pub(super) fn when(at: u64) -> String {
    let iso = api::insights::iso_utc(at);
    format!("{} {} UTC", &iso[..10], &iso[11..16])
}

impl Organization {
    pub(super) fn audit(sql: &SqlStorage, at: u64, line: AuditLine) -> Result<()> {
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

    /// A money decision the main Worker saw the account make, by their
    /// label while they are a member.
    pub(super) fn record(sql: &SqlStorage, r: Record) -> Result<()> {
        // Money committed by someone since removed is still written, by their account.
        let actor = match Self::membership(sql, r.account.as_str())? {
            Some(member) => member.actor(&r.account).label,
            None => r.account.to_string(),
        };
        let line = AuditLine {
            actor,
            action: r.action,
            detail: r.detail,
        };
        Self::audit(sql, r.at, line)
    }

    /// The page of entries before `before` (from the newest without one).
    pub(super) fn audit_page(sql: &SqlStorage, before: Option<u64>) -> Result<AuditPage> {
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
        Ok(AuditPage {
            entries,
            next_before,
        })
    }
}
