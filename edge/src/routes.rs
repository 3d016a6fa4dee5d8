//! Everything the Worker answers under `/api`: the v1 endpoints it forwards
//! (see `proxy`) and its own dashboard endpoints (`api::session`); and the
//! storefront widget page (`api::widget`).

use crate::errors::EdgeError;
use crate::proxy::{self, Forward};
use api::{KeyEnv, OwnId};

#[derive(Debug)]
pub enum Route {
    SignIn,
    GetSession,
    SignOut,
    SetMode,
    Keys,
    VerifyKey(KeyEnv),
    ActivateKey(KeyEnv),
    Limits,
    /// `label.created` deliveries from the service (no session: the signature is the credential).
    ReceiveWebhook,
    Ledger,
    Inbox,
    /// The inbox's live feed (a WebSocket upgrade).
    Live,
    VerifyWebhook,
    /// The storefront widget page (`api::widget`).
    WidgetPage,
    /// A label's PDF (`api::inbox::label_pdf_path`), as a download or `inline`.
    LabelPdf {
        id: String,
        inline: bool,
    },
    /// A CORS preflight for a v1 endpoint (the widget's).
    Preflight(Forward),
    V1(Forward),
}

impl Route {
    /// The route pattern for the log line.
    pub fn pattern(&self) -> &'static str {
        use api::endpoints::own_endpoint;
        let own = |id| own_endpoint(id).pattern;
        match self {
            Route::SignIn | Route::GetSession | Route::SignOut => own(OwnId::SignIn),
            Route::SetMode => own(OwnId::SetMode),
            Route::Keys => own(OwnId::Keys),
            Route::VerifyKey(_) => own(OwnId::VerifyKey),
            Route::ActivateKey(_) => own(OwnId::ActivateKey),
            Route::Limits => own(OwnId::Limits),
            Route::ReceiveWebhook => own(OwnId::ReceiveWebhook),
            Route::Ledger => own(OwnId::Ledger),
            Route::Inbox => own(OwnId::Inbox),
            Route::Live => own(OwnId::Live),
            Route::VerifyWebhook => own(OwnId::VerifyWebhook),
            Route::WidgetPage => own(OwnId::WidgetPage),
            Route::LabelPdf { .. } => own(OwnId::LabelPdf),
            Route::Preflight(f) | Route::V1(f) => f.endpoint.pattern,
        }
    }
}

/// Splits a serialized request URL (`http://host:port/path?query`) into
/// origin, raw path and query, without a full URL parse per request. The
/// path stays percent-encoded, so encoded slashes never match an id.
pub fn split_url(url: &str) -> Option<(&str, &str, Option<&str>)> {
    let after_scheme = url.find("://")? + 3;
    let path_start = url[after_scheme..]
        .find('/')
        .map_or(url.len(), |i| after_scheme + i);
    let origin = &url[..path_start];
    let rest = &url[path_start..];
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    Some((origin, if path.is_empty() { "/" } else { path }, query))
}

/// One query parameter, percent-decoded (`+` is a space); `None` if absent.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    let value = query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(key, _)| *key == name)?
        .1;
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

