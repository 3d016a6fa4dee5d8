//! Everything the Worker answers under `/api`: the v1 endpoints it forwards
//! (see `proxy`) and its own dashboard endpoints (`api::session`); and the
//! storefront widget page (`api::widget`).

use crate::errors::EdgeError;
use crate::labels;
use crate::proxy::{self, Forward};
use api::KeyEnv;
use api::inbox::{INBOX_PATH, LABEL_PDF_PREFIX, LEDGER_PATH, LIVE_PATH, RECEIVE_PATH, VERIFY_PATH};
use api::session::{KEYS_PATH, LIMITS_PATH, MODE_PATH, SESSION_PATH};
use api::widget::PAGE_PATH;

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
        match self {
            Route::SignIn | Route::GetSession | Route::SignOut => SESSION_PATH,
            Route::SetMode => MODE_PATH,
            Route::Keys => KEYS_PATH,
            Route::VerifyKey(_) => "/api/keys/{mode}/verify",
            Route::ActivateKey(_) => "/api/keys/{mode}/activate",
            Route::Limits => LIMITS_PATH,
            Route::ReceiveWebhook => RECEIVE_PATH,
            Route::Ledger => LEDGER_PATH,
            Route::Inbox => INBOX_PATH,
            Route::Live => LIVE_PATH,
            Route::VerifyWebhook => VERIFY_PATH,
            Route::WidgetPage => PAGE_PATH,
            Route::LabelPdf { .. } => "/api/labels/{id}/pdf",
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

fn mode(segment: &str) -> Option<KeyEnv> {
    match segment {
        "live" => Some(KeyEnv::Live),
        "sandbox" => Some(KeyEnv::Sandbox),
        _ => None,
    }
}

pub fn route(
    method: &str,
    raw_path: &str,
    query: Option<&str>,
    upstream: &str,
) -> Result<Route, EdgeError> {
    let own = |allowed: &[&'static str], route: Option<Route>| -> Result<Route, EdgeError> {
        route.ok_or_else(|| EdgeError::MethodNotAllowed {
            method: method.to_string(),
            path: raw_path.to_string(),
            allowed: allowed.to_vec(),
        })
    };
    match raw_path {
        SESSION_PATH => own(
            &["GET", "POST", "DELETE"],
            match method {
                "POST" => Some(Route::SignIn),
                "GET" => Some(Route::GetSession),
                "DELETE" => Some(Route::SignOut),
                _ => None,
            },
        ),
        MODE_PATH => own(&["PUT"], (method == "PUT").then_some(Route::SetMode)),
        KEYS_PATH => own(&["GET"], (method == "GET").then_some(Route::Keys)),
        LIMITS_PATH => own(&["GET"], (method == "GET").then_some(Route::Limits)),
        RECEIVE_PATH => own(
            &["POST"],
            (method == "POST").then_some(Route::ReceiveWebhook),
        ),
        "/widget" | PAGE_PATH => own(
            &["GET", "HEAD"],
            matches!(method, "GET" | "HEAD").then_some(Route::WidgetPage),
        ),
        LEDGER_PATH => own(&["GET"], (method == "GET").then_some(Route::Ledger)),
        INBOX_PATH => own(&["GET"], (method == "GET").then_some(Route::Inbox)),
        LIVE_PATH => own(&["GET"], (method == "GET").then_some(Route::Live)),
        VERIFY_PATH => own(
            &["POST"],
            (method == "POST").then_some(Route::VerifyWebhook),
        ),
        _ => {
            if let Some(rest) = raw_path.strip_prefix("/api/keys/") {
                let target = match rest.split_once('/') {
                    Some((m, "verify")) => mode(m).map(Route::VerifyKey),
                    Some((m, "activate")) => mode(m).map(Route::ActivateKey),
                    _ => None,
                };
                return match target {
                    Some(route) => own(&["POST"], (method == "POST").then_some(route)),
                    None => Err(EdgeError::RouteNotFound {
                        path: raw_path.to_string(),
                    }),
                };
            }
            if let Some(rest) = raw_path.strip_prefix(LABEL_PDF_PREFIX) {
                return match rest
                    .strip_suffix("/pdf")
                    .filter(|id| labels::is_label_id(id))
                {
                    Some(id) => own(
                        &["GET"],
                        (method == "GET").then(|| Route::LabelPdf {
                            id: id.to_string(),
                            inline: query_param(query, "inline").as_deref() == Some("1"),
                        }),
                    ),
                    None => Err(EdgeError::RouteNotFound {
                        path: raw_path.to_string(),
                    }),
                };
            }
            if method == "OPTIONS" {
                // The preflight names the method it asks about; POST is the widget's.
                return proxy::plan("POST", raw_path, None, upstream).map(Route::Preflight);
            }
            proxy::plan(method, raw_path, query, upstream).map(Route::V1)
        }
    }
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
