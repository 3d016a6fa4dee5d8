//! Forwarding a v1 call: who calls, may they, is the budget there, then
//! upstream once through the one path (`call`; purchases through their
//! records, `purchases`).

use crate::access::principal;
use crate::context::Cx;
use crate::error::EdgeError;
use crate::upstream;
use api::labels::{BuyLabelRequest, Label, LabelDetails, REFERENCE_HEADER, VoidStatus};
use api::validation::MAX_BODY_BYTES;
use api::{ApiKey, Endpoint, EndpointId, KeyEnv};
use domain::access::AccessError;
use domain::access::gate::{self, Principal};
use domain::access::roles::WIDGET_SCOPES;
use domain::config::Config;
use domain::errors::BadBody;
use domain::errors::Failure;
use domain::objects::Ask;
use domain::orgs::wire::Record;
use domain::orgs::{Named, object_name};
use domain::upstream::StoredResponse;
use domain::upstream::budget::{Caller, with_budgets};
use domain::upstream::proxy::{self, Forward};
use domain::webhooks::{self, InboxStore, RecordPurchase, RecordVoid, offers};
use domain::widget::{cors, quotes, shoppers};
use platform::objects::ask;
use platform::reply;
use platform::send::Reading;
use platform::{Trace, capped_body, header, now_s};
use sha2::{Digest, Sha256};
use worker::Env;
use worker::web_sys::{Request, Response};

/// A widget's CORS preflight: only configured origins, only widget endpoints.
pub(crate) fn preflight(cx: &Cx<'_>, endpoint: &Endpoint) -> Result<Response, EdgeError> {
    let (config, facts) = (&*cx.config, &cx.facts);
    let origin = facts
        .origin
        .and_then(|o| gate::widget_origin(config, o))
        .filter(|_| WIDGET_SCOPES.contains(&endpoint.scope))
        .ok_or_else(|| AccessError::OriginRefused {
            origin: facts.origin.unwrap_or("a page that sent no Origin").into(),
        })?;
    reply::empty(204, &cors::preflight_headers(origin, cors::WIDGET_CALL))
}

