//! The fetch handler: the thin layer between workerd and the features. It
//! reads the request once, routes it by the table (`domain::routes`),
//! picks the settings it works with (its session's organization's, a
//! widget's, or the deployment's), hands it to its handler (`router`), and
//! turns every failure into the v1 envelope (an `Err` out of the fetch
//! handler would be a plain-text 500) with one log line.

use crate::context::Cx;
use crate::error::EdgeError;
use crate::{router, settings};
use api::OwnId;
use domain::access::gate::Facts;
use domain::config::Config;
use domain::errors::Failure;
use domain::errors::RouteError;
use domain::log::RequestLog;
use domain::routes::{self, Route};
use platform::{Incoming, Trace, header, now_ms, now_s, random_hex, reply};
use std::rc::Rc;
use worker::web_sys::{Request, Response};
use worker::{Context, Env, event};

/// The settings of the organization the request's session names, with
/// its keys and the person's role now (the deployment's without a valid
/// session: the gate then refuses it). Made per request: the accounts
/// Worker is asked anyway (a removal counts from the next request), and
/// the keys it answers sealed are opened once per isolate.
async fn tenant(
    env: &Env,
    config: Rc<Config>,
    cookie: Option<&str>,
    reuse: bool,
    now: u64,
) -> Result<Rc<Config>, EdgeError> {
    use domain::access::session::{Session, cookie_value};
    let session = cookie
        .and_then(cookie_value)
        .and_then(|value| Session::decode_cached(value, &config.access.session_secret, now).ok())
        .filter(|session| !session.org.is_deployment());
    match session {
        Some(session) => {
            crate::accounts::session_settings(env, &config, &session, reuse, now).await
        }
        None => Ok(config),
    }
}

/// Takes the raw `web_sys::Request`: `worker::Request` reads `request.cf`
/// on every call, which cost ~9% of the Worker's CPU in a profile. (The
/// accounts Worker has its own: `orgs::accounts`.)
#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> worker::Result<Response> {
    let incoming = Incoming::read(&req);
    // The app's wasm modules are static assets: served, not logged.
    if let Some((_, path, _)) = routes::split_url(&incoming.url)
        && incoming.url.ends_with(".wasm")
        && domain::dashboard::is_app_wasm(path)
    {
        return crate::dashboard::wasm(req, &env).await;
    }
    let started = now_ms();
    let request_id = REQUEST_IDS.with(RequestIds::next);
    let mut trace = Trace::default();
    let result = handle(req, &incoming, &env, &request_id, &mut trace).await;
    for work in trace.after.drain(..) {
        ctx.wait_until(work);
    }
    let error = result.as_ref().err().map(Failure::code);
    let response = match result {
        Ok(resp) => {
            // Every answer names its request, as its log line does. A
            // forwarded answer keeps the service's id (the line has both); a
            // fetched one, its headers immutable, goes as it came.
            platform::js::name_request(&resp, &request_id);
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

async fn handle(
    req: Request,
    incoming: &Incoming,
    env: &Env,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let config = settings::config(env)?;
    let url = &incoming.url;
    let (own_origin, path, query) =
        routes::split_url(url).ok_or_else(|| RouteError::NotFound { path: url.clone() })?;
    let method = &incoming.method;
    let route = routes::route(method, path, query, &config.upstream.url)?;
    trace.route = Some(route.pattern());
    let widget_page =
        matches!(&route, Route::Own { endpoint, .. } if endpoint.id == OwnId::WidgetPage);
    // A widget request naming an organization (its page's link, its calls'
    // header) works with that organization's widget settings and keys; a
    // session with its organization's; the storefront's other framed calls
    // stay the deployment's whatever cookie the browser has.
    let widget_id = if widget_page {
        routes::query_param(query, api::widget::WIDGET_PARAM)
    } else if incoming.framed_by.is_some() {
        header(&req, api::widget::WIDGET_ID_HEADER)
    } else {
        None
    }
    .filter(|id| !id.is_empty());
    let config = match widget_id {
        Some(id) => match crate::widget::org_settings(env, &config, &id, now_s()).await? {
            Some(org) => org,
            // Unknown or closed: refused like an unlisted shop, saying nothing more.
            None if widget_page => {
                return crate::widget::framed(env, None, own_origin, query).await;
            }
            None => crate::widget::closed(&config),
        },
        None if route.acts_for_session() && incoming.framed_by.is_none() => {
            let v1_scope = match &route {
                Route::V1(forward) => Some(forward.endpoint.scope),
                _ => None,
            };
            let reuse = domain::orgs::member_checks::may_reuse(method, v1_scope);
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
    let mut cx = Cx {
        env,
        config,
        facts,
        param: String::new(),
        query,
        request_id,
        trace,
    };
    match route {
        Route::Preflight(forward) => crate::forward::preflight(&cx, forward.endpoint),
        Route::V1(forward) => crate::forward::forward(req, &mut cx, forward).await,
        Route::Own { endpoint, param } => {
            cx.param = param;
            router::own(endpoint, req, &mut cx).await
        }
    }
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
