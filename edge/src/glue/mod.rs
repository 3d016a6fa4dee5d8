//! The thin layer between workerd and the plain modules: read the request,
//! ask `routes`/`gate`/`memory`/`idempotency` what to do, do the fetches, and
//! turn every failure into the v1 envelope (an `Err` out of the fetch
//! handler would be a plain-text 500).

mod assets;
mod console;
mod hooks;
mod labels;
mod stores;
mod upstream;
mod v1;

use crate::config::Config;
use crate::errors::{EdgeError, SignInReason};
use crate::gate::{self, Facts, Principal};
use crate::log::RequestLog;
use crate::memory::Memory;
use crate::routes::{self, Route};
use std::cell::RefCell;
use std::rc::Rc;
use worker::web_sys::{Request, Response};
use worker::{Context, Env, event};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

thread_local! {
    /// Settings never change within an isolate: parsed once, when valid.
    static CONFIG: RefCell<Option<Rc<Config>>> = const { RefCell::new(None) };
    static MEMORY: RefCell<Memory> = RefCell::new(Memory::default());
}

/// Runs `f` on this isolate's memory. Never held across an `.await`.
pub(crate) fn with_memory<T>(f: impl FnOnce(&mut Memory) -> T) -> T {
    MEMORY.with(|m| f(&mut m.borrow_mut()))
}

fn config(env: &Env) -> Result<Rc<Config>, EdgeError> {
    if let Some(config) = CONFIG.with(|c| c.borrow().clone()) {
        return Ok(config);
    }
    // Secrets and vars are both strings to `var`.
    let config = Rc::new(Config::from_lookup(|name| {
        env.var(name).ok().map(|v| v.to_string())
    })?);
    CONFIG.with(|c| *c.borrow_mut() = Some(config.clone()));
    Ok(config)
}

/// What one request did, for its log line.
#[derive(Default)]
pub(crate) struct Trace {
    route: Option<&'static str>,
    principal: Option<String>,
    role: Option<&'static str>,
    upstream_status: Option<u16>,
    upstream_request_id: Option<String>,
    upstream_ms: Option<u64>,
    /// `replayed` (idempotency ledger) or `cached` (widget quote).
    answered_from: Option<&'static str>,
    /// The widget origin, so error answers carry CORS headers too.
    cors_origin: Option<String>,
}

pub(crate) fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

pub(crate) fn now_s() -> u64 {
    now_ms() / 1000
}

// What every request needs read, in one boundary crossing (a header value
// cannot hold a newline, and the URL comes last).
#[wasm_bindgen::prelude::wasm_bindgen(inline_js = "
export function request_facts(req) {
  const h = req.headers;
  return req.method + '\\n' + (h.get('cookie') ?? '') + '\\n' + (h.get('origin') ?? '') + '\\n' +
    (h.get('parcel-widget-origin') ?? '') + '\\n' + req.url;
}")]
extern "C" {
    fn request_facts(req: &Request) -> String;
}

/// The request line and the headers every route reads.
struct Incoming {
    method: String,
    url: String,
    cookie: Option<String>,
    origin: Option<String>,
    /// `api::widget::ORIGIN_HEADER`, sent by the widget page.
    framed_by: Option<String>,
}

impl Incoming {
    fn read(req: &Request) -> Incoming {
        let facts = request_facts(req);
        let mut parts = facts.splitn(5, '\n');
        let mut next = || parts.next().unwrap_or_default().to_string();
        let some = |s: String| (!s.is_empty()).then_some(s);
        let method = next();
        let cookie = some(next());
        let origin = some(next());
        let framed_by = some(next());
        Incoming {
            method,
            cookie,
            origin,
            framed_by,
            url: next(),
        }
    }
}

/// Takes the raw `web_sys::Request`: `worker::Request` reads `request.cf`
/// on every call, which cost ~9% of the Worker's CPU in a profile.
#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let incoming = Incoming::read(&req);
    // The app's wasm is a static asset: served, not logged.
    if incoming.url.ends_with("_bg.wasm")
        && routes::split_url(&incoming.url)
            .is_some_and(|(_, path, _)| crate::assets::is_app_wasm(path))
    {
        return assets::wasm(req, &env).await;
    }
    let started = now_ms();
    let request_id = new_request_id();
    let mut trace = Trace::default();
    let result = handle(req, &incoming, &env, &request_id, &mut trace).await;
    let error = result.as_ref().err().map(|e| e.code());
    let response = match result {
        Ok(resp) => Ok(resp),
        Err(err) => upstream::error_response(&err, &request_id, trace.cors_origin.as_deref())
            .map_err(worker::Error::from),
    };
    let line = RequestLog {
        request_id: &request_id,
        method: &incoming.method,
        route: trace.route.unwrap_or("(none)"),
        principal: trace.principal.as_deref().unwrap_or("anonymous"),
        role: trace.role,
        status: response.as_ref().map(|r| r.status()).unwrap_or(500),
        upstream_status: trace.upstream_status,
        upstream_request_id: trace.upstream_request_id.as_deref(),
        upstream_ms: trace.upstream_ms,
        total_ms: now_ms().saturating_sub(started),
        answered_from: trace.answered_from,
        error,
    };
    worker::console_log!("{}", line.to_line());
    response
}

