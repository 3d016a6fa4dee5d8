//! The endpoint table of parts 4, 5 and 8: method, path, scope and limit.

use crate::scopes::Scope;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }

    pub fn parse(method: &str) -> Option<Method> {
        match method {
            "GET" => Some(Method::Get),
            "POST" => Some(Method::Post),
            "DELETE" => Some(Method::Delete),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndpointId {
    ValidateAddress,
    GetRates,
    BuyLabel,
    GetLabel,
    VoidLabel,
    CreateTracker,
    GetTracker,
    ListCarrierAccounts,
    CreateBatch,
    BuyBatch,
    GetBatch,
    GetWallet,
    ListWebhookDeliveries,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    pub id: EndpointId,
    pub method: Method,
    /// Path pattern; `{id}` stands for one id segment.
    pub pattern: &'static str,
    pub scope: Scope,
    pub limit_per_minute: u32,
}

impl Endpoint {
    /// True for the calls that can spend money (`Idempotency-Key` applies).
    pub fn spends_money(&self) -> bool {
        matches!(
            self.id,
            EndpointId::BuyLabel | EndpointId::CreateBatch | EndpointId::BuyBatch
        )
    }
}

const fn ep(
    id: EndpointId,
    method: Method,
    pattern: &'static str,
    scope: Scope,
    limit_per_minute: u32,
) -> Endpoint {
    Endpoint {
        id,
        method,
        pattern,
        scope,
        limit_per_minute,
    }
}

/// Every v1 endpoint. The deliveries listing has no scope in the interface;
/// we require `labels:read`, since its only events are `label.created`.
pub static ENDPOINTS: [Endpoint; 13] = [
    ep(
        EndpointId::ValidateAddress,
        Method::Post,
        "/v1/addresses/validate",
        Scope::AddressesRead,
        200,
    ),
    ep(
        EndpointId::GetRates,
        Method::Post,
        "/v1/rates",
        Scope::RatesRead,
        100,
    ),
    ep(
        EndpointId::BuyLabel,
        Method::Post,
        "/v1/labels",
        Scope::LabelsWrite,
        60,
    ),
    ep(
        EndpointId::GetLabel,
        Method::Get,
        "/v1/labels/{id}",
        Scope::LabelsRead,
        300,
    ),
    ep(
        EndpointId::VoidLabel,
        Method::Delete,
        "/v1/labels/{id}",
        Scope::LabelsWrite,
        30,
    ),
    ep(
        EndpointId::CreateTracker,
        Method::Post,
        "/v1/trackers",
        Scope::TrackingRead,
        200,
    ),
    ep(
        EndpointId::GetTracker,
        Method::Get,
        "/v1/trackers/{id}",
        Scope::TrackingRead,
        300,
    ),
    ep(
        EndpointId::ListCarrierAccounts,
        Method::Get,
        "/v1/carrier-accounts",
        Scope::CarrierAccountsRead,
        300,
    ),
    ep(
        EndpointId::CreateBatch,
        Method::Post,
        "/v1/batches",
        Scope::BatchesWrite,
        10,
    ),
    ep(
        EndpointId::BuyBatch,
        Method::Post,
        "/v1/batches/{id}/buy",
        Scope::BatchesWrite,
        10,
    ),
    ep(
        EndpointId::GetBatch,
        Method::Get,
        "/v1/batches/{id}",
        Scope::BatchesRead,
        300,
    ),
    ep(
        EndpointId::GetWallet,
        Method::Get,
        "/v1/wallet",
        Scope::WalletRead,
        300,
    ),
    ep(
        EndpointId::ListWebhookDeliveries,
        Method::Get,
        "/v1/webhooks/deliveries",
        Scope::LabelsRead,
        300,
    ),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteMatch {
    pub endpoint: &'static Endpoint,
    pub id: Option<String>,
}

/// An id segment: 1 to 64 of `[A-Za-z0-9_-]`. Percent signs, dots and
/// slashes never match, so encoded slashes and `..` cannot reach another path.
pub fn is_valid_id(segment: &str) -> bool {
    (1..=64).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Matches a request to a v1 endpoint, strictly: exact segments, no empty
/// segments, no trailing slash, no query in `path`.
pub fn match_route(method: &str, path: &str) -> Option<RouteMatch> {
    let method = Method::parse(method)?;
    let segments: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
    ENDPOINTS
        .iter()
        .filter(|e| e.method == method)
        .find_map(|endpoint| {
            let pattern: Vec<&str> = endpoint.pattern[1..].split('/').collect();
            if pattern.len() != segments.len() {
                return None;
            }
            let mut id = None;
            for (p, s) in pattern.iter().zip(&segments) {
                if *p == "{id}" {
                    if !is_valid_id(s) {
                        return None;
                    }
                    id = Some((*s).to_string());
                } else if p != s {
                    return None;
                }
            }
            Some(RouteMatch { endpoint, id })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_of_part_4_with_its_limit() {
        let limits: Vec<(&str, &str, u32)> = ENDPOINTS
            .iter()
            .map(|e| (e.method.as_str(), e.pattern, e.limit_per_minute))
            .collect();
        assert_eq!(limits.len(), 13);
        assert!(limits.contains(&("POST", "/v1/rates", 100)));
        assert!(limits.contains(&("POST", "/v1/labels", 60)));
        assert!(limits.contains(&("DELETE", "/v1/labels/{id}", 30)));
        assert!(limits.contains(&("POST", "/v1/batches/{id}/buy", 10)));
        assert!(limits.contains(&("GET", "/v1/webhooks/deliveries", 300)));
    }

    #[test]
    fn matches_ids_and_methods() {
        let m = match_route("GET", "/v1/labels/lbl_123").unwrap();
        assert_eq!(
            (m.endpoint.id, m.id.as_deref()),
            (EndpointId::GetLabel, Some("lbl_123"))
        );
        let m = match_route("DELETE", "/v1/labels/lbl_123").unwrap();
        assert_eq!(m.endpoint.id, EndpointId::VoidLabel);
        assert_eq!(
            match_route("POST", "/v1/batches/b_1/buy")
                .unwrap()
                .endpoint
                .id,
            EndpointId::BuyBatch
        );
        assert_eq!(
            match_route("GET", "/v1/batches/b_1")
                .unwrap()
                .endpoint
                .scope,
            Scope::BatchesRead
        );
        assert!(match_route("PUT", "/v1/wallet").is_none());
        assert!(match_route("POST", "/v1/wallet").is_none());
    }

    #[test]
    fn path_tricks_never_match() {
        for path in [
            "/v1/labels/..",
            "/v1/labels/%2e%2e",
            "/v1/labels/a%2Fb",
            "/v1/labels/a/b",
            "/v1//wallet",
            "/v1/wallet/",
            "//v1/wallet",
            "/v1/labels/",
            "v1/wallet",
            "/v1/labels/a.b",
            "/V1/wallet",
            "/v1/wallet?x=1",
        ] {
            assert!(match_route("GET", path).is_none(), "{path}");
        }
        assert!(match_route("GET", &format!("/v1/labels/{}", "a".repeat(65))).is_none());
    }

    #[test]
    fn only_purchases_spend_money() {
        let spending: Vec<_> = ENDPOINTS
            .iter()
            .filter(|e| e.spends_money())
            .map(|e| e.id)
            .collect();
        assert_eq!(
            spending,
            vec![
                EndpointId::BuyLabel,
                EndpointId::CreateBatch,
                EndpointId::BuyBatch
            ]
        );
    }
}
