//! The organization object's one row saying whether operators may switch
//! between live and sandbox; each change with its audit line.

use api::orgs::AuditAction;
use worker::{Result, SqlStorage};

use super::Organization;
use domain::orgs::{AuditLine, SetModeSwitch};

impl Organization {
    /// No row: off, as in a new organization.
    pub(super) fn operators_switch_mode(sql: &SqlStorage) -> Result<bool> {
        #[derive(serde::Deserialize)]
        struct Row {
            operators: i64,
        }
        let rows: Vec<Row> = sql
            .exec("SELECT operators FROM mode_switch WHERE one = 1", None)?
            .to_array()?;
        Ok(rows.first().is_some_and(|r| r.operators != 0))
    }

    pub(super) fn set_mode_switch(sql: &SqlStorage, s: SetModeSwitch) -> Result<bool> {
        if Self::operators_switch_mode(sql)? != s.operators {
            sql.exec(
                "INSERT OR REPLACE INTO mode_switch (one, operators) VALUES (1, ?)",
                vec![i64::from(s.operators).into()],
            )?;
            let detail = if s.operators {
                "operators may switch between live and sandbox"
            } else {
                "only admins may switch between live and sandbox"
            };
            Self::audit(
                sql,
                s.at,
                AuditLine {
                    actor: s.actor.label,
                    action: AuditAction::ModeSwitchChanged,
                    detail: detail.into(),
                },
            )?;
        }
        Self::operators_switch_mode(sql)
    }
}
