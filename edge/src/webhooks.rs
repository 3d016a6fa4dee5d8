//! The webhook endpoint and the dashboard's inbox endpoints (`api::inbox`).
//! Verdicts come from `webhooks`; the store is the `WebhookInbox` object.

use crate::access::signed_in;
use crate::context::Cx;
use crate::error::EdgeError;
use api::inbox::{MAX_BODY_BYTES, RejectReason, VerifyRequest};
use api::orgs::OrgId;
use api::webhooks::SIGNATURE_HEADER;

use api::{KeyEnv, OwnId, Scope};
use domain::access::gate::{self, Principal};
use domain::config::Config;
use domain::errors::BadBody;
use domain::errors::RouteError;
use domain::errors::{Failure, Managed};
use domain::objects::Object;
use domain::orgs::OrgError;
use domain::routes::query_param;
use domain::upstream::StoredResponse;
use domain::webhooks;
use domain::webhooks::WebhookError;
use domain::webhooks::{AcceptEvent, InboxStore, ReadInbox, Receipt, RecordRefusal};
use platform::objects::{ask, new_request, stub, upgrade};
use platform::reply;
use platform::{Trace, body_bytes, header, json_body};
use worker::Env;
use worker::web_sys::{Request, Response};

/// `POST /hooks/v1/label-created`: the deployment's deliveries.
pub(crate) async fn receive(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    received(req, cx.env, &cx.config, cx.trace).await
}

/// `POST /hooks/v1/label-created/{org}`: with that organization's settings.
pub(crate) async fn receive_for_org(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let org = OrgId::parse(&cx.param).ok_or(OrgError::NotFound)?;
    let config = crate::accounts::org_settings(cx.env, &cx.config, org).await?;
    received(req, cx.env, &config, cx.trace).await
}

/// Verify with the secrets of `config`, store once in its inbox, answer fast.
async fn received(
    req: Request,
    env: &Env,
    config: &Config,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    trace.principal = Some("webhook".into());
    let managed = Managed::of(&config.org);
    if config.webhook.is_empty() {
        return Err(WebhookError::SecretMissing(managed).into());
    }
    let declared = header(&req, "Content-Length").and_then(|v| v.parse::<u64>().ok());
    let (body, body_len) = match declared {
        // Refused by its declared size, unread.
        Some(n) if n > MAX_BODY_BYTES as u64 => (Vec::new(), n),
        _ => {
            let body = body_bytes(&req).await;
            let len = body.len() as u64;
            (body, len)
        }
    };
    let verdict = if body_len > MAX_BODY_BYTES as u64 {
        Err(RejectReason::TooLarge)
    } else {
        let signature = header(&req, SIGNATURE_HEADER);
        webhooks::check(&config.webhook, &body, signature.as_deref())
    };
    match verdict {
        Ok((slot, label)) => {
            let call = AcceptEvent {
                label: serde_json::to_string(&label).map_err(|_| WebhookError::InboxUnavailable)?,
                slot,
            };
            let accepted = ask::<InboxStore, _>(env, &inbox_of(config), call).await?;
            reply::json(
                200,
                &Receipt {
                    received: true,
                    label_id: &label.id,
                    deliveries: accepted.deliveries,
                },
                &[],
            )
        }
        Err(reason) => {
            let call = RecordRefusal {
                reason,
                source_ip: header(&req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into()),
                excerpt: webhooks::excerpt(&body),
                body_bytes: body_len,
            };
            // The refusal stands even if it could not be recorded.
            if let Err(e) = ask::<InboxStore, _>(env, &inbox_of(config), call).await {
                worker::console_error!("a refused delivery was not recorded: {}", e.code());
            }
            Err(WebhookError::Refused(reason, managed).into())
        }
    }
}

/// The inbox endpoints need the read scope of labels, like the upstream's
/// own delivery log, and show the session's mode only.
/// The organization's inbox.
fn inbox_of(config: &Config) -> String {
    domain::orgs::object_name(&config.org, domain::orgs::Named::Inbox)
}

fn readable(principal: &Principal, config: &Config) -> Result<KeyEnv, EdgeError> {
    gate::require(principal, config, &[Scope::LabelsRead]).map_err(EdgeError::from)
}

/// A dashboard read of the inbox or the ledger: the signed-in caller's
/// readable mode (`labels:read`, like the upstream's own delivery log).
async fn reader(cx: &mut Cx<'_>) -> Result<(Principal, KeyEnv), EdgeError> {
    let principal = signed_in(cx).await?;
    let mode = readable(&principal, &cx.config)?;
    Ok((principal, mode))
}

/// `GET /api/webhooks/inbox`: the session's mode's deliveries and refusals.
pub(crate) async fn inbox(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = reader(cx).await?;
    let query = cx.query;
    let state = query_param(query, "state");
    let call = ReadInbox {
        sandbox: mode == KeyEnv::Sandbox,
        needle: webhooks::search_needle(query_param(query, "q").as_deref()),
        accepted: state.as_deref() != Some("rejected"),
        rejected: state.as_deref() != Some("accepted"),
    };
    let mut inbox = ask::<InboxStore, _>(cx.env, &inbox_of(&cx.config), call).await?;
    inbox.receiving = !cx.config.webhook.is_empty();
    reply::json(200, &inbox, &[])
}

