//! The fetch handler: the thin layer between workerd and the features. It
//! reads the request once, routes it (`routes`), hands it to its feature's
//! glue, and turns every failure into the v1 envelope (an `Err` out of the
//! fetch handler would be a plain-text 500) with one log line.

pub(crate) mod js;
pub(crate) mod objects;
pub(crate) mod reply;

use crate::access::gate::Facts;
use crate::config::Config;
use crate::errors::EdgeError;
use crate::log::RequestLog;
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
}

pub(crate) fn config(env: &Env) -> Result<Rc<Config>, EdgeError> {
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

/// The settings of the organization the request's session names, with
/// its keys and the person's role now (the deployment's without a valid
/// session: the gate then refuses it). Made per request: the accounts
/// Worker is asked anyway (a removal counts from the next request), and
/// the keys it answers sealed are opened once per isolate.
#[cfg(main_worker)]
async fn tenant(
    env: &Env,
    config: Rc<Config>,
    cookie: Option<&str>,
    reuse: bool,
    now: u64,
) -> Result<Rc<Config>, EdgeError> {
    use crate::access::session::{Session, cookie_value};
    let session = cookie
        .and_then(cookie_value)
        .and_then(|value| Session::decode_cached(value, &config.session_secret, now).ok())
        .filter(|session| !session.org.is_deployment());
    match session {
        Some(session) => {
            crate::orgs::front::session_settings(env, &config, &session, reuse, now).await
        }
        None => Ok(config),
    }
}

/// What one request did, for its log line.
#[derive(Default)]
pub(crate) struct Trace {
    pub route: Option<&'static str>,
    pub principal: Option<String>,
    pub role: Option<&'static str>,
    pub upstream_status: Option<u16>,
    pub upstream_request_id: Option<String>,
    pub upstream_ms: Option<u64>,
    /// `replayed` (purchase records) or `cached` (widget quote).
    pub answered_from: Option<&'static str>,
    /// The widget origin, so error answers carry CORS headers too.
    pub cors_origin: Option<String>,
    /// Work that runs after the answer is sent (`waitUntil`): records that
    /// must not delay the caller.
    pub after: Vec<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>>,
}

impl Trace {
    pub(crate) fn caller(&mut self, principal: &crate::access::gate::Principal) {
        self.principal = Some(principal.label());
        self.role = Some(principal.role());
    }
}

pub(crate) fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

pub(crate) fn now_s() -> u64 {
    now_ms() / 1000
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
        let facts = js::request_facts(req);
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
/// on every call, which cost ~9% of the Worker's CPU in a profile. (The
/// accounts Worker has its own: `orgs::accounts`.)
#[cfg(main_worker)]
#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> worker::Result<Response> {
    let incoming = Incoming::read(&req);
    // The app's wasm modules are static assets: served, not logged.
    if let Some((_, path, _)) = routes::split_url(&incoming.url)
        && incoming.url.ends_with(".wasm")
        && crate::dashboard::is_app_wasm(path)
    {
        return crate::dashboard::glue::wasm(req, &env).await;
    }
    let started = now_ms();
    let request_id = REQUEST_IDS.with(RequestIds::next);
    let mut trace = Trace::default();
    let result = handle(req, &incoming, &env, &request_id, &mut trace).await;
    for work in trace.after.drain(..) {
        ctx.wait_until(work);
    }
    let error = result.as_ref().err().map(EdgeError::code);
    let response = match result {
        Ok(resp) => {
            // Every answer names its request, as its log line does. A
            // forwarded answer keeps the service's id (the line has both); a
            // fetched one, its headers immutable, goes as it came.
            if !resp.headers().has("X-Request-Id").unwrap_or(true) {
                let _ = resp.headers().set("X-Request-Id", &request_id);
            }
            Ok(resp)
        }
        Err(err) => reply::error_response(&err, &request_id, trace.cors_origin.as_deref())
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
        error: error.as_ref().map(api::ErrorCode::as_str),
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

#[cfg(main_worker)]
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
    // A widget request naming an organization (its page's link, its calls'
    // header) works with that organization's widget settings and keys; a
    // session with its organization's; the storefront's other framed calls
    // stay the deployment's whatever cookie the browser has.
    let widget_id = match route {
        Route::WidgetPage => routes::query_param(query, api::widget::WIDGET_PARAM),
        _ if incoming.framed_by.is_some() => header(&req, api::widget::WIDGET_ID_HEADER),
        _ => None,
    }
    .filter(|id| !id.is_empty());
    let config = match widget_id {
        Some(id) => match crate::widget::glue::org_settings(env, &config, &id, now_s()).await? {
            Some(org) => org,
            // Unknown or closed: refused like an unlisted shop, saying nothing more.
            None if matches!(route, Route::WidgetPage) => {
                return crate::widget::glue::page(env, None, own_origin, query).await;
            }
            None => return Err(EdgeError::OrgNotFound),
        },
        None if route.acts_for_session() && incoming.framed_by.is_none() => {
            let v1_scope = match &route {
                Route::V1(forward) => Some(forward.endpoint.scope),
                _ => None,
            };
            let reuse = crate::orgs::member_checks::may_reuse(method, v1_scope);
            tenant(env, config, incoming.cookie.as_deref(), reuse, now_s()).await?
        }
        None => config,
    };
    let facts = Facts {
        method,
        cookie_header: incoming.cookie.as_deref(),
        origin: incoming.origin.as_deref(),
        own_origin,
        framed_by: incoming.framed_by.as_deref(),
        now: now_s(),
    };
    match route {
        Route::Preflight(forward) => {
            crate::upstream::forward::preflight(&config, &facts, forward.endpoint)
        }
        Route::V1(forward) => {
            crate::upstream::forward::forward(req, env, &config, &facts, forward, request_id, trace)
                .await
        }
        Route::Access(route) => {
            crate::access::glue::handle(route, req, env, &config, &facts, request_id, trace).await
        }
        Route::Webhooks(route) => {
            crate::webhooks::glue::handle(
                route, req, env, &config, &facts, query, request_id, trace,
            )
            .await
        }
        Route::LabelPdf { id, inline } => {
            crate::label_pdf::glue::pdf(&id, inline, env, &config, &facts, trace).await
        }
        Route::WidgetPage => {
            crate::widget::glue::page(env, Some(&config.widget), own_origin, query).await
        }
        Route::Jobs(route) => {
            crate::jobs::glue::handle(route, req, env, &config, &facts, query, trace).await
        }
        Route::Orgs(route) => {
            crate::orgs::front::handle(route, req, env, &config, &facts, request_id, trace).await
        }
        Route::OrgWebhook(org) => {
            let config = crate::orgs::front::org_settings(env, &config, org).await?;
            crate::webhooks::glue::receive(req, env, &config, trace).await
        }
    }
}

/// `n` random bytes as hex, from the runtime's CSPRNG (`crypto.getRandomValues`).
pub(crate) fn random_hex(n: usize) -> Result<String, EdgeError> {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes).map_err(|_| EdgeError::Internal {
        what: "draw random bytes",
    })?;
    Ok(hex::encode(bytes))
}

/// Request ids: a random prefix per isolate and a counter, unique without
/// asking the runtime for randomness on every request.
struct RequestIds {
    prefix: String,
    count: std::cell::Cell<u32>,
}

impl RequestIds {
    fn new() -> RequestIds {
        // Without randomness the ids stay unique within the isolate and
        // tell the operator why ("norandom").
        let prefix = random_hex(8).unwrap_or_else(|_| "norandom".repeat(2));
        RequestIds {
            prefix,
            count: std::cell::Cell::new(0),
        }
    }

    fn next(&self) -> String {
        let n = self.count.get().wrapping_add(1);
        self.count.set(n);
        format!("req_edge_{}{n:08x}", self.prefix)
    }
}

thread_local! {
    static REQUEST_IDS: RequestIds = RequestIds::new();
}