/// A v1 call (`/api/v1/...`), forwarded.
pub(crate) async fn forward(
    req: Request,
    cx: &mut Cx<'_>,
    forward: Forward,
) -> Result<Response, EdgeError> {
    let (env, config, facts) = (cx.env, &*cx.config, &cx.facts);
    let (request_id, trace) = (cx.request_id, &mut *cx.trace);
    let endpoint = forward.endpoint;
    let principal = principal(env, config, facts).await?;
    trace.caller(&principal);
    let widget = match &principal {
        Principal::Widget { origin } => Some(origin.clone()),
        Principal::User { .. } => None,
    };
    // CORS for the widget on a storefront's page, not for our framed widget page.
    let cors_origin = widget
        .clone()
        .filter(|o| facts.origin.is_some_and(|r| r.eq_ignore_ascii_case(o)));
    trace.cors_origin = cors_origin.clone();
    let mode = gate::require(&principal, config, &[endpoint.scope])?;

    let body = if facts.method == "GET" {
        vec![]
    } else {
        capped_body(&req, MAX_BODY_BYTES).await?
    };
    proxy::check_body(endpoint.id, &body)?;
    // The merchant's reference is ours, never the service's: checked
    // before anything is counted or bought, recorded with the label.
    let reference = match endpoint.id {
        EndpointId::BuyLabel => {
            webhooks::purchase_reference(header(&req, REFERENCE_HEADER).as_deref())
                .map_err(BadBody::Invalid)?
        }
        _ => None,
    };
    let now = now_s();
    let cors_headers = cors_origin
        .as_deref()
        .map(cors::response_headers)
        .unwrap_or_default();
    let caller = if widget.is_some() {
        // Each shopper (client IP) gets a per-minute count of its own, in
        // each organization's widget.
        let client = header(&req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into());
        let shopper = format!("{} {client}", config.org);
        shoppers::count(&shopper, config.widget.ip_per_minute, now)?;
        Caller::Widget
    } else {
        Caller::Dashboard
    };
    let quote_key = (widget.is_some() && endpoint.id == EndpointId::GetRates)
        .then(|| quote_key(config, mode, &body));
    if let Some((hit, age)) = quote_key.as_ref().and_then(|key| quotes::cached(key, now)) {
        trace.answered_from = Some("cached");
        let mut headers = cors_headers;
        headers.push(("Age", age.to_string()));
        return reply::respond(&hit, Some("cached"), &headers);
    }
    with_budgets(&config.org, |b| {
        b.check(mode, endpoint, caller, config.widget.share, now)
    })?;

    if endpoint.spends_money() {
        let purchase = crate::purchases::Purchase {
            forward: &forward,
            mode,
            body: &body,
            idempotency_key: header(&req, domain::purchases::HEADER),
        };
        let (stored, replayed) = purchase.run(env, config, request_id, trace).await?;
        if replayed {
            trace.answered_from = Some("replayed");
        } else {
            let bought = Bought {
                endpoint: endpoint.id,
                body: &body,
                reference,
            };
            record_purchase(env, config, &principal, bought, &stored).await;
        }
        return reply::respond(&stored, trace.answered_from, &cors_headers);
    }
    // What a person's quotes offered is held for their purchases; their
    // voids and label reads go to the ledger (after the answer); errors
    // teach scopes and key problems; quotes to cache are kept. Everything
    // else streams through like a bare proxy.
    let ledger = match &principal {
        Principal::User { session, .. } if ledger_reads(endpoint.id) => Some(session.org.clone()),
        _ => None,
    };
    let reading = if ledger.is_some() || quote_key.is_some() {
        Reading::Whole
    } else {
        Reading::Stream
    };
    let called = upstream::call(env, config, mode, &forward, &body, reading, trace).await?;
    if called.status < 400 && quote_key.is_none() && ledger.is_none() {
        return Ok(called.stream(&cors_headers));
    }
    // A person's quote is answered from the bytes read; what it offered is
    // held (a purchase of it is a later request).
    if let Some(org) = ledger.as_ref()
        && endpoint.id == EndpointId::GetRates
        && called.status < 300
        && quote_key.is_none()
    {
        let (answer, kept) = called.answer_keeping(&cors_headers).await?;
        if let Ok(text) = String::from_utf8(kept) {
            offers::hold(org, body, text, now_s());
        }
        return Ok(answer);
    }
    let stored = called.read(env).await?;
    if let Some(org) = ledger {
        record_for_ledger(env, &org, endpoint.id, &forward, body, &stored, trace);
    }
    if let Some(k) = quote_key {
        quotes::cache(
            k,
            stored.clone(),
            config.widget.quote_cache_seconds,
            now_s(),
        );
    }
    reply::respond(&stored, None, &cors_headers)
}

/// The forwarded calls whose answers the ledger learns from: the rates
/// offered (what a purchase chose from, held here until it is bought), a
/// void and a label read that shows one confirmed.
fn ledger_reads(endpoint: EndpointId) -> bool {
    matches!(
        endpoint,
        EndpointId::GetRates | EndpointId::VoidLabel | EndpointId::GetLabel
    )
}

/// Holds what a quote with some carriers down offered in this isolate (a
/// full one is held as it streams, in `forward`), for the purchase record
/// of the rate bought from it (`offers`: the ledger is not asked); sends
/// what a void or label read teaches to the organization's ledger after
/// the answer (`Trace::after`): the caller never waits for it, and a
/// failure only costs the ledger that detail.
fn record_for_ledger(
    env: &Env,
    org: &api::orgs::OrgId,
    endpoint: EndpointId,
    forward: &Forward,
    body: Vec<u8>,
    stored: &StoredResponse,
    trace: &mut Trace,
) {
    // A quote with some carriers down still offers the others' rates.
    let quoted = stored.status < 300 || stored.status == 503;
    match endpoint {
        EndpointId::GetRates if quoted => offers::hold(org, body, stored.body.clone(), now_s()),
        // A void asked for, or a label read that shows it confirmed.
        EndpointId::VoidLabel | EndpointId::GetLabel if stored.status < 300 => {
            let confirmed = endpoint == EndpointId::GetLabel;
            let voided = || {
                serde_json::from_str::<LabelDetails>(&stored.body)
                    .is_ok_and(|d| d.void_status == VoidStatus::Voided)
            };
            if !confirmed || voided() {
                let id = label_id(&forward.url);
                let name = object_name(org, Named::Inbox);
                later(env, name, RecordVoid { id, confirmed }, trace);
            }
        }
        _ => {}
    }
}

