//! The organization object's saved addresses and package presets: one row
//! (`presets::Saved`), changed by `presets::apply`, each change with its
//! audit line.

use worker::{Result, SqlStorage};

use super::{Organization, internal};
use domain::orgs::ChangeSaved;
use domain::orgs::presets::{self, Saved};

impl Organization {
    pub(super) fn saved(sql: &SqlStorage) -> Result<Saved> {
        Ok(Self::json_rows(sql, "SELECT json FROM saved")?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    /// A change and its audit line, together; a refused one changes nothing.
    pub(super) fn change_saved(
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
}
