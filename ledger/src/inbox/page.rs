//! The shoppers' tracking page (`domain::tracking::PAGE_URL`, passed
//! through by the main Worker): a shipment by its link's token, or an
//! order by its reference and destination postcode, rendered by
//! `domain::tracking::page` in the brand an admin set. A view asks for a
//! fresh read of trackers not read in the last seconds (the alarm makes
//! it, within the trackers' share). An object nothing was written to
//! answers every page with the same miss and makes no tables.

use api::TrackerStatus;
use api::shipments::Brand;
use api::validation::BodyError;
use domain::errors::BadBody;
use domain::routes::query_param;
use domain::tracking::page::{self, LOOKUP_TRIES_PER_HOUR, Page, Parcel, Recipient, postcode_key};
use domain::tracking::{READ_ON_VIEW_AFTER, READ_ON_VIEW_AFTER_SETTING, read_on_view_after};
use serde::Deserialize;
use worker::{Method, Request, Response, Result};

use super::{WebhookInbox, internal, json, now, refused};

/// The columns a page reads of a label and its follow row.
const PAGE_COLUMNS: &str = "l.id, l.carrier, l.service, l.tracking, l.reference, l.recipient, l.street, \
     l.city, l.carbon, coalesce(f.estimated, l.eta) AS estimated, f.status, f.events";

#[derive(Deserialize)]
struct PageRow {
    id: String,
    carrier: String,
    service: String,
    tracking: String,
    reference: Option<String>,
    recipient: Option<String>,
    street: Option<String>,
    city: Option<String>,
    carbon: Option<f64>,
    estimated: Option<String>,
    status: Option<String>,
    events: Option<String>,
}

#[derive(Deserialize)]
struct Count {
    n: f64,
}

impl PageRow {
    fn parcel(&self) -> Parcel {
        Parcel {
            carrier: self.carrier.clone(),
            service: self.service.clone(),
            tracking_number: self.tracking.clone(),
            status: self.status.as_deref().and_then(TrackerStatus::from_name),
            events: self
                .events
                .as_deref()
                .and_then(|e| serde_json::from_str(e).ok())
                .unwrap_or_default(),
            estimated: self.estimated.clone(),
            carbon_grams: self.carbon.map(|c| c as i64),
        }
    }
}

/// The page's answer: HTML that loads nothing but its own inline style
/// and the brand's logo.
fn html(status: u16, body: String) -> Result<Response> {
    let mut response = Response::from_html(body)?.with_status(status);
    let headers = response.headers_mut();
    for (name, value) in [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src https:; form-action 'self'; \
             base-uri 'none'; frame-ancestors 'none'",
        ),
    ] {
        headers.set(name, value)?;
    }
    Ok(response)
}

impl WebhookInbox {
    /// `GET` the brand (`null` until an admin sets one), or `PUT` one:
    /// parsed strictly and checked, the envelope naming a bad field.
    pub(super) async fn brand_settings(&self, mut req: Request) -> Result<Response> {
        self.tables()?;
        if req.method() == Method::Put {
            let body = req.bytes().await?;
            let checked = api::validation::parse_json::<Brand>(&body).and_then(|brand| {
                page::check_brand(&brand)
                    .map(|()| brand)
                    .map_err(|(field, reason)| BodyError::Invalid {
                        field: field.into(),
                        reason: reason.into(),
                    })
            });
            match checked {
                Ok(brand) => {
                    self.put_value("brand", &serde_json::to_string(&brand).map_err(internal)?)?
                }
                Err(e) => return refused(&BadBody::Invalid(e), &req),
            }
        }
        json(&self.brand()?)
    }

    fn brand(&self) -> Result<Option<Brand>> {
        Ok(self
            .value("brand")?
            .and_then(|b| serde_json::from_str(&b).ok()))
    }

    /// Whether anything was ever written here (without making the tables).
    fn written(&self) -> Result<bool> {
        let found: Vec<Count> = self
            .sql()
            .exec(
                "SELECT count(*) AS n FROM sqlite_master WHERE name = 'tracking_state'",
                None,
            )?
            .to_array()?;
        Ok(found.first().is_some_and(|c| c.n > 0.0))
    }