pub fn route(
    method: &str,
    raw_path: &str,
    query: Option<&str>,
    upstream: &str,
) -> Result<Route, EdgeError> {
    let own = match api::match_own(method, raw_path) {
        Ok(own) => own,
        Err(allowed) if !allowed.is_empty() => {
            return Err(EdgeError::MethodNotAllowed {
                method: method.to_string(),
                path: raw_path.to_string(),
                allowed: allowed.iter().map(|m| m.as_str()).collect(),
            });
        }
        Err(_) if method == "OPTIONS" => {
            // The preflight names the method it asks about; POST is the widget's.
            return proxy::plan("POST", raw_path, None, upstream).map(Route::Preflight);
        }
        Err(_) => return proxy::plan(method, raw_path, query, upstream).map(Route::V1),
    };
    let param = own.param.unwrap_or_default();
    let mode = || {
        param
            .parse::<KeyEnv>()
            .map_err(|_| EdgeError::RouteNotFound {
                path: raw_path.to_string(),
            })
    };
    Ok(match own.endpoint.id {
        OwnId::SignIn => Route::SignIn,
        OwnId::GetSession => Route::GetSession,
        OwnId::SignOut => Route::SignOut,
        OwnId::SetMode => Route::SetMode,
        OwnId::Keys => Route::Keys,
        OwnId::VerifyKey => Route::VerifyKey(mode()?),
        OwnId::ActivateKey => Route::ActivateKey(mode()?),
        OwnId::Limits => Route::Limits,
        OwnId::ReceiveWebhook => Route::ReceiveWebhook,
        OwnId::Ledger => Route::Ledger,
        OwnId::Inbox => Route::Inbox,
        OwnId::Live => Route::Live,
        OwnId::VerifyWebhook => Route::VerifyWebhook,
        OwnId::LabelPdf => Route::LabelPdf {
            inline: query_param(query, "inline").as_deref() == Some("1"),
            id: param,
        },
        OwnId::WidgetPage => Route::WidgetPage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: &str = "http://127.0.0.1:8788";

    #[test]
    fn own_endpoints_and_their_methods() {
        assert!(matches!(
            route("POST", "/api/session", None, UP),
            Ok(Route::SignIn)
        ));
        assert!(matches!(
            route("DELETE", "/api/session", None, UP),
            Ok(Route::SignOut)
        ));
        assert!(matches!(
            route("PUT", "/api/session/mode", None, UP),
            Ok(Route::SetMode)
        ));
        assert!(matches!(
            route("POST", "/api/keys/sandbox/verify", None, UP),
            Ok(Route::VerifyKey(KeyEnv::Sandbox))
        ));
        assert!(matches!(
            route("POST", "/api/keys/live/activate", None, UP),
            Ok(Route::ActivateKey(KeyEnv::Live))
        ));
        assert!(matches!(
            route("POST", "/hooks/v1/label-created", None, UP),
            Ok(Route::ReceiveWebhook)
        ));
        assert!(matches!(
            route("GET", "/api/webhooks/live", None, UP),
            Ok(Route::Live)
        ));
        assert!(matches!(
            route("GET", "/api/ledger", Some("q=1Z"), UP),
            Ok(Route::Ledger)
        ));
        assert!(matches!(
            route("GET", "/api/labels/lbl_1/pdf", Some("inline=1"), UP),
            Ok(Route::LabelPdf { id, inline: true }) if id == "lbl_1"
        ));
        assert_eq!(
            route("DELETE", "/api/labels/lbl_1/pdf", None, UP)
                .unwrap_err()
                .status(),
            405
        );
        for path in [
            "/api/labels/../pdf",
            "/api/labels/a%2Fb/pdf",
            "/api/labels//pdf",
        ] {
            assert_eq!(
                route("GET", path, None, UP).unwrap_err().status(),
                404,
                "{path}"
            );
        }
        for path in ["/widget", "/widget/"] {
            assert!(matches!(
                route("GET", path, Some("weight_oz=20"), UP),
                Ok(Route::WidgetPage)
            ));
        }
        assert_eq!(
            route("POST", "/widget/", None, UP).unwrap_err().status(),
            405
        );
        for (method, path) in [
            ("GET", "/hooks/v1/label-created"),
            ("GET", "/api/webhooks/verify"),
        ] {
            assert_eq!(route(method, path, None, UP).unwrap_err().status(), 405);
        }
        assert_eq!(
            route("POST", "/hooks/v1/label-created/", None, UP)
                .unwrap_err()
                .status(),
            404
        );
        assert_eq!(
            route("PUT", "/api/session", None, UP).unwrap_err().status(),
            405
        );
        assert_eq!(
            route("GET", "/api/keys/live/verify", None, UP)
                .unwrap_err()
                .status(),
            405
        );
        for path in [
            "/api/keys/prod/verify",
            "/api/keys/live/delete",
            "/api/session/",
            "/api/sessions",
        ] {
            assert_eq!(
                route("POST", path, None, UP).unwrap_err().status(),
                404,
                "{path}"
            );
        }
    }

    #[test]
    fn query_params_are_decoded() {
        let q = Some("state=rejected&q=1Z%20999+x&bad=%zz&last=%4");
        assert_eq!(query_param(q, "q").as_deref(), Some("1Z 999 x"));
        assert_eq!(query_param(q, "state").as_deref(), Some("rejected"));
        assert_eq!(query_param(q, "bad").as_deref(), Some("%zz"));
        assert_eq!(query_param(q, "last").as_deref(), Some("%4"));
        assert_eq!(query_param(q, "missing"), None);
        assert_eq!(query_param(None, "q"), None);
    }

    #[test]
    fn splits_urls_without_decoding() {
        assert_eq!(
            split_url("https://ship.example/api/v1/labels/..%2Fx?a=1&b=2"),
            Some((
                "https://ship.example",
                "/api/v1/labels/..%2Fx",
                Some("a=1&b=2")
            ))
        );
        assert_eq!(
            split_url("http://127.0.0.1:8787"),
            Some(("http://127.0.0.1:8787", "/", None))
        );
        assert_eq!(split_url("no scheme"), None);
    }

    #[test]
    fn v1_paths_are_forwarded_or_preflighted() {
        assert!(matches!(
            route("GET", "/api/v1/wallet", None, UP),
            Ok(Route::V1(_))
        ));
        let Ok(Route::Preflight(f)) = route("OPTIONS", "/api/v1/rates", None, UP) else {
            panic!("preflight")
        };
        assert_eq!(f.endpoint.pattern, "/v1/rates");
        assert_eq!(
            route("OPTIONS", "/api/v1/nope", None, UP)
                .unwrap_err()
                .status(),
            404
        );
    }
}
