//! Everything the Worker answers: the v1 endpoints it forwards (see
//! `proxy`) and its own (`api::OWN_ENDPOINTS`: the dashboard's, the
//! webhook receivers and the storefront widget page). The table is `api`'s;
//! this only matches a request to its row and checks the path's parameter.

use crate::errors::RouteError;
use crate::upstream::proxy::{self, Forward};
use api::orgs::{AccountId, OrgId};
use api::{KeyEnv, OwnEndpoint, OwnId};

/// What a request is, by the table.
#[derive(Debug)]
pub enum Route {
    /// A v1 endpoint, forwarded (`upstream`).
    V1(Forward),
    /// A CORS preflight for a v1 endpoint (the widget's).
    Preflight(Forward),
    /// One of the Worker's own endpoints, with the path's `{id}` or
    /// `{mode}` (empty where the pattern has none), checked to be what the
    /// endpoint names.
    Own {
        endpoint: &'static OwnEndpoint,
        param: String,
    },
}

impl Route {
    /// Whether the route acts for the caller's session, and so works with
    /// the settings of the session's organization. The rest carry their own
    /// credential (a token, a password, a link, a signature) or are the
    /// storefront's, and work with the deployment's settings.
    pub fn acts_for_session(&self) -> bool {
        match self {
            Route::V1(_) => true,
            Route::Preflight(_) => false,
            Route::Own { endpoint, .. } => endpoint.caller.acts_for_session(),
        }
    }

    /// The route pattern for the log line: the matched row's.
    pub fn pattern(&self) -> &'static str {
        match self {
            Route::Preflight(f) | Route::V1(f) => f.endpoint.pattern,
            Route::Own { endpoint, .. } => endpoint.pattern,
        }
    }
}

/// Whether `param` can be what `id`'s path names there (a mode, a job, a
/// person, an organization); anything else is no route.
fn param_fits(id: OwnId, param: &str) -> bool {
    match id {
        OwnId::VerifyKey | OwnId::ActivateKey => param.parse::<KeyEnv>().is_ok(),
        OwnId::GetJob
        | OwnId::JobRows
        | OwnId::StartJob
        | OwnId::ApproveJob
        | OwnId::DecideJob
        | OwnId::RetryJob
        | OwnId::ReleaseJob
        | OwnId::RetryReleasedRows
        | OwnId::CancelJob
        | OwnId::JobLive
        | OwnId::JobResults
        | OwnId::JobLabels => crate::jobs::is_job_id(param),
        OwnId::SetMemberRole | OwnId::RemoveMember => AccountId::parse(param).is_some(),
        OwnId::ReceiveOrgWebhook => OrgId::parse(param).is_some(),
        _ => true,
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
    Some(percent_decode(value))
}

/// `value` percent-decoded (`+` is a space), as UTF-8 with any bad bytes
/// replaced: a query value, or a header our own client encoded.
pub fn percent_decode(value: &str) -> String {
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
    String::from_utf8_lossy(&out).into_owned()
}

/// Where the forwarded v1 endpoints live.
const V1_PREFIX: &str = "/api/v1/";

pub fn route(
    method: &str,
    raw_path: &str,
    query: Option<&str>,
    upstream: &str,
) -> Result<Route, RouteError> {
    // The forwarded calls, the hot path, skip the Worker's own table: none
    // of its paths is under /api/v1/.
    let own = if raw_path.starts_with(V1_PREFIX) {
        Err(vec![])
    } else {
        api::match_own(method, raw_path)
    };
    match own {
        Ok(own) => {
            let param = own.param.unwrap_or_default();
            if !param_fits(own.endpoint.id, &param) {
                return Err(RouteError::NotFound {
                    path: raw_path.to_string(),
                });
            }
            Ok(Route::Own {
                endpoint: own.endpoint,
                param,
            })
        }
        Err(allowed) if !allowed.is_empty() => Err(RouteError::MethodNotAllowed {
            method: method.to_string(),
            path: raw_path.to_string(),
            allowed: allowed.iter().map(|m| m.as_str()).collect(),
        }),
        // The preflight names the method it asks about; POST is the widget's.
        Err(_) if method == "OPTIONS" => {
            proxy::plan("POST", raw_path, None, upstream).map(Route::Preflight)
        }
        Err(_) => proxy::plan(method, raw_path, query, upstream).map(Route::V1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    const UP: &str = "http://127.0.0.1:8788";

    /// The own endpoint a request is routed to, and its parameter.
    fn own(method: &str, path: &str, query: Option<&str>) -> Option<(OwnId, String)> {
        match route(method, path, query, UP) {
            Ok(Route::Own { endpoint, param }) => Some((endpoint.id, param)),
            _ => None,
        }
    }

    fn id(method: &str, path: &str) -> Option<OwnId> {
        own(method, path, None).map(|(id, _)| id)
    }

    #[test]
    fn own_endpoints_and_their_methods() {
        assert_eq!(id("POST", "/api/session"), Some(OwnId::SignIn));
        assert_eq!(id("DELETE", "/api/session"), Some(OwnId::SignOut));
        assert_eq!(id("PUT", "/api/session/mode"), Some(OwnId::SetMode));
        assert_eq!(
            own("POST", "/api/keys/sandbox/verify", None),
            Some((OwnId::VerifyKey, "sandbox".into()))
        );
        assert_eq!(
            own("POST", "/api/keys/live/activate", None),
            Some((OwnId::ActivateKey, "live".into()))
        );
        assert_eq!(
            id("POST", "/hooks/v1/label-created"),
            Some(OwnId::ReceiveWebhook)
        );
        assert_eq!(id("GET", "/api/webhooks/live"), Some(OwnId::Live));
        assert_eq!(
            own("GET", "/api/labels/lbl_1/pdf", Some("inline=1")),
            Some((OwnId::LabelPdf, "lbl_1".into()))
        );
        assert!(crate::label_pdf::inline(Some("inline=1")));
        assert!(!crate::label_pdf::inline(None));
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
            assert_eq!(
                own("GET", path, Some("weight_oz=20")).map(|(id, _)| id),
                Some(OwnId::WidgetPage)
            );
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
    fn no_own_endpoint_hides_under_the_v1_prefix() {
        for e in &api::OWN_ENDPOINTS {
            assert!(!e.pattern.starts_with(V1_PREFIX), "{}", e.pattern);
        }
    }

    #[test]
    fn job_routes_need_a_job_id() {
        let job = "job_0123456789abcdef01234567";
        assert_eq!(
            own("POST", "/api/jobs", None),
            Some((OwnId::CreateJob, String::new()))
        );
        assert_eq!(
            own("POST", &format!("/api/jobs/{job}/cancel"), None),
            Some((OwnId::CancelJob, job.to_string()))
        );
        assert_eq!(
            own(
                "GET",
                &format!("/api/jobs/{job}/labels.pdf"),
                Some("part=2")
            )
            .map(|(id, _)| id),
            Some(OwnId::JobLabels)
        );
        assert_eq!(
            route("GET", "/api/jobs/lbl_1/rows", None, UP)
                .unwrap_err()
                .status(),
            404
        );
        assert_eq!(
            route("DELETE", &format!("/api/jobs/{job}"), None, UP)
                .unwrap_err()
                .status(),
            405
        );
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
