//! The organization object's storefront widget settings: one row, each
//! change with its audit line saying what changed.

use api::orgs::AuditAction;
use worker::{Result, SqlStorage};

use super::{Organization, internal};
use domain::orgs::AuditLine;
use domain::orgs::widget::StoredWidget;

impl Organization {
    pub(super) fn widget(sql: &SqlStorage) -> Result<Option<StoredWidget>> {
        Ok(Self::json_rows(sql, "SELECT json FROM widget")?.pop())
    }

    pub(super) fn set_widget(sql: &SqlStorage, widget: StoredWidget) -> Result<StoredWidget> {
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
}
