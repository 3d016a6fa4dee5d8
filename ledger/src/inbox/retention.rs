//! How long the inbox keeps what it stores (`api::inbox`'s limits): a
//! write sets an alarm a minute ahead (when none is set), which prunes
//! labels past their age or count (with their search trigrams and shop
//! events), offered
//! rates past their use and refused deliveries past their age.

use std::time::Duration;

use api::inbox::{RETAIN_LABELS, RETAIN_REJECTED_SECONDS, RETAIN_SECONDS};
use serde::Deserialize;
use worker::{Result, SqlStorageValue};

use super::{WebhookInbox, now};

/// How often stored rows are pruned to the retention limits.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// How long an offered rate is kept: v1's 15 minutes and some.
const QUOTE_SECONDS: u64 = 20 * 60;

impl WebhookInbox {
    pub(super) async fn schedule_prune(&self) -> Result<()> {
        if self.prune_set.get() {
            return Ok(());
        }
        let storage = self.state.storage();
        if storage.get_alarm().await?.is_none() {
            storage.set_alarm(PRUNE_EVERY).await?;
        }
        self.prune_set.set(true);
        Ok(())
    }

    /// The alarm's work: what is past the limits goes.
    pub(super) fn prune(&self) -> Result<()> {
        self.prune_set.set(false);
        self.tables()?;
        let sql = self.sql();
        let now = now();
        // Labels past the retention go with their search trigrams: those
        // older than it (a range of `labels_at` in each mode), then, past
        // the row limit, the oldest (sorted only when there are too many).
        #[derive(Deserialize)]
        struct Count {
            n: f64,
        }
        let count: Vec<Count> = sql
            .exec("SELECT count(*) AS n FROM labels", None)?
            .to_array()?;
        let over = count.first().map_or(0, |c| c.n as i64) - i64::from(RETAIN_LABELS);
        let old = if over > 0 {
            "SELECT rowid FROM labels WHERE sandbox IN (0, 1) AND at < ?1 \
             UNION SELECT rowid FROM (SELECT rowid FROM labels ORDER BY at LIMIT ?2)"
        } else {
            "SELECT rowid FROM labels WHERE sandbox IN (0, 1) AND at < ?1 AND ?2 = 0"
        };
        let bounds = || -> Vec<SqlStorageValue> {
            vec![
                (now.saturating_sub(RETAIN_SECONDS) as f64).into(),
                over.max(0).into(),
            ]
        };
        sql.exec(
            &format!("DELETE FROM label_search WHERE rowid IN ({old})"),
            bounds(),
        )?;
        sql.exec(
            &format!(
                "DELETE FROM shop_events WHERE label IN (SELECT id FROM labels WHERE rowid IN ({old}))"
            ),
            bounds(),
        )?;
        sql.exec(
            &format!(
                "DELETE FROM follows WHERE label IN (SELECT id FROM labels WHERE rowid IN ({old}))"
            ),
            bounds(),
        )?;
        sql.exec(
            &format!("DELETE FROM labels WHERE rowid IN ({old})"),
            bounds(),
        )?;
        sql.exec(
            "DELETE FROM quotes WHERE at < ?",
            vec![(now.saturating_sub(QUOTE_SECONDS) as f64).into()],
        )?;
        sql.exec(
            "DELETE FROM lookups WHERE at < ?",
            vec![(now.saturating_sub(3600) as f64).into()],
        )?;
        sql.exec(
            "DELETE FROM rejected WHERE received_at < ?",
            vec![(now.saturating_sub(RETAIN_REJECTED_SECONDS) as f64).into()],
        )?;
        Ok(())
    }
}