/// `call` to the ledger once the answer is sent.
fn later<A: Ask<InboxStore> + 'static>(env: &Env, name: String, call: A, trace: &mut Trace) {
    let env = env.clone();
    trace.after.push(Box::pin(async move {
        if let Err(e) = ask::<InboxStore, A>(&env, &name, call).await {
            worker::console_error!("the ledger missed a void: {}", e.code());
        }
    }));
}

/// The label id of `{upstream}/v1/labels/{id}`.
fn label_id(url: &str) -> String {
    let path = url.split('?').next().unwrap_or_default();
    path.rsplit('/').next().unwrap_or_default().to_string()
}

/// A purchase as it was asked for: the endpoint, its body and the
/// merchant's reference.
struct Bought<'a> {
    endpoint: EndpointId,
    body: &'a [u8],
    reference: Option<String>,
}

/// A label bought here joins the ledger with its buyer, its reference, its
/// rate and what that rate's quote offered (when this isolate holds it),
/// and the audit log when it cost at least `AUDIT_PURCHASE_CENTS`. The
/// purchase stands whether or not this is recorded: its `label.created`
/// event adds it too.
async fn record_purchase(
    env: &Env,
    config: &Config,
    principal: &Principal,
    bought: Bought<'_>,
    stored: &StoredResponse,
) {
    let Principal::User { session, .. } = principal else {
        return;
    };
    if bought.endpoint != EndpointId::BuyLabel || stored.status >= 300 {
        return;
    }
    let call = RecordPurchase {
        label: stored.body.clone(),
        user: config.actor(&session.user).to_string(),
        offer: serde_json::from_slice::<BuyLabelRequest>(bought.body)
            .ok()
            .and_then(|r| offers::held(&session.org, &r.rate_id, now_s())),
        reference: bought.reference,
    };
    if let Err(e) = ask::<InboxStore, _>(env, &object_name(&session.org, Named::Inbox), call).await
    {
        worker::console_error!("a bought label missed the ledger: {}", e.code());
    }
    let large = serde_json::from_str::<Label>(&stored.body)
        .ok()
        .and_then(|label| Record::large_purchase(&label, config.audit.audit_purchase_cents));
    if let Some(large) = large {
        crate::accounts::record(env, session, &large).await;
    }
}

/// Identical widget quotes of one organization share a cache entry: its
/// id, the mode and the request as parsed (so spacing and field order do
/// not matter). Another organization's shopper never gets a quote made
/// with this organization's key.
fn quote_key(config: &Config, mode: KeyEnv, body: &[u8]) -> [u8; 32] {
    let canonical = serde_json::from_slice::<api::RatesRequest>(body)
        .ok()
        .and_then(|r| serde_json::to_vec(&r).ok())
        .unwrap_or_else(|| body.to_vec());
    let mut hash = Sha256::new();
    hash.update(config.org.as_str());
    hash.update("\n");
    hash.update(mode.as_str());
    hash.update(canonical);
    hash.finalize().into()
}

/// A v1 read the Worker makes for one of its own endpoints (a label's PDF),
/// with the same checks as a forwarded call: the user's scopes and the key's,
/// the budget, then the one upstream path. The answer is read; errors come
/// back as the upstream's envelope (status >= 400). Also gives the key it
/// used, for a follow-up call on the service's origin.
pub(crate) async fn read_for<'a>(
    env: &Env,
    config: &'a Config,
    principal: &Principal,
    forward: &Forward,
    trace: &mut Trace,
) -> Result<(StoredResponse, &'a ApiKey), EdgeError> {
    let endpoint = forward.endpoint;
    let mode = gate::require(principal, config, &[endpoint.scope])?;
    with_budgets(&config.org, |b| {
        b.check(
            mode,
            endpoint,
            Caller::Dashboard,
            config.widget.share,
            now_s(),
        )
    })?;
    let called = upstream::call(env, config, mode, forward, &[], Reading::Whole, trace).await?;
    let key = called.key;
    Ok((called.read(env).await?, key))
}