pub(crate) fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The whole body (empty if it cannot be read); callers cap its size.
pub(crate) async fn body_bytes(req: &Request) -> Vec<u8> {
    let Ok(promise) = req.array_buffer() else {
        return Vec::new();
    };
    match worker::wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(buffer) => worker::js_sys::Uint8Array::new(&buffer).to_vec(),
        Err(_) => Vec::new(),
    }
}

/// A small JSON body of the Worker's own endpoints, parsed with its `api` type.
pub(crate) async fn json_body<T: serde::de::DeserializeOwned>(
    req: &Request,
    max: usize,
) -> Result<T, EdgeError> {
    let body = body_bytes(req).await;
    if body.len() > max {
        return Err(EdgeError::BodyTooLarge);
    }
    api::validation::parse_json(&body).map_err(EdgeError::InvalidBody)
}

async fn handle(
    req: Request,
    incoming: &Incoming,
    env: &Env,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let config = config(env)?;
    let url = &incoming.url;
    let (own_origin, path, query) =
        routes::split_url(url).ok_or_else(|| EdgeError::RouteNotFound { path: url.clone() })?;
    let method = &incoming.method;
    let route = routes::route(method, path, query, &config.upstream)?;
    trace.route = Some(route.pattern());
    let facts = Facts {
        method,
        cookie_header: incoming.cookie.as_deref(),
        origin: incoming.origin.as_deref(),
        own_origin,
        framed_by: incoming.framed_by.as_deref(),
        now: now_s(),
    };
    match route {
        Route::Preflight(forward) => v1::preflight(&config, &facts, forward.endpoint),
        Route::V1(forward) => {
            v1::forward(req, env, &config, &facts, forward, request_id, trace).await
        }
        Route::SignIn => console::sign_in(req, env, &config, &facts, trace).await,
        Route::SignOut => console::sign_out(env, &config, &facts, trace).await,
        Route::ReceiveWebhook => hooks::receive(req, env, &config, trace).await,
        Route::WidgetPage => assets::widget_page(env, &config, own_origin, query).await,
        other => {
            let principal = signed_in(env, &config, &facts).await?;
            trace.principal = Some(principal.label());
            trace.role = Some(principal.role());
            match other {
                Route::Ledger | Route::Inbox | Route::Live | Route::VerifyWebhook => {
                    hooks::handle(other, req, env, &config, &facts, &principal, query).await
                }
                Route::LabelPdf { id, inline } => {
                    labels::pdf(&id, inline, env, &config, &principal, trace).await
                }
                _ => console::handle(other, req, env, &config, &facts, &principal, trace).await,
            }
        }
    }
}

/// The caller of a v1 endpoint: a user (sign-out checked across isolates) or the widget.
pub(crate) async fn principal(
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
) -> Result<Principal, EdgeError> {
    not_signed_out(env, gate::identify(config, facts, |_| false)?, facts.now).await
}

/// A signed-in dashboard user (the widget cannot reach the dashboard endpoints).
async fn signed_in(env: &Env, config: &Config, facts: &Facts<'_>) -> Result<Principal, EdgeError> {
    let user = gate::signed_in_user(config, facts, |_| false)?
        .ok_or(EdgeError::SignInRequired(SignInReason::NoSession))?;
    gate::check_same_origin(facts)?;
    not_signed_out(env, user, facts.now).await
}

async fn not_signed_out(env: &Env, principal: Principal, now: u64) -> Result<Principal, EdgeError> {
    if let Principal::User { session, .. } = &principal
        && stores::is_revoked(env, &session.sid, now).await?
    {
        return Err(EdgeError::SignInRequired(SignInReason::SessionEnded));
    }
    Ok(principal)
}

pub(crate) fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    // getrandom uses crypto.getRandomValues in workerd; it does not fail there.
    let _ = getrandom::getrandom(&mut bytes);
    hex::encode(bytes)
}

thread_local! {
    /// A random prefix per isolate and a counter: unique request ids without
    /// asking the runtime for randomness on every request.
    static REQUEST_IDS: (String, std::cell::Cell<u32>) = (random_hex(8), std::cell::Cell::new(0));
}

fn new_request_id() -> String {
    REQUEST_IDS.with(|(prefix, count)| {
        let n = count.get().wrapping_add(1);
        count.set(n);
        format!("req_edge_{prefix}{n:08x}")
    })
}
