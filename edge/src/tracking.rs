//! The tracking page's routes and settings (docs/tracking.md): the page of
//! a shipment (`/t/{id}`), an order's lookup (`/track/{org}`), the page's
//! brand (`/api/org/tracking`) and the shop's events
//! (`/api/org/tracking/events`) are the ledger object's, passed through as
//! it answers them (it parses and checks the settings, so none of that is
//! in this Worker's wasm). What an admin changed is audited here.

use api::orgs::{AuditAction, OrgId};
use api::{OwnId, Scope};
use domain::access::gate;
use domain::orgs::wire::Record;
use domain::orgs::{Named, OrgError, object_name};
use domain::tracking;
use domain::tracking::events::EVENTS_URL;
use platform::body_bytes;
use worker::web_sys::{Request, Response};

use crate::access::signed_in;
use crate::context::Cx;
use crate::error::EdgeError;

/// `GET /t/{id}` (a shipment's page), `GET /track/{org}?ref=&postcode=`
/// (the lookup form, or an order's page) and `GET /api/org/tracking` (the
/// page's brand, for members who read labels); `GET
/// /api/org/tracking/events` (admins).
pub(crate) async fn read(_req: Request, cx: &mut Cx<'_>, id: OwnId) -> Result<Response, EdgeError> {
    let (org, url) = match id {
        OwnId::TrackingPage => {
            let (org, token) = tracking::parse_link(&cx.param).ok_or(OrgError::NotFound)?;
            (org, format!("{}{token}", tracking::PAGE_URL))
        }
        OwnId::TrackingLookup => {
            let org = OrgId::parse(&cx.param).ok_or(OrgError::NotFound)?;
            let query = cx.query.unwrap_or_default();
            (org, format!("{}lookup?{query}", tracking::PAGE_URL))
        }
        _ => {
            let principal = signed_in(cx).await?;
            let url = if id == OwnId::TrackingEvents {
                gate::require_admin(&principal, "read the shop's tracking events")?;
                EVENTS_URL
            } else {
                gate::require(&principal, &*cx.config, &[Scope::LabelsRead])?;
                tracking::SETTINGS_URL
            };
            (cx.config.org.clone(), url.to_string())
        }
    };
    if !matches!(id, OwnId::TrackingSettings | OwnId::TrackingEvents) {
        cx.trace.principal = Some("shopper".into());
    }
    Ok(to_inbox(cx, &org, &url, "GET", None).await?.into())
}

/// `PUT /api/org/tracking` and `/api/org/tracking/events`, `POST
/// /api/org/tracking/events/{id}` (admins): the object checks and keeps
/// the settings, or sends an event again; what it did goes to the audit
/// log. The events' links are on this deployment's origin.
pub(crate) async fn write(req: Request, cx: &mut Cx<'_>, id: OwnId) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    let session = gate::require_admin(&principal, "change the tracking page")?;
    let body = String::from_utf8(body_bytes(&req).await).unwrap_or_default();
    let (url, method, detail) = match id {
        OwnId::SetTrackingSettings => (
            tracking::SETTINGS_URL.to_string(),
            "PUT",
            "the tracking page's brand",
        ),
        OwnId::SetTrackingEvents => {
            // `scheme://host[:port]`: the URL's first three `/` parts.
            let full = req.url();
            let end = full
                .match_indices('/')
                .nth(2)
                .map_or(full.len(), |(i, _)| i);
            (
                format!("{EVENTS_URL}?origin={}", &full[..end]),
                "PUT",
                "the shop's tracking events",
            )
        }
        _ => (
            format!("{EVENTS_URL}/{}", cx.param),
            "POST",
            "a tracking event sent again",
        ),
    };
    let org = cx.config.org.clone();
    let resp = to_inbox(cx, &org, &url, method, Some(&body)).await?;
    if resp.status_code() == 200 {
        let record = Record {
            action: AuditAction::TrackingChanged,
            detail: detail.into(),
        };
        crate::accounts::record(cx.env, session, &record).await;
    }
    Ok(resp.into())
}

/// One request to `org`'s ledger object, its answer as it came.
async fn to_inbox(
    cx: &Cx<'_>,
    org: &OrgId,
    url: &str,
    method: &str,
    body: Option<&str>,
) -> Result<worker::Response, EdgeError> {
    let name = object_name(org, Named::Inbox);
    crate::webhooks::inbox_request(cx.env, &name, url, method, cx.request_id, body).await
}
