//! The webhook endpoint and the dashboard's inbox endpoints (`api::inbox`).
//! Verdicts come from `webhooks`; the store is the `WebhookInbox` object.

use super::{Trace, body_bytes, header, json_body, stores, upstream, with_memory};
use crate::config::Config;
use crate::errors::EdgeError;
use crate::gate::{self, Facts, Principal};
use crate::routes::{Route, query_param};
use crate::webhooks::{self, Accepted, InboxCall, Receipt};
use api::inbox::{Inbox, Ledger, MAX_BODY_BYTES, RejectReason, VerifyRequest};
use api::webhooks::SIGNATURE_HEADER;
use api::{KeyEnv, Scope};
use worker::Env;
use worker::web_sys::{Request, Response};

/// `POST /hooks/v1/label-created`: verify, store once, answer fast.
pub(crate) async fn receive(
    req: Request,
    env: &Env,
    config: &Config,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    trace.principal = Some("webhook".into());
    if config.webhook.is_empty() {
        return Err(EdgeError::WebhookSecretMissing);
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
            let accepted: Accepted = stores::inbox(
                env,
                &InboxCall::Accept {
                    label: label.clone(),
                    slot,
                },
            )
            .await?;
            upstream::json(
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
            let call = InboxCall::Reject {
                reason,
                source_ip: header(&req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into()),
                excerpt: webhooks::excerpt(&body),
                body_bytes: body_len,
            };
            // The refusal stands even if it could not be recorded.
            let _: Result<(), EdgeError> = stores::inbox(env, &call).await;
            Err(EdgeError::WebhookRefused(reason))
        }
    }
}

/// The inbox endpoints need the read scope of labels, like the upstream's
/// own delivery log, and show the session's mode only.
fn readable(principal: &Principal, config: &Config) -> Result<KeyEnv, EdgeError> {
    let mode = principal.mode(config);
    let keys = config.keys_for(mode);
    let key_scopes = with_memory(|m| m.key_scopes(mode, &keys.scopes).to_vec());
    gate::require_scope(principal, Scope::LabelsRead, config, &key_scopes)?;
    Ok(mode)
}

pub(crate) async fn handle(
    route: Route,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    principal: &Principal,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let mode = readable(principal, config)?;
    let sandbox = mode == KeyEnv::Sandbox;
    let needle = webhooks::search_needle(query_param(query, "q").as_deref());
    match route {
        Route::Ledger => {
            let ledger: Ledger = stores::inbox(env, &InboxCall::Ledger { sandbox, needle }).await?;
            upstream::json(200, &ledger, &[])
        }
        Route::Inbox => {
            let state = query_param(query, "state");
            let mut inbox: Inbox = stores::inbox(
                env,
                &InboxCall::Inbox {
                    sandbox,
                    needle,
                    accepted: state.as_deref() != Some("rejected"),
                    rejected: state.as_deref() != Some("accepted"),
                },
            )
            .await?;
            inbox.receiving = !config.webhook.is_empty();
            upstream::json(200, &inbox, &[])
        }
        Route::VerifyWebhook => {
            let pasted: VerifyRequest = json_body(&req, 2 * MAX_BODY_BYTES).await?;
            upstream::json(200, &webhooks::verify_pasted(&config.webhook, &pasted), &[])
        }
        Route::Live => {
            // A cross-site page must not open the feed with our cookie.
            gate::require_own_origin(facts)?;
            if !header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
                return Err(EdgeError::UpgradeRequired);
            }
            stores::inbox_live(env, mode).await
        }
        _ => unreachable!("routed in glue::handle"),
    }
}
