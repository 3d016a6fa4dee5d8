//! The tracking page's routes and settings (docs/tracking.md): the page of
//! a shipment (`/t/{id}`), an order's lookup (`/track/{org}`) and the
//! page's brand (`/api/org/tracking`) are the ledger object's, passed
//! through as it answers them (it parses and checks the brand, so none of
//! that is in this Worker's wasm). A brand an admin set is audited here.

use api::Scope;
use api::orgs::{AuditAction, OrgId};
use domain::access::gate;
use domain::orgs::wire::Record;
use domain::orgs::{Named, OrgError, object_name};
use domain::tracking;
use platform::body_bytes;
use worker::web_sys::{Request, Response};

use crate::access::signed_in;
use crate::context::Cx;
use crate::error::EdgeError;

/// `GET /t/{id}`: a shipment's page.
pub(crate) async fn page(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (org, token) = tracking::parse_link(&cx.param).ok_or(OrgError::NotFound)?;
    let url = format!("{}{token}", tracking::PAGE_URL);
    cx.trace.principal = Some("shopper".into());
    Ok(to_inbox(cx, &org, &url, "GET", None).await?.into())
}

/// `GET /track/{org}?ref=&postcode=`: the lookup form, or an order's page.
pub(crate) async fn lookup(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let org = OrgId::parse(&cx.param).ok_or(OrgError::NotFound)?;
    let url = format!(
        "{}lookup?{}",
        tracking::PAGE_URL,
        cx.query.unwrap_or_default()
    );
    cx.trace.principal = Some("shopper".into());
    Ok(to_inbox(cx, &org, &url, "GET", None).await?.into())
}

/// `GET /api/org/tracking`: the page's brand (members who read labels).
pub(crate) async fn settings(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    gate::require(&principal, &*cx.config, &[Scope::LabelsRead])?;
    let org = cx.config.org.clone();
    Ok(to_inbox(cx, &org, tracking::SETTINGS_URL, "GET", None)
        .await?
        .into())
}

/// `PUT /api/org/tracking` (admins): the object checks and keeps the
/// brand; a kept one goes to the audit log.
pub(crate) async fn set_settings(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    let session = gate::require_admin(&principal, "change the tracking page")?;
    let body = String::from_utf8(body_bytes(&req).await).unwrap_or_default();
    let org = cx.config.org.clone();
    let resp = to_inbox(cx, &org, tracking::SETTINGS_URL, "PUT", Some(&body)).await?;
    if resp.status_code() == 200 {
        let record = Record {
            action: AuditAction::TrackingChanged,
            detail: "the tracking page's brand".into(),
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
