//! The webhook endpoint and the dashboard's inbox endpoints (`api::inbox`).
//! Verdicts come from `webhooks`; the store is the `WebhookInbox` object.

use crate::access::signed_in;
use crate::error::EdgeError;
use api::inbox::{MAX_BODY_BYTES, RejectReason, VerifyRequest};
use api::webhooks::SIGNATURE_HEADER;
use api::{KeyEnv, Scope};
use domain::access::gate::{self, Facts, Principal};
use domain::config::Config;
use domain::errors::BadBody;
use domain::errors::Failure;
use domain::errors::RouteError;
use domain::objects::Object;
use domain::routes::{InboxRoute, WebhooksRoute, query_param};
use domain::upstream::StoredResponse;
use domain::webhooks;
use domain::webhooks::WebhookError;
use domain::webhooks::{AcceptEvent, InboxStore, ReadInbox, Receipt, RecordRefusal};
use platform::objects::{ask, new_request, stub, upgrade};
use platform::reply;
use platform::{Trace, body_bytes, header, json_body};
use worker::Env;
use worker::web_sys::{Request, Response};

/// `POST /hooks/v1/label-created` (the deployment's) or
/// `…/label-created/{org}` (with that organization's settings): verify
/// with its secrets, store once in its inbox, answer fast.
pub(crate) async fn receive(
    req: Request,
    env: &Env,
    config: &Config,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    trace.principal = Some("webhook".into());
    if config.webhook.is_empty() {
        return Err(WebhookError::SecretMissing.into());
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
            let accepted = ask::<InboxStore, _>(env, &inbox(config), call).await?;
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
            if let Err(e) = ask::<InboxStore, _>(env, &inbox(config), call).await {
                worker::console_error!("a refused delivery was not recorded: {}", e.code());
            }
            Err(WebhookError::Refused(reason).into())
        }
    }
}

/// The inbox endpoints need the read scope of labels, like the upstream's
/// own delivery log, and show the session's mode only.
/// The organization's inbox.
fn inbox(config: &Config) -> String {
    domain::orgs::object_name(&config.org, domain::orgs::Named::Inbox)
}

fn readable(principal: &Principal, config: &Config) -> Result<KeyEnv, EdgeError> {
    gate::require(principal, config, &[Scope::LabelsRead]).map_err(EdgeError::from)
}

#[allow(clippy::too_many_arguments)]
pub(crate) async fn handle(
    route: WebhooksRoute,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    query: Option<&str>,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let route = match route {
        WebhooksRoute::Receive => return receive(req, env, config, trace).await,
        WebhooksRoute::Dashboard(route) => route,
    };
    let principal = signed_in(env, config, facts, trace).await?;
    let mode = readable(&principal, config)?;
    let sandbox = mode == KeyEnv::Sandbox;
    let needle = webhooks::search_needle(query_param(query, "q").as_deref());
    match route {
        InboxRoute::Inbox => {
            let state = query_param(query, "state");
            let call = ReadInbox {
                sandbox,
                needle,
                accepted: state.as_deref() != Some("rejected"),
                rejected: state.as_deref() != Some("accepted"),
            };
            let mut inbox = ask::<InboxStore, _>(env, &inbox(config), call).await?;
            inbox.receiving = !config.webhook.is_empty();
            reply::json(200, &inbox, &[])
        }
        InboxRoute::Verify => {
            let pasted: VerifyRequest = json_body(&req, 2 * MAX_BODY_BYTES).await?;
            reply::json(200, &webhooks::verify_pasted(&config.webhook, &pasted), &[])
        }
        InboxRoute::Insights => {
            let resp = read(env, config, "insights", mode, query, request_id).await?;
            buffered(resp).await
        }
        InboxRoute::History => {
            let mode = asked_mode(&principal, config, mode, query)?;
            let resp = read(env, config, "history", mode, query, request_id).await?;
            buffered(resp).await
        }
        InboxRoute::Export => {
            let mode = asked_mode(&principal, config, mode, query)?;
            // The CSV streams through, page by page, never held whole here.
            Ok(read(env, config, "export", mode, query, request_id)
                .await?
                .into())
        }
        InboxRoute::Live => {
            // A cross-site page must not open the feed with our cookie.
            gate::require_own_origin(facts)?;
            if !header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
                return Err(RouteError::UpgradeRequired.into());
            }
            live(env, config, mode).await
        }
    }
}

/// The inbox keeps the feed's socket, tagged with the session's mode.
async fn live(env: &Env, config: &Config, mode: KeyEnv) -> Result<Response, EdgeError> {
    upgrade::<InboxStore>(
        env,
        &inbox(config),
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
    let stub = stub::<InboxStore>(env, &inbox(config))?;
    let url = format!(
        "{}{kind}/{mode}?{}",
        domain::webhooks::READ_URL,
        query.unwrap_or_default()
    );
    let req = new_request(
        &url,
        "GET",
        &[(domain::webhooks::REQUEST_ID_HEADER, request_id)],
        None,
    )
    .ok_or_else(InboxStore::unavailable)?;
    let resp = stub.fetch_with_request(req).await.map_err(|e| {
        worker::console_error!("durable object {}: {e}", InboxStore::BINDING);
        InboxStore::unavailable()
    })?;
    if resp.status_code() >= 500 {
        return Err(InboxStore::unavailable().into());
    }
    Ok(resp)
}
