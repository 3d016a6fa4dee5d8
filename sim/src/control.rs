//! `/__sim`: the control surface for tests and demos. Never part of `/v1`,
//! no key needed; it binds to loopback by default.

use std::sync::Arc;

use std::collections::{BTreeMap, HashMap};

use api::{AutoReload, CardState, ENDPOINTS, EndpointId, ErrorCode, KeyEnv, Scope};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::Sim;
use crate::body::JsonBody;
use crate::clock::random_hex;
use crate::errors::SimError;
use crate::world::{DEFAULT_ACCOUNT, Faults, KeyRecord};

type Reply = Result<Response, SimError>;

fn not_found(what: &str) -> SimError {
    SimError::new(
        ErrorCode::SimControlNotFound,
        format!("{what} does not exist."),
        "Check the id.",
    )
}

pub async fn reset(State(sim): State<Arc<Sim>>) -> Reply {
    sim.world().reset();
    sim.clock.reset();
    Ok(Json(json!({"reset": true, "now": sim.clock.now()})).into_response())
}

#[derive(Deserialize)]
pub struct NewKey {
    env: KeyEnv,
    scopes: Vec<Scope>,
    expires_at: Option<u64>,
    account: Option<String>,
    /// For load benchmarks only: the key is never refused for its limit.
    #[serde(default)]
    unlimited: bool,
    /// Per-endpoint limits for this key, e.g. `{"POST /v1/rates": 6000}`.
    #[serde(default)]
    limits: BTreeMap<String, serde_json::Value>,
}

/// Largest per-endpoint limit a test key may have.
const MAX_LIMIT_OVERRIDE: u64 = 1_000_000;

/// `"METHOD /pattern": n` → the endpoint and its limit, exactly as the table
/// writes the endpoint (`POST /v1/batches/{id}/buy`), n from 1 to 1,000,000.
fn limit_overrides(
    limits: &BTreeMap<String, serde_json::Value>,
) -> Result<HashMap<EndpointId, u32>, SimError> {
    let mut out = HashMap::new();
    for (name, value) in limits {
        let field = format!("limits.{name}");
        let endpoint = ENDPOINTS
            .iter()
            .find(|e| format!("{} {}", e.method.as_str(), e.pattern) == *name)
            .ok_or_else(|| {
                SimError::new(
                    ErrorCode::SimControlInvalid,
                    format!("{name} is not a v1 endpoint."),
                    "Name endpoints as the table does: METHOD and path pattern, e.g. \"POST /v1/rates\" or \"GET /v1/batches/{id}\".",
                )
                .field(&field)
            })?;
        let limit = value
            .as_u64()
            .filter(|n| (1..=MAX_LIMIT_OVERRIDE).contains(n))
            .ok_or_else(|| {
                SimError::new(
                    ErrorCode::SimControlInvalid,
                    format!("The limit for {name} must be a whole number from 1 to {MAX_LIMIT_OVERRIDE}; it is {value}."),
                    "Give a positive number of requests per minute.",
                )
                .field(&field)
            })?;
        out.insert(endpoint.id, limit as u32);
    }
    Ok(out)
}

