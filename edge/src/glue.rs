//! The thin layer between workerd and the plain modules: read the request,
//! ask `config`/`proxy`/`idempotency` what to do, do the fetches, and turn
//! every failure into the v1 envelope (an `Err` out of the fetch handler
//! would be a plain-text 500).

use crate::config::Config;
use crate::errors::EdgeError;
use crate::idempotency::{self, Begin, StoredResponse};
use crate::ledger::{BeginCall, FinishCall};
use crate::log::RequestLog;
use crate::proxy::{self, Forward};
use api::KeyEnv;
use api::validation::MAX_BODY_BYTES;
use futures_util::future::Either;
use std::time::Duration;
use worker::{
    AbortController, Context, Delay, Env, Fetch, Headers, Method, Request, RequestInit, Response,
    Stub, event, wasm_bindgen::JsValue,
};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// What one request did, for its log line.
#[derive(Default)]
struct Trace {
    route: Option<&'static str>,
    upstream_status: Option<u16>,
    upstream_request_id: Option<String>,
    upstream_ms: Option<u64>,
    replayed: bool,
}

fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let started = now_ms();
    let request_id = new_request_id();
    let method = req.method().to_string();
    let mut trace = Trace::default();
    let result = handle(req, &env, &request_id, &mut trace).await;
    let error = result.as_ref().err().map(|e| e.code());
    let response = match result {
        Ok(resp) => Ok(resp),
        Err(err) => error_response(&err, &request_id),
    };
    let line = RequestLog {
        request_id: &request_id,
        method: &method,
        route: trace.route.unwrap_or("(none)"),
        principal: "anonymous",
        status: response.as_ref().map(|r| r.status_code()).unwrap_or(500),
        upstream_status: trace.upstream_status,
        upstream_request_id: trace.upstream_request_id.as_deref(),
        upstream_ms: trace.upstream_ms,
        total_ms: now_ms().saturating_sub(started),
        idempotency: trace.replayed.then_some("replayed"),
        error,
    };
    worker::console_log!("{}", line.to_line());
    response
}

async fn handle(
    mut req: Request,
    env: &Env,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let config = Config::from_lookup(|name| env.var(name).ok().map(|v| v.to_string()))?;
    let url = req
        .url()
        .map_err(|_| EdgeError::RouteNotFound { path: req.path() })?;
    let method = req.method().to_string();
    let forward = proxy::plan(&method, url.path(), url.query(), &config.upstream)?;
    trace.route = Some(forward.endpoint.pattern);
    let body = if method == "GET" {
        vec![]
    } else {
        read_body(&mut req).await?
    };
    proxy::check_body(forward.endpoint.id, &body)?;
    let key = config.active_key();

    if !forward.endpoint.spends_money() {
        return to_response(
            send_upstream(
                &forward,
                &method,
                key.expose(),
                &body,
                config.upstream_timeout_ms,
                trace,
            )
            .await?,
            false,
        );
    }
    // Purchases go through the idempotency ledger: never twice upstream.
    let idem_key = idempotency::check_key(
        req.headers()
            .get(idempotency::HEADER)
            .ok()
            .flatten()
            .as_deref(),
    )?
    .to_string();
    let ledger = ledger_stub(env, key.env(), &idem_key)?;
    let fingerprint = idempotency::fingerprint(&method, url.path(), &body);
    let decision: Begin = ledger_call(
        &ledger,
        "begin",
        &BeginCall {
            fingerprint: fingerprint.clone(),
        },
    )
    .await?;
    match decision {
        Begin::Replay { response } => {
            trace.replayed = true;
            to_response(response, true)
        }
        Begin::InProgress => Err(EdgeError::IdempotencyInProgress),
        Begin::KeyReused => Err(EdgeError::IdempotencyKeyReused),
        Begin::OutcomeUnknown => Err(EdgeError::UpstreamUnreachable {
            outcome_unknown: true,
        }),
        Begin::Proceed => {
            let result = send_upstream(
                &forward,
                &method,
                key.expose(),
                &body,
                config.upstream_timeout_ms,
                trace,
            )
            .await;
            // An unanswered purchase is remembered as such, so a repeat cannot buy again.
            let stored = match &result {
                Ok(response) => response.clone(),
                // Replays carry the first answer's request id, in body and header alike.
                Err(err) => StoredResponse {
                    status: err.status(),
                    headers: vec![
                        ("content-type".into(), "application/json".into()),
                        ("x-request-id".into(), request_id.into()),
                    ],
                    body: err.to_body(request_id),
                },
            };
            // If the ledger misses the outcome, the entry times out into "outcome unknown": still never twice.
            let _: Result<(), EdgeError> = ledger_call(
                &ledger,
                "finish",
                &FinishCall {
                    fingerprint,
                    response: stored,
                },
            )
            .await;
            to_response(result?, false)
        }
    }
}

/// The body, refused past the cap: by its declared length before reading, by its size after.
async fn read_body(req: &mut Request) -> Result<Vec<u8>, EdgeError> {
    let declared = req
        .headers()
        .get("Content-Length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(EdgeError::BodyTooLarge);
    }
    let body = req.bytes().await.unwrap_or_default();
    if body.len() > MAX_BODY_BYTES {
        return Err(EdgeError::BodyTooLarge);
    }
    Ok(body)
}

