//! The inbox's writes: a verified `label.created` event, a purchase (with
//! what its quote offered), a batch job's labels, a void, a refused delivery.
//! A label is one row, whichever write comes first; the later ones add
//! their part to it.

use api::Label;
use api::inbox::{LiveMessage, RETAIN_REJECTED};
use api::insights::Offered;
use worker::{Result, SqlStorageValue};

use super::live::mode_tag;
use super::rows::{LABEL_COLUMNS, LabelRow, RejectedRow};
use super::{WebhookInbox, internal};
use api::RatesRequest;
use domain::tracking::page::postcode_key;
use domain::webhooks::ledger::{SHIPMENT_COLUMNS, shipment_columns};
use domain::webhooks::offers::{Destination, Offer};
use domain::webhooks::{
    AcceptEvent, Accepted, JobLabel, RecordJobLabels, RecordPurchase, RecordRefusal, RecordVoid,
};

/// The columns of `?1`..`?9` of both label writes.
const LABEL_WRITE: &str = "id, sandbox, seen_at, json, tracking, carrier, at, service, price";

/// `?1`..`?9` of both label writes: id, sandbox, seen_at, json, tracking,
/// carrier, at (the service's creation time when the label says, else
/// now), service, price.
fn label_values(label: &Label, now: u64) -> Result<Vec<SqlStorageValue>> {
    Ok(vec![
        label.id.as_str().into(),
        (label.sandbox as i32).into(),
        (now as f64).into(),
        serde_json::to_string(label).map_err(internal)?.into(),
        label.tracking_number.as_str().into(),
        label.carrier.as_str().into(),
        (label.created_at.unwrap_or(now) as f64).into(),
        label.service.as_str().into(),
        label.rate_cents.into(),
    ])
}

/// The destination's columns, after a write's others.
const DESTINATION: &str = "street, city, postcode, eta";
const DESTINATION_KEPT: &str = "street = coalesce(excluded.street, street), city = coalesce(excluded.city, city), \
     postcode = coalesce(excluded.postcode, postcode), eta = coalesce(excluded.eta, eta)";

/// Their values (the postcode as the lookup compares it), or NULLs.
fn destination(to: Option<&Destination>) -> [SqlStorageValue; 4] {
    match to {
        Some(d) => [
            d.street.as_str().into(),
            d.city.as_str().into(),
            postcode_key(&d.postcode).into(),
            d.eta.as_str().into(),
        ],
        None => std::array::from_fn(|_| SqlStorageValue::Null),
    }
}

/// A later write adds what it knows of the shipment, never erases it.
const SHIPMENT_KEPT: &str = "from_address = coalesce(excluded.from_address, from_address), \
     to_address = coalesce(excluded.to_address, to_address), parcel = coalesce(excluded.parcel, parcel)";

/// The shipment's columns' values ([`SHIPMENT_COLUMNS`]), or NULLs.
fn shipment(s: Option<&RatesRequest>) -> [SqlStorageValue; 3] {
    shipment_columns(s).map(|c| c.map_or(SqlStorageValue::Null, Into::into))
}

/// `?1, ?2, …, ?n`: one placeholder per value of a write.
fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn text<T: serde::Serialize>(value: &T) -> Result<String> {
    match serde_json::to_value(value).map_err(internal)? {
        serde_json::Value::String(s) => Ok(s),
        other => Ok(other.to_string()),
    }
}

impl WebhookInbox {
    pub(super) async fn accept(
        &self,
        AcceptEvent { label, slot }: AcceptEvent,
        now: u64,
    ) -> Result<Accepted> {
        let label: Label = serde_json::from_str(&label).map_err(internal)?;
        // Stored once per label: repeats only count and move the last time.
        let mut values = label_values(&label, now)?;
        values.push(text(&slot)?.into());
        let rows: Vec<LabelRow> = self
            .sql()
            .exec(
                &format!(
                    "INSERT INTO labels ({LABEL_WRITE}, deliveries, first_at, last_at, slot) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?3, ?3, ?10) \
                     ON CONFLICT(id) DO UPDATE SET deliveries = deliveries + 1, \
                     json = excluded.json, at = coalesce(json_extract(excluded.json, '$.created_at'), at), \
                     first_at = COALESCE(first_at, excluded.first_at), last_at = excluded.last_at, \
                     slot = COALESCE(slot, excluded.slot) RETURNING {LABEL_COLUMNS}"
                ),
                values,
            )?
            .to_array()?;
        let entry = rows
            .into_iter()
            .next()
            .and_then(LabelRow::entry)
            .ok_or_else(|| internal("the upsert returned no row"))?;
        self.index_label(&label.id)?;
        self.follow(&label.id, now).await?;
        let deliveries = entry.event.as_ref().map_or(0, |e| e.deliveries);
        self.broadcast(
            Some(mode_tag(label.sandbox)),
            &LiveMessage::Accepted { entry },
        );
        self.schedule_prune().await?;
        Ok(Accepted { deliveries })
    }

