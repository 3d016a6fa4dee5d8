//! Which requests are forwarded, where to, and which headers cross back.
//! Only the v1 endpoints of the contract are reachable: the route table in
//! `api` is the allow-list, so this is never an open proxy.

use crate::errors::{BadBody, RouteError};
use api::endpoints::{self, Endpoint, EndpointId};

/// Prefix under which the app reaches the v1 endpoints on the Worker.
pub const API_PREFIX: &str = "/api";

/// Response headers from upstream that the browser gets; everything else
/// (hop-by-hop, cookies, server details) is dropped.
pub const PASSED_RESPONSE_HEADERS: &[&str] = &[
    "content-type",
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
];

/// Headers on every `/api` answer: never cached, never sniffed, no referrer.
/// (The app's static assets get theirs from `dist/_headers`.)
pub const API_SECURITY_HEADERS: &[(&str, &str)] = &[
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    (
        "Strict-Transport-Security",
        "max-age=63072000; includeSubDomains",
    ),
];

#[derive(Debug)]
pub struct Forward {
    pub endpoint: &'static Endpoint,
    /// Absolute upstream URL: `{upstream}/v1/...` plus the query, if any.
    pub url: String,
}

/// Maps `/api/v1/...` to the upstream URL of a known v1 endpoint.
/// `raw_path` must be the path as received (still percent-encoded), so
/// encoded slashes and dots never match an id segment.
pub fn plan(
    method: &str,
    raw_path: &str,
    query: Option<&str>,
    upstream: &str,
) -> Result<Forward, RouteError> {
    let not_found = || RouteError::NotFound {
        path: raw_path.to_string(),
    };
    let v1_path = raw_path
        .strip_prefix(API_PREFIX)
        .filter(|p| p.starts_with("/v1/"))
        .ok_or_else(not_found)?;
    let Some(matched) = endpoints::match_route(method, v1_path) else {
        let allowed = allowed_methods(v1_path);
        if allowed.is_empty() {
            return Err(not_found());
        }
        return Err(RouteError::MethodNotAllowed {
            method: method.to_string(),
            path: raw_path.to_string(),
            allowed,
        });
    };
    let mut url = format!("{upstream}{v1_path}");
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        url.push('?');
        url.push_str(q);
    }
    Ok(Forward {
        endpoint: matched.endpoint,
        url,
    })
}

/// Methods that do match `path`, to tell a wrong method from a wrong path.
fn allowed_methods(path: &str) -> Vec<&'static str> {
    ["GET", "POST", "DELETE"]
        .into_iter()
        .filter(|m| endpoints::match_route(m, path).is_some())
        .collect()
}

/// Parses the body with the contract type of its endpoint and applies the
/// contract's field rules (lengths, codes that exist, parcel bounds) as the
/// service does, so a malformed request is refused with the field named
/// before it costs an upstream call.
pub fn check_body(endpoint: EndpointId, body: &[u8]) -> Result<(), BadBody> {
    use api::validation::parse_json;
    let parsed = match endpoint {
        EndpointId::ValidateAddress => parse_json::<api::Address>(body).and_then(|a| a.check("")),
        EndpointId::GetRates => parse_json::<api::RatesRequest>(body).and_then(|r| r.check()),
        EndpointId::BuyLabel => parse_json::<api::BuyLabelRequest>(body).map(drop),
        EndpointId::CreateTracker => parse_json::<api::CreateTrackerRequest>(body).map(drop),
        EndpointId::CreateBatch => {
            parse_json::<api::CreateBatchRequest>(body).and_then(|b| b.check())
        }
        // Buying a batch needs no body; one that is sent must still be one
        // JSON value, as the service reads it.
        EndpointId::BuyBatch if !body.is_empty() => {
            parse_json::<api::BuyBatchRequest>(body).map(drop)
        }
        // No body (GET, DELETE).
        _ => Ok(()),
    };
    parsed.map_err(BadBody::Invalid)
}