pub async fn create_key(State(sim): State<Arc<Sim>>, JsonBody(req): JsonBody<NewKey>) -> Reply {
    let limits = limit_overrides(&req.limits)?;
    let key = format!("{}{}", req.env.prefix(), random_hex(16));
    let account = req.account.unwrap_or_else(|| DEFAULT_ACCOUNT.to_string());
    sim.world().add_key(
        key.clone(),
        KeyRecord {
            env: req.env,
            account: account.clone(),
            scopes: req.scopes.clone(),
            expires_at: req.expires_at,
            revoked: false,
            unlimited: req.unlimited,
            limits,
            calls: 0,
        },
    );
    let body = json!({"key": key, "account": account, "env": req.env, "scopes": req.scopes, "expires_at": req.expires_at, "limits": req.limits});
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// What the simulator saw of a key: its account and how many requests presented it.
pub async fn get_key(State(sim): State<Arc<Sim>>, Path(key): Path<String>) -> Reply {
    let world = sim.world();
    let record = world.key(&key).ok_or_else(|| not_found("That key"))?;
    let body = json!({"account": record.account, "env": record.env, "revoked": record.revoked, "calls": record.calls});
    Ok(Json(body).into_response())
}

pub async fn revoke_key(State(sim): State<Arc<Sim>>, Path(key): Path<String>) -> Reply {
    if !sim.world().revoke_key(&key) {
        return Err(not_found("That key"));
    }
    Ok(Json(json!({"revoked": true})).into_response())
}

#[derive(Deserialize)]
pub struct Advance {
    seconds: u64,
}

pub async fn advance_clock(State(sim): State<Arc<Sim>>, JsonBody(req): JsonBody<Advance>) -> Reply {
    if req.seconds > crate::clock::Clock::MAX_ADVANCE_SECONDS {
        return Err(SimError::invalid(
            "seconds",
            "must be at most 315360000 (ten years) per call",
        ));
    }
    let now = sim.clock.advance(req.seconds);
    sim.world().tick(now);
    sim.deliveries_changed.notify_one();
    Ok(Json(json!({"now": now})).into_response())
}

#[derive(Deserialize)]
pub struct SetClock {
    now: u64,
}

/// Moves the simulated clock anywhere, back included: labels bought then
/// carry that time, for a history spread over past days. What was made
/// at a later time keeps it (a rate quoted "later" expires then), and
/// deliveries already queued wait until the clock reaches them again.
pub async fn set_clock(State(sim): State<Arc<Sim>>, JsonBody(req): JsonBody<SetClock>) -> Reply {
    // Not before 2001 nor past 2100: a typo, not a history.
    if !(1_000_000_000..=4_102_444_800).contains(&req.now) {
        return Err(SimError::invalid(
            "now",
            "must be unix seconds from 1000000000 (2001) to 4102444800 (2100)",
        ));
    }
    let now = sim.clock.set(req.now);
    sim.world().tick(now);
    sim.deliveries_changed.notify_one();
    Ok(Json(json!({"now": now})).into_response())
}

#[derive(Deserialize)]
pub struct LabelSums {
    env: KeyEnv,
    since: u64,
    until: u64,
}

/// What the account's labels of one mode made in `since..until` cost,
/// per carrier (voids confirmed by then refunded): the totals a test
/// compares a dashboard's against.
pub async fn label_sums(
    State(sim): State<Arc<Sim>>,
    Path(account): Path<String>,
    axum::extract::Query(req): axum::extract::Query<LabelSums>,
) -> Reply {
    let now = sim.clock.now();
    let sums = sim
        .world()
        .label_sums(&account, req.env, req.since..req.until, now);
    Ok(Json(sums).into_response())
}

#[derive(Deserialize)]
pub struct Freeze {
    frozen: bool,
}

/// Stops the simulated clock (only `advance` moves it then) or restarts it.
pub async fn freeze_clock(State(sim): State<Arc<Sim>>, JsonBody(req): JsonBody<Freeze>) -> Reply {
    let now = sim.clock.freeze(req.frozen);
    Ok(Json(json!({"now": now, "frozen": req.frozen})).into_response())
}

#[derive(Deserialize)]
pub struct WalletSettings {
    balance_cents: i64,
    card: CardState,
    auto_reload: Option<AutoReload>,
}

pub async fn set_wallet(
    State(sim): State<Arc<Sim>>,
    Path(account): Path<String>,
    JsonBody(req): JsonBody<WalletSettings>,
) -> Reply {
    const MAX_CENTS: i64 = 1_000_000_000_000; // $10 billion: far beyond any demo
    if !(0..=MAX_CENTS).contains(&req.balance_cents) {
        return Err(SimError::invalid(
            "balance_cents",
            "must be from 0 to 1000000000000",
        ));
    }
    if let Some(r) = req.auto_reload {
        if !(1..=MAX_CENTS).contains(&r.amount_cents) {
            return Err(SimError::invalid(
                "auto_reload.amount_cents",
                "must be from 1 to 1000000000000",
            ));
        }
        if !(0..=MAX_CENTS).contains(&r.threshold_cents) {
            return Err(SimError::invalid(
                "auto_reload.threshold_cents",
                "must be from 0 to 1000000000000",
            ));
        }
    }
    sim.world()
        .set_wallet(&account, req.balance_cents, req.card, req.auto_reload);
    Ok(Json(json!({"account": account, "balance_cents": req.balance_cents, "card": req.card, "auto_reload": req.auto_reload})).into_response())
}

/// A read of the account's state without spending a key's limit.
pub async fn get_account(State(sim): State<Arc<Sim>>, Path(account): Path<String>) -> Reply {
    let summary = sim.world().account_summary(&account, sim.clock.now());
    Ok(Json(summary).into_response())
}

#[derive(Deserialize)]
pub struct WebhookSettings {
    url: String,
    secret: String,
}

pub async fn set_webhook(
    State(sim): State<Arc<Sim>>,
    Path(account): Path<String>,
    JsonBody(req): JsonBody<WebhookSettings>,
) -> Reply {
    if !req.url.starts_with("http://") {
        return Err(SimError::invalid(
            "url",
            "the simulator delivers to http:// URLs only",
        ));
    }
    sim.world()
        .set_webhook(&account, req.url.clone(), req.secret);
    Ok(Json(json!({"account": account, "url": req.url})).into_response())
}

#[derive(Deserialize)]
pub struct NewCarrierAccount {
    carrier: String,
    description: Option<String>,
    #[serde(default)]
    invalid_credentials: bool,
}

pub async fn connect_carrier_account(
    State(sim): State<Arc<Sim>>,
    Path(account): Path<String>,
    JsonBody(req): JsonBody<NewCarrierAccount>,
) -> Reply {
    let Some(carrier) = crate::pricing::CARRIERS
        .iter()
        .find(|c| c.eq_ignore_ascii_case(&req.carrier))
    else {
        return Err(SimError::invalid(
            "carrier",
            &format!("must be one of {}", crate::pricing::CARRIERS.join(", ")),
        ));
    };
    let now = sim.clock.now();
    let record = sim.world().connect_carrier_account(
        &account,
        carrier,
        req.description,
        req.invalid_credentials,
        now,
    );
    Ok((StatusCode::CREATED, Json(record)).into_response())
}

#[derive(Deserialize)]
pub struct CarrierAccountChange {
    invalid_credentials: Option<bool>,
    connected: Option<bool>,
}

/// Makes a connected account's credentials invalid (or valid again), or disconnects it.
pub async fn update_carrier_account(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<CarrierAccountChange>,
) -> Reply {
    let mut world = sim.world();
    let record = world
        .update_carrier_account(&id, req.invalid_credentials, req.connected)
        .ok_or_else(|| not_found("That carrier account"))?;
    Ok(
        Json(json!({"id": id, "status": record.account.status, "connected": record.connected}))
            .into_response(),
    )
}

pub async fn scan_label(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Reply {
    let now = sim.clock.now();
    let scanned_at = sim
        .world()
        .scan_label(&id, now)
        .ok_or_else(|| not_found("That label"))?;
    Ok(Json(json!({"id": id, "scanned_at": scanned_at})).into_response())
}

pub async fn set_faults(State(sim): State<Arc<Sim>>, JsonBody(faults): JsonBody<Faults>) -> Reply {
    if faults.latency_ms > 60_000 {
        return Err(SimError::invalid("latency_ms", "must be at most 60000"));
    }
    for (i, name) in faults.latency_endpoints.iter().enumerate() {
        if !api::ENDPOINTS
            .iter()
            .any(|e| *name == format!("{} {}", e.method.as_str(), e.pattern))
        {
            return Err(SimError::invalid(
                &format!("latency_endpoints[{i}]"),
                "must name an endpoint as METHOD /pattern, e.g. POST /v1/batches",
            ));
        }
    }
    sim.world().set_faults(faults.clone());
    Ok(Json(faults).into_response())
}