/// Forwards to upstream with the key; a read is retried once on a connection failure, a write never.
async fn send_upstream(
    forward: &Forward,
    method: &str,
    key: &str,
    body: &[u8],
    timeout_ms: u64,
    trace: &mut Trace,
) -> Result<StoredResponse, EdgeError> {
    let started = now_ms();
    let headers = Headers::new();
    let _ = headers.set("Authorization", &format!("Bearer {key}"));
    let _ = headers.set("Accept", "application/json");
    let mut init = RequestInit::new();
    init.with_method(Method::from(method.to_string()))
        .with_headers(headers);
    if !body.is_empty() {
        let _ = init.headers.set("Content-Type", "application/json");
        init.with_body(Some(JsValue::from(worker::js_sys::Uint8Array::from(body))));
    }
    // A write that got no answer may still have happened upstream.
    let outcome_unknown = !forward.endpoint.scope.is_read();
    let unreachable = || EdgeError::UpstreamUnreachable { outcome_unknown };
    let send = || async {
        let request = Request::new_with_init(&forward.url, &init).map_err(|_| unreachable())?;
        let controller = AbortController::default();
        let (fetcher, signal) = (Fetch::Request(request), controller.signal());
        let fetch = fetcher.send_with_signal(&signal);
        let delay = Delay::from(Duration::from_millis(timeout_ms));
        futures_util::pin_mut!(fetch, delay);
        match futures_util::future::select(fetch, delay).await {
            Either::Left((response, _)) => response.map_err(|_| unreachable()),
            Either::Right(_) => {
                controller.abort();
                Err(EdgeError::UpstreamTimeout {
                    outcome_unknown,
                    seconds: timeout_ms.div_ceil(1000),
                })
            }
        }
    };
    let mut sent = send().await;
    // Reads may be retried once after a connection failure (not after a timeout); writes never are.
    if matches!(sent, Err(EdgeError::UpstreamUnreachable { .. })) && method == "GET" {
        sent = send().await;
    }
    trace.upstream_ms = Some(now_ms().saturating_sub(started));
    let mut upstream = sent?;
    let headers: Vec<(String, String)> = upstream
        .headers()
        .entries()
        .filter(|(name, _)| proxy::is_passed_response_header(name))
        .collect();
    let status = upstream.status_code();
    trace.upstream_status = Some(status);
    trace.upstream_request_id = headers
        .iter()
        .find(|(n, _)| n == "x-request-id")
        .map(|(_, v)| v.clone());
    let body = upstream.text().await.map_err(|_| unreachable())?;
    Ok(StoredResponse {
        status,
        headers,
        body,
    })
}

fn api_headers() -> Headers {
    let headers = Headers::new();
    for (name, value) in proxy::API_SECURITY_HEADERS {
        let _ = headers.set(name, value);
    }
    headers
}

fn to_response(stored: StoredResponse, replayed: bool) -> Result<Response, EdgeError> {
    let headers = api_headers();
    for (name, value) in &stored.headers {
        let _ = headers.set(name, value);
    }
    if replayed {
        let _ = headers.set("Idempotent-Replayed", "true");
    }
    let response = Response::from_bytes(stored.body.into_bytes()).map_err(|_| {
        EdgeError::UpstreamUnreachable {
            outcome_unknown: false,
        }
    })?;
    Ok(response.with_status(stored.status).with_headers(headers))
}

fn ledger_stub(env: &Env, mode: KeyEnv, key: &str) -> Result<Stub, EdgeError> {
    let namespace = env
        .durable_object("IDEMPOTENCY")
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    let id = namespace
        .id_from_name(&format!("{}:{key}", mode.as_str()))
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    id.get_stub().map_err(|_| EdgeError::LedgerUnavailable)
}

async fn ledger_call<B: serde::Serialize, T: serde::de::DeserializeOwned>(
    stub: &Stub,
    op: &str,
    body: &B,
) -> Result<T, EdgeError> {
    let json = serde_json::to_string(body).map_err(|_| EdgeError::LedgerUnavailable)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_body(Some(JsValue::from_str(&json)));
    let req = Request::new_with_init(&format!("https://ledger/{op}"), &init)
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    let mut resp = stub
        .fetch_with_request(req)
        .await
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    resp.json().await.map_err(|_| EdgeError::LedgerUnavailable)
}

fn error_response(err: &EdgeError, request_id: &str) -> worker::Result<Response> {
    let headers = api_headers();
    headers.set("Content-Type", "application/json")?;
    headers.set("X-Request-Id", request_id)?;
    if let Some(seconds) = err.retry_after() {
        headers.set("Retry-After", &seconds.to_string())?;
    }
    Ok(Response::from_bytes(err.to_body(request_id).into_bytes())?
        .with_status(err.status())
        .with_headers(headers))
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    // getrandom uses crypto.getRandomValues in workerd; it does not fail there.
    let _ = getrandom::getrandom(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("req_edge_{hex}")
}