pub fn is_passed_response_header(name: &str) -> bool {
    PASSED_RESPONSE_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;
    use api::endpoints::EndpointId;

    const UP: &str = "http://127.0.0.1:8788";

    #[test]
    fn wallet_is_forwarded_to_upstream_v1() {
        let f = plan("GET", "/api/v1/wallet", None, UP).unwrap();
        assert_eq!(f.endpoint.id, EndpointId::GetWallet);
        assert_eq!(f.url, "http://127.0.0.1:8788/v1/wallet");
    }

    #[test]
    fn ids_and_queries_are_kept() {
        let f = plan("DELETE", "/api/v1/labels/lbl_123", None, UP).unwrap();
        assert_eq!(f.endpoint.id, EndpointId::VoidLabel);
        assert_eq!(f.url, "http://127.0.0.1:8788/v1/labels/lbl_123");
        let f = plan("GET", "/api/v1/webhooks/deliveries", Some("limit=5"), UP).unwrap();
        assert_eq!(
            f.url,
            "http://127.0.0.1:8788/v1/webhooks/deliveries?limit=5"
        );
    }

    #[test]
    fn path_tricks_never_match() {
        for path in [
            "/api/v1/labels/..%2Fwallet",
            "/api/v1/labels/%2e%2e",
            "/api/v1//wallet",
            "/api/v1/wallet/",
            "/api//v1/wallet",
            "/api/v1/labels/a/b",
            "/api/v2/wallet",
            "/api/http://evil.example/v1/wallet",
            "/api/v1/labels/..",
            "/v1/wallet",
            "/api/v1/",
            "/api",
        ] {
            let err = plan("GET", path, None, UP).unwrap_err();
            assert!(
                matches!(err, RouteError::NotFound { .. }),
                "{path}: {err:?}"
            );
        }
    }

    #[test]
    fn wrong_method_is_405_naming_the_right_one() {
        match plan("PUT", "/api/v1/wallet", None, UP).unwrap_err() {
            RouteError::MethodNotAllowed { allowed, .. } => assert_eq!(allowed, vec!["GET"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bodies_are_checked_against_the_contract_types() {
        assert_eq!(
            check_body(EndpointId::BuyLabel, br#"{"rate_id":"rate_1"}"#),
            Ok(())
        );
        let err = check_body(EndpointId::GetRates, br#"{"from_address":{}}"#).unwrap_err();
        let body = err.to_body("r");
        assert!(
            body.contains("VALIDATION.FIELD.REQUIRED")
                && body.contains(r#""field":"from_address.name""#),
            "{body}"
        );
        assert_eq!(err.status(), 422);
        let err = check_body(EndpointId::CreateTracker, br#"{"tracking_number":5}"#).unwrap_err();
        assert!(err.to_body("r").contains(r#""field":"tracking_number""#));
        assert_eq!(check_body(EndpointId::BuyBatch, b""), Ok(()));
    }

    #[test]
    fn the_contracts_field_rules_apply_before_anything_is_forwarded() {
        let address = |street2: &str| {
            format!(
                r#"{{"name":"Ada","street1":"1 Elm St","street2":"{street2}","city":"Brooklyn","state":"NY","zip":"11201","country":"US"}}"#
            )
        };
        let parcel = r#"{"weight_oz":10,"length":6,"width":4,"height":2}"#;
        let long = "x".repeat(101);
        let rates = format!(
            r#"{{"from_address":{},"to_address":{},"parcel":{parcel}}}"#,
            address(""),
            address(&long)
        );
        let body = check_body(EndpointId::GetRates, rates.as_bytes())
            .unwrap_err()
            .to_body("r");
        assert!(
            body.contains(r#""field":"to_address.street2""#)
                && body.contains("at most 100 characters"),
            "{body}"
        );
        let item = format!(
            r#"{{"from_address":{},"to_address":{},"parcel":{parcel},"rate_id":"r","carrier":"c","service":"s","rate_cents":1}}"#,
            address(""),
            address("").replace(r#""NY""#, r#""ZZ""#)
        );
        let batch = format!(r#"{{"items":[{item}]}}"#);
        let body = check_body(EndpointId::CreateBatch, batch.as_bytes())
            .unwrap_err()
            .to_body("r");
        assert!(
            body.contains(r#""field":"items[0].to_address.state""#),
            "{body}"
        );
        assert_eq!(
            check_body(EndpointId::ValidateAddress, address("Apt 4").as_bytes()),
            Ok(())
        );
    }

    #[test]
    fn cookies_and_hop_by_hop_headers_stay_upstream() {
        assert!(is_passed_response_header("X-RateLimit-Remaining"));
        assert!(is_passed_response_header("Retry-After"));
        for h in ["set-cookie", "connection", "transfer-encoding", "server"] {
            assert!(!is_passed_response_header(h), "{h}");
        }
    }
}
