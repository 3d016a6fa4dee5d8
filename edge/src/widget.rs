//! Serves the storefront widget page (see `widget`), and finds the
//! settings of the organization a widget request names.

use domain::errors::RouteError;
use std::cell::RefCell;
use std::rc::Rc;

use crate::context::Cx;
use crate::dashboard::asset;
use crate::error::EdgeError;
use api::OwnId;
use api::orgs::OrgId;
use api::widget::PAGE_PATH;
use domain::config::Config;
use domain::upstream::StoredResponse;
use domain::widget::settings::Settings as WidgetSettings;
use domain::widget::tenants::Recent;
use worker::Env;
use worker::wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{Headers, Request, Response, ResponseInit};

thread_local! {
    static ORGS: RefCell<Recent<Option<Rc<Config>>>> = RefCell::new(Recent::default());
}

/// The settings (keys and widget) of the organization whose widget id a
/// widget request names, kept briefly per isolate (`tenants`); `None` if
/// there is no such organization or its widget allows no shop.
pub(crate) async fn org_settings(
    env: &Env,
    base: &Config,
    id: &str,
    now: u64,
) -> Result<Option<Rc<Config>>, EdgeError> {
    let Some(org) = OrgId::parse(id) else {
        return Ok(None);
    };
    if let Some(known) = ORGS.with(|o| o.borrow().get(&org, now)) {
        return Ok(known);
    }
    let config = crate::accounts::widget_settings(env, base, org.clone()).await?;
    let found = (!config.widget.origins.is_empty()).then(|| Rc::new(config));
    ORGS.with(|o| o.borrow_mut().put(org, found.clone(), now));
    Ok(found)
}

/// The settings a call naming an unknown or closed widget id works with: a
/// widget that allows no shop, so the call is refused exactly as one
/// naming another organization's widget from a shop it does not list
/// (which ids exist is nobody's business).
pub(crate) fn closed(base: &Config) -> Rc<Config> {
    Rc::new(base.for_org(OrgId::deployment()))
}

/// The storefront widget page (`domain::widget`): the built page with the
/// configured ship-from and fallback written in, framed only by the shop
/// its link names when that shop is one of the widget's origins; otherwise
/// (or with no `widget` to show) a 403 nobody can frame (opened directly,
/// it tells the shop owner what to set). Or the embed script's status.
pub(crate) async fn serve(req: Request, cx: &mut Cx<'_>, id: OwnId) -> Result<Response, EdgeError> {
    if id == OwnId::WidgetStatus {
        if cx.facts.method == "OPTIONS" {
            return status_preflight(&req, cx);
        }
        return status(cx).await;
    }
    framed(
        cx.env,
        Some(&cx.config.widget),
        cx.facts.own_origin,
        cx.query,
    )
    .await
}

/// `api::widget::STATUS_PATH`: whether the asking shop page may show the
/// widget its query names (the deployment's own without one), and its
/// fallback option, readable by that page (CORS for its origin).
async fn status(cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let id = domain::routes::query_param(cx.query, api::widget::WIDGET_PARAM)
        .filter(|id| !id.is_empty());
    let config = match id {
        Some(id) => org_settings(cx.env, &cx.config, &id, cx.facts.now).await?,
        None => Some(cx.config.clone()),
    };
    let widget = config.as_ref().map(|c| &c.widget);
    let body = domain::widget::status(
        widget.map_or(&[], |w| &w.origins),
        widget.and_then(|w| w.fallback.as_deref()),
        cx.facts.origin,
    );
    let extra = match cx.facts.origin {
        Some(origin) => domain::widget::cors::response_headers(origin),
        None => vec![("Vary", "Origin".to_string())],
    };
    let answer = StoredResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    };
    platform::reply::respond(&answer, None, &extra)
}

/// The status's CORS preflight, which a page meets only when something
/// adds headers to its requests (an extension, a proxy, a test browser's
/// shopper address): whatever it adds may come, since the answer is public
/// and no credentials go with it.
fn status_preflight(req: &Request, cx: &Cx<'_>) -> Result<Response, EdgeError> {
    let asked = req
        .headers()
        .get("Access-Control-Request-Headers")
        .ok()
        .flatten()
        .unwrap_or_default();
    let origin = cx.facts.origin.unwrap_or("null");
    let extra = domain::widget::cors::preflight_headers(origin, ("GET", &asked));
    platform::reply::empty(204, &extra)
}

/// The page for `widget` (`None`: an unknown or closed widget id, refused
/// like an unlisted shop).
pub(crate) async fn framed(
    env: &Env,
    widget: Option<&WidgetSettings>,
    own_origin: &str,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let missing = || RouteError::NotFound {
        path: PAGE_PATH.into(),
    };
    let built = asset(env, &format!("{own_origin}{PAGE_PATH}"))
        .await
        .ok_or_else(missing)?;
    let html = match built.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|t| t.as_string()),
        Err(_) => None,
    }
    .ok_or_else(missing)?;
    let shop = widget.and_then(|w| domain::widget::framing_shop(query, &w.origins));
    // What the widget's settings say goes only into a page its shop may show.
    let allowed = widget.filter(|_| shop.is_some());
    let html = domain::widget::page(
        &html,
        allowed.and_then(|w| w.ship_from.as_deref()).unwrap_or(""),
        allowed.and_then(|w| w.fallback.as_deref()).unwrap_or(""),
        shop,
    );
    let rebuilt = || -> Result<Response, JsValue> {
        let headers = Headers::new_with_headers(&built.headers())?;
        let csp = headers.get("Content-Security-Policy")?.unwrap_or_default();
        headers.set(
            "Content-Security-Policy",
            &domain::widget::frame_ancestors(&csp, shop),
        )?;
        // frame-ancestors decides who may frame the page; the body changed.
        headers.delete("X-Frame-Options")?;
        headers.delete("ETag")?;
        // The page differs by its link's shop.
        headers.set("Cache-Control", "no-cache")?;
        let init = ResponseInit::new();
        init.set_status(if shop.is_some() { 200 } else { 403 });
        init.set_headers(&headers);
        Response::new_with_opt_str_and_init(Some(&html), &init)
    };
    rebuilt().map_err(|_| missing().into())
}
