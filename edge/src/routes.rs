//! Everything the Worker answers under `/api`: the v1 endpoints it forwards
//! (see `proxy`) and its own dashboard endpoints (`api::session`).

use crate::errors::EdgeError;
use crate::proxy::{self, Forward};
use api::KeyEnv;
use api::session::{KEYS_PATH, LIMITS_PATH, MODE_PATH, SESSION_PATH};

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