    /// `{token}` or `lookup?ref=&postcode=`.
    pub(super) async fn page(&self, rest: &str) -> Result<Response> {
        let now = now();
        let written = self.written()?;
        if written {
            self.tables()?;
        }
        let brand = match written {
            true => self.brand()?,
            false => None,
        }
        .unwrap_or_else(|| Brand {
            name: "Order tracking".into(),
            ..Brand::default()
        });
        let today = page::day_of(now);
        let missed = || html(404, page::lookup(&brand, true));
        if let Some(query) = rest.strip_prefix("lookup") {
            let query = query.strip_prefix('?');
            let (Some(reference), Some(postcode)) = (
                query_param(query, "ref").filter(|r| !r.trim().is_empty()),
                query_param(query, "postcode").filter(|p| !p.trim().is_empty()),
            ) else {
                return html(200, page::lookup(&brand, false));
            };
            if !written {
                return missed();
            }
            let reference = reference.trim().to_string();
            if self.failed_lookups(&reference, now)? >= LOOKUP_TRIES_PER_HOUR {
                return missed();
            }
            let rows: Vec<PageRow> = self
                .sql()
                .exec(
                    &format!(
                        "SELECT {PAGE_COLUMNS} FROM labels l JOIN follows f ON f.label = l.id \
                         WHERE l.reference = ? AND l.postcode = ? ORDER BY l.at, l.id LIMIT 20"
                    ),
                    vec![reference.as_str().into(), postcode_key(&postcode).into()],
                )?
                .to_array()?;
            let Some(first) = rows.first() else {
                self.sql().exec(
                    "INSERT INTO lookups (ref, at) VALUES (?, ?)",
                    vec![reference.as_str().into(), (now as f64).into()],
                )?;
                return missed();
            };
            let recipient = Recipient {
                name: first.recipient.clone().unwrap_or_default(),
                street: first.street.clone().unwrap_or_default(),
                city: first.city.clone().unwrap_or_default(),
            };
            let shown = Page {
                reference: Some(reference),
                recipient: Some(recipient),
                parcels: rows.iter().map(PageRow::parcel).collect(),
            };
            self.read_soon(&rows, now).await?;
            return html(200, page::render(&brand, &shown, &today));
        }
        if !written {
            return missed();
        }
        let rows: Vec<PageRow> = self
            .sql()
            .exec(
                &format!(
                    "SELECT {PAGE_COLUMNS} FROM labels l JOIN follows f ON f.label = l.id WHERE f.token = ?"
                ),
                vec![rest.into()],
            )?
            .to_array()?;
        let Some(row) = rows.first() else {
            return missed();
        };
        let shown = Page {
            reference: row.reference.clone(),
            recipient: None,
            parcels: vec![row.parcel()],
        };
        self.read_soon(&rows, now).await?;
        html(200, page::render(&brand, &shown, &today))
    }

    fn failed_lookups(&self, reference: &str, now: u64) -> Result<u32> {
        let counted: Vec<Count> = self
            .sql()
            .exec(
                "SELECT count(*) AS n FROM lookups WHERE ref = ? AND at > ?",
                vec![reference.into(), (now.saturating_sub(3600) as f64).into()],
            )?
            .to_array()?;
        Ok(counted.first().map_or(0, |c| c.n as u32))
    }

    /// The trackers of the parcels shown, read again soon if their last
    /// read is older than `READ_ON_VIEW_AFTER` (or the deployment's setting).
    async fn read_soon(&self, rows: &[PageRow], now: u64) -> Result<()> {
        let setting = self
            .env
            .var(READ_ON_VIEW_AFTER_SETTING)
            .ok()
            .map(|v| v.to_string());
        let after = read_on_view_after(setting).unwrap_or_else(|e| {
            worker::console_error!(
                "tracking: {} is invalid ({}); a view reads after {READ_ON_VIEW_AFTER} s",
                e.setting,
                e.problem
            );
            READ_ON_VIEW_AFTER
        });
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        let ids = serde_json::to_string(&ids).map_err(internal)?;
        let moved: Vec<serde::de::IgnoredAny> = self
            .sql()
            .exec(
                "UPDATE follows SET due = ?1 WHERE label IN (SELECT value FROM json_each(?2)) \
             AND registering = 0 AND due > ?1 AND coalesce(read_at, 0) <= ?3 RETURNING label",
                vec![
                    (now as f64).into(),
                    ids.into(),
                    (now.saturating_sub(after) as f64).into(),
                ],
            )?
            .to_array()?;
        // A view of fresh trackers costs no alarm.
        if !moved.is_empty() {
            self.wake(now).await?;
        }
        Ok(())
    }
}