/// `POST /api/webhooks/verify`: does a pasted delivery verify with the secrets?
pub(crate) async fn verify(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    reader(cx).await?;
    let pasted: VerifyRequest = json_body(&req, 2 * MAX_BODY_BYTES).await?;
    reply::json(
        200,
        &webhooks::verify_pasted(&cx.config.webhook, &pasted),
        &[],
    )
}

/// The ledger's reads: `GET /api/insights` (the session's mode), the
/// label history `GET /api/ledger/history`, one label's record `GET
/// /api/ledger/label`, `GET /api/shipments` (the labels as their trackers
/// were last read; the ledger Worker follows them) and `GET
/// /api/ledger/export.csv`, of the mode `?mode=` asks for. The object
/// parses the query; the CSV streams through, page by page, never held
/// whole here; the others are read whole first (`buffered`).
pub(crate) async fn ledger_read(
    _req: Request,
    cx: &mut Cx<'_>,
    id: OwnId,
) -> Result<Response, EdgeError> {
    let (principal, mode) = reader(cx).await?;
    let kind = match id {
        OwnId::Insights => "insights",
        OwnId::LabelHistory => "history",
        OwnId::LabelRecord => "label",
        OwnId::Shipments => "shipments",
        _ => "export",
    };
    let mode = if id == OwnId::Insights {
        mode
    } else {
        asked_mode(&principal, &cx.config, mode, cx.query)?
    };
    let resp = read(cx.env, &cx.config, kind, mode, cx.query, cx.request_id).await?;
    if kind == "export" {
        return Ok(resp.into());
    }
    buffered(resp).await
}

/// `GET /api/webhooks/live`: the inbox keeps the feed's socket, tagged
/// with the session's mode.
pub(crate) async fn live(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = reader(cx).await?;
    // A cross-site page must not open the feed with our cookie.
    gate::require_own_origin(&cx.facts)?;
    if !header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
        return Err(RouteError::UpgradeRequired.into());
    }
    upgrade::<InboxStore>(
        cx.env,
        &inbox_of(&cx.config),
        &format!("{}?mode={mode}", domain::webhooks::LIVE_URL),
    )
    .await
    .map_err(EdgeError::from)
}

/// The mode a history or export asks for (`?mode=`), once the principal
/// may read that mode's labels; without it, the session's.
fn asked_mode(
    principal: &Principal,
    config: &Config,
    session_mode: KeyEnv,
    query: Option<&str>,
) -> Result<KeyEnv, EdgeError> {
    let asked =
        api::insights::mode_param(&|name| query_param(query, name)).map_err(BadBody::Invalid)?;
    match asked {
        Some(mode) if mode != session_mode => {
            gate::require_in(principal, config, mode, &[Scope::LabelsRead]).map_err(EdgeError::from)
        }
        _ => Ok(session_mode),
    }
}

/// A JSON answer read whole before it is passed on: a body that fails or
/// comes empty mid-way (seen while deliveries were landing in the object)
/// is the envelope's 503, never a 200 the app cannot read. A refusal (the
/// envelope of a bad query, with its request id) passes as it is.
async fn buffered(mut resp: worker::Response) -> Result<Response, EdgeError> {
    let status = resp.status_code();
    if status != 200 {
        return Ok(resp.into());
    }
    let body = resp.text().await.unwrap_or_default();
    if body.is_empty() {
        worker::console_error!("durable object {}: an empty answer", InboxStore::BINDING);
        return Err(InboxStore::unavailable().into());
    }
    let headers = vec![("content-type".to_string(), "application/json".to_string())];
    reply::respond(
        &StoredResponse {
            status,
            headers,
            body,
        },
        None,
        &[],
    )
}

/// Insights, a history page or the CSV export: the object parses the
/// client's query and answers (a bad query with the envelope).
async fn read(
    env: &Env,
    config: &Config,
    kind: &str,
    mode: KeyEnv,
    query: Option<&str>,
    request_id: &str,
) -> Result<worker::Response, EdgeError> {
    let url = format!(
        "{}{kind}/{mode}?{}",
        domain::webhooks::READ_URL,
        query.unwrap_or_default()
    );
    inbox_request(env, &inbox_of(config), &url, "GET", request_id, None).await
}

/// One request to the inbox object `name` at `url` (its own URL space),
/// naming the request for the envelopes it makes: its answer as it came,
/// a 5xx as the object's unavailability.
pub(crate) async fn inbox_request(
    env: &Env,
    name: &str,
    url: &str,
    method: &str,
    request_id: &str,
    body: Option<&str>,
) -> Result<worker::Response, EdgeError> {
    let stub = stub::<InboxStore>(env, name)?;
    let headers = [(domain::webhooks::REQUEST_ID_HEADER, request_id)];
    let req = new_request(url, method, &headers, body).ok_or_else(InboxStore::unavailable)?;
    let resp = stub.fetch_with_request(req).await.map_err(|e| {
        worker::console_error!("durable object {}: {e}", InboxStore::BINDING);
        InboxStore::unavailable()
    })?;
    if resp.status_code() >= 500 {
        return Err(InboxStore::unavailable().into());
    }
    Ok(resp)
}
