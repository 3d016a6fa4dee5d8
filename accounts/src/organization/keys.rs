//! The organization object's sealed secrets (`orgs::keys`): its v1 API
//! keys, a sandbox and a live one, and its webhook signing secrets, each
//! with a current and a next slot for rotation. Only sealed values are
//! stored (`orgs::sealing`); a master key rotation reseals them.

use api::orgs::AuditAction;
use api::session::KeySlot;
use worker::{Result, SqlStorage};

use super::{Organization, internal};
use domain::orgs::keys::{Sealed, StoredKey, StoredSecret};
use domain::orgs::{AuditLine, MoveKey, MoveWebhookSecret, Refusal, Reseal, SetLive};

impl Organization {
    pub(super) fn keys(sql: &SqlStorage) -> Result<Vec<StoredKey>> {
        Self::json_rows(sql, "SELECT json FROM keys ORDER BY mode, slot")
    }

    pub(super) fn webhook(sql: &SqlStorage) -> Result<Vec<StoredSecret>> {
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

    pub(super) fn sealed(sql: &SqlStorage) -> Result<Sealed> {
        Ok(Sealed {
            keys: Self::keys(sql)?,
            webhook: Self::webhook(sql)?,
            live: Self::live(sql)?,
            operators_switch_mode: Self::operators_switch_mode(sql)?,
        })
    }

    /// Whether live mode is on: no row, an organization made before the
    /// switch existed, which always had it.
    fn live(sql: &SqlStorage) -> Result<bool> {
        #[derive(serde::Deserialize)]
        struct Row {
            live: i64,
        }
        let rows: Vec<Row> = sql
            .exec("SELECT live FROM live_mode WHERE one = 1", None)?
            .to_array()?;
        Ok(rows.first().is_none_or(|r| r.live != 0))
    }

    pub(super) fn put_live(sql: &SqlStorage, on: bool) -> Result<()> {
        sql.exec(
            "INSERT OR REPLACE INTO live_mode (one, live) VALUES (1, ?)",
            vec![i64::from(on).into()],
        )?;
        Ok(())
    }

    pub(super) fn set_live(sql: &SqlStorage, s: SetLive) -> Result<bool> {
        if Self::live(sql)? != s.on {
            Self::put_live(sql, s.on)?;
            let detail = if s.on {
                "live mode turned on: real labels, charged to the wallet"
            } else {
                "live mode turned off: sandbox only"
            };
            Self::audit(
                sql,
                s.at,
                AuditLine {
                    actor: s.actor.label,
                    action: AuditAction::LiveModeChanged,
                    detail: detail.into(),
                },
            )?;
        }
        Self::live(sql)
    }

    pub(super) fn move_secret(
        sql: &SqlStorage,
        m: MoveWebhookSecret,
    ) -> Result<std::result::Result<Vec<StoredSecret>, Refusal>> {
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

    pub(super) fn set_key(sql: &SqlStorage, key: StoredKey) -> Result<Vec<StoredKey>> {
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

    pub(super) fn move_key(
        sql: &SqlStorage,
        m: MoveKey,
    ) -> Result<std::result::Result<Vec<StoredKey>, Refusal>> {
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

    /// Every value sealed as `from` sealed as `to` instead.
    pub(super) fn reseal(sql: &SqlStorage, Reseal { from, to }: Reseal) -> Result<()> {
        for mut key in Self::keys(sql)? {
            if key.sealed == from {
                key.sealed = to.clone();
                Self::put_key(sql, &key)?;
            }
        }
        for mut secret in Self::webhook(sql)? {
            if secret.sealed == from {
                secret.sealed = to.clone();
                Self::put_secret(sql, &secret)?;
            }
        }
        Ok(())
    }

    pub(super) fn set_secret(sql: &SqlStorage, secret: StoredSecret) -> Result<Vec<StoredSecret>> {
        Self::put_secret(sql, &secret)?;
        Self::audit(
            sql,
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
        Self::webhook(sql)
    }
}