    pub(super) async fn bought(
        &self,
        RecordPurchase {
            label,
            user,
            offer,
            reference,
        }: RecordPurchase,
        now: u64,
    ) -> Result<()> {
        let label: Label = serde_json::from_str(&label).map_err(internal)?;
        // The event may have come first: then only the buyer, the
        // reference and what the quote offered are added.
        let mut values = label_values(&label, now)?;
        values.push(user.into());
        // Without the offer: NULLs, "offer not known" to insights.
        let column =
            |v: fn(&Offer) -> SqlStorageValue| offer.as_ref().map_or(SqlStorageValue::Null, v);
        values.extend([
            column(|o| o.carbon_grams.into()),
            column(|o| {
                o.recipient
                    .clone()
                    .map_or(SqlStorageValue::Null, Into::into)
            }),
            column(|o| o.offered.cheapest_cents.into()),
            column(|o| o.offered.cheapest_carbon_grams.into()),
            column(|o| o.offered.greenest_cents.into()),
            column(|o| o.offered.greenest_carbon_grams.into()),
        ]);
        values.extend(destination(
            offer.as_ref().and_then(|o| o.destination.as_ref()),
        ));
        values.push(reference.map_or(SqlStorageValue::Null, Into::into));
        values.extend(shipment(offer.as_ref().and_then(|o| o.shipment.as_deref())));
        self.sql().exec(
            &format!(
                "INSERT INTO labels ({LABEL_WRITE}, bought_by, carbon, recipient, \
                 cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon, {DESTINATION}, \
                 reference, {SHIPMENT_COLUMNS}) VALUES ({}) \
                 ON CONFLICT(id) DO UPDATE SET bought_by = excluded.bought_by, {DESTINATION_KEPT}, \
                 reference = coalesce(excluded.reference, reference), {SHIPMENT_KEPT}, \
                 carbon = coalesce(excluded.carbon, carbon), recipient = coalesce(excluded.recipient, recipient), \
                 cheapest_cents = coalesce(excluded.cheapest_cents, cheapest_cents), \
                 cheapest_carbon = coalesce(excluded.cheapest_carbon, cheapest_carbon), \
                 greenest_cents = coalesce(excluded.greenest_cents, greenest_cents), \
                 greenest_carbon = coalesce(excluded.greenest_carbon, greenest_carbon)",
                placeholders(values.len())
            ),
            values,
        )?;
        self.index_label(&label.id)?;
        self.follow(&label.id, now).await?;
        self.schedule_prune().await?;
        Ok(())
    }

    pub(super) async fn job_labels(
        &self,
        RecordJobLabels { job, user, labels }: RecordJobLabels,
        now: u64,
    ) -> Result<()> {
        for JobLabel {
            label,
            reference,
            recipient,
            carbon_grams,
            offered,
            destination: to,
            shipment: shipped,
        } in labels
        {
            let label: Label = serde_json::from_str(&label).map_err(internal)?;
            let mut values = label_values(&label, now)?;
            let offer = |v: fn(&Offered) -> i64| {
                offered
                    .as_ref()
                    .map_or(SqlStorageValue::Null, |o| v(o).into())
            };
            values.extend([
                user.as_str().into(),
                job.as_str().into(),
                reference.into(),
                recipient.into(),
                carbon_grams.into(),
                offer(|o| o.cheapest_cents),
                offer(|o| o.cheapest_carbon_grams),
                offer(|o| o.greenest_cents),
                offer(|o| o.greenest_carbon_grams),
            ]);
            values.extend(destination(to.as_ref()));
            values.extend(shipment(shipped.as_ref()));
            // Its event may have come first: it keeps the service's copy.
            self.sql().exec(
                &format!(
                    "INSERT INTO labels ({LABEL_WRITE}, bought_by, job, reference, recipient, carbon, \
                     cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon, {DESTINATION}, \
                     {SHIPMENT_COLUMNS}) VALUES ({}) \
                     ON CONFLICT(id) DO UPDATE SET bought_by = excluded.bought_by, job = excluded.job, {DESTINATION_KEPT}, \
                     {SHIPMENT_KEPT}, \
                     reference = excluded.reference, recipient = excluded.recipient, carbon = excluded.carbon, \
                     cheapest_cents = excluded.cheapest_cents, cheapest_carbon = excluded.cheapest_carbon, \
                     greenest_cents = excluded.greenest_cents, greenest_carbon = excluded.greenest_carbon",
                    placeholders(values.len())
                ),
                values,
            )?;
            self.index_label(&label.id)?;
            self.follow(&label.id, now).await?;
        }
        self.schedule_prune().await?;
        Ok(())
    }

    pub(super) fn void(&self, RecordVoid { id, confirmed }: RecordVoid) -> Result<()> {
        // A confirmed void refunds the label's price; a request
        // never undoes a confirmation.
        self.sql().exec(
            "UPDATE labels SET status = CASE WHEN ?2 THEN 'voided' ELSE 'void_requested' END, \
             refund = CASE WHEN ?2 THEN price ELSE 0 END WHERE id = ?1 AND status != 'voided'",
            vec![id.as_str().into(), (confirmed as i32).into()],
        )?;
        if confirmed {
            self.unfollow(&id)?;
        }
        Ok(())
    }

    pub(super) async fn reject(
        &self,
        RecordRefusal {
            reason,
            source_ip,
            excerpt,
            body_bytes,
        }: RecordRefusal,
        now: u64,
    ) -> Result<()> {
        let rows: Vec<RejectedRow> = self
            .sql()
            .exec(
                "INSERT INTO rejected (received_at, reason, source_ip, excerpt, body_bytes) VALUES (?, ?, ?, ?, ?) RETURNING *",
                vec![
                    (now as f64).into(),
                    text(&reason)?.into(),
                    source_ip.into(),
                    excerpt.into(),
                    (body_bytes as f64).into(),
                ],
            )?
            .to_array()?;
        if let Some(row) = rows.into_iter().next() {
            // Bounded at once, by the primary key: a flood of forgeries
            // keeps only the newest RETAIN_REJECTED rows.
            self.sql().exec(
                "DELETE FROM rejected WHERE id <= ?",
                vec![(row.id - f64::from(RETAIN_REJECTED)).into()],
            )?;
            if let Some(rejected) = row.rejected() {
                self.broadcast(None, &LiveMessage::Rejected { rejected });
            }
        }
        self.schedule_prune().await?;
        Ok(())
    }
}
