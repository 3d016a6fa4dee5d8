//! The request pipeline for `/v1`: request id, authentication before routing,
//! routing by the `api` endpoint table, scope, per-key per-endpoint per-minute
//! limits, and the headers every response carries.

use std::sync::Arc;

use api::endpoints::{self, Endpoint};
use api::{ApiKey, ErrorCode, KeyEnv};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Sim;
use crate::clock::id_hex;
use crate::errors::SimError;
use crate::world::{KeyRecord, World, limit_window};

pub fn is_v1(path: &str) -> bool {
    path == "/v1" || path.starts_with("/v1/")
}

/// Who is calling, for the handlers.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: String,
    pub env: KeyEnv,
    pub now: u64,
    pub id: Option<String>,
    /// This request's `X-Request-Id`.
    pub request_id: String,
}

pub async fn v1_pipeline(State(sim): State<Arc<Sim>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if !is_v1(&path) {
        return next.run(req).await;
    }
    let request_id = format!("req_{}", id_hex(12));
    let method = req.method().as_str().to_string();
    let route = endpoints::match_route(&method, &path);
    let endpoint = route.as_ref().map(|r| r.endpoint);
    let now = sim.clock.now();

    let authorized = authorize(
        &sim,
        &req,
        route.as_ref().map(|r| r.endpoint),
        &method,
        &path,
        now,
    );
    let mut response = match authorized {
        Err(mut e) => {
            // Refused before any key was charged (no valid key, no such
            // endpoint): the headers still say where the caller stands.
            if e.headers.is_empty() {
                e.headers = uncounted_headers(route.as_ref().map(|r| r.endpoint), &path, now);
            }
            e.into_response()
        }
        Ok((caller, headers)) => {
            let mut req = req;
            req.extensions_mut().insert(Caller {
                id: route.and_then(|r| r.id),
                request_id: request_id.clone(),
                ..caller
            });
            let mut response = next.run(req).await;
            insert_headers(&mut response, headers);
            let latency = sim.world().faults().latency_for(endpoint);
            if latency > 0 {
                // The effect already happened; only the answer is late.
                tokio::time::sleep(std::time::Duration::from_millis(latency)).await;
            }
            response
        }
    };
    finish(&mut response, &request_id);
    response
}

/// The key in `Authorization`, if it is one the service would accept now:
/// present, well formed, known, not revoked, not expired.
pub fn bearer_key(
    world: &World,
    headers: &HeaderMap,
    now: u64,
) -> Result<(String, KeyRecord), SimError> {
    let header = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(header) = header else {
        return Err(SimError::new(
            ErrorCode::AuthKeyMissing,
            "No Authorization header was sent.",
            "Send Authorization: Bearer <API_KEY> with a key from the dashboard (Apps & Tools → Unleashed).",
        ));
    };
    let invalid = || {
        SimError::new(
            ErrorCode::AuthKeyInvalid,
            "The API key is malformed or does not exist.",
            "Check the key: svc_live_ or svc_test_ followed by 32 hexadecimal characters, copied whole.",
        )
    };
    // The scheme is case-insensitive (RFC 9110); the key itself is not.
    let token = match header.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => return Err(invalid()),
    };
    ApiKey::parse(token).map_err(|_| invalid())?;
    let key = world.key(token).cloned().ok_or_else(invalid)?;
    if key.revoked {
        return Err(SimError::new(
            ErrorCode::AuthKeyRevoked,
            "This API key was revoked.",
            "Create a new key in the dashboard and switch your application to it.",
        ));
    }
    if key.expires_at.is_some_and(|at| now >= at) {
        return Err(SimError::new(
            ErrorCode::AuthKeyExpired,
            "This API key is past its expiration date.",
            "Create a new key in the dashboard and switch your application to it.",
        ));
    }
    Ok((token.to_string(), key))
}

fn authorize(
    sim: &Sim,
    req: &Request,
    endpoint: Option<&'static Endpoint>,
    method: &str,
    path: &str,
    now: u64,
) -> Result<(Caller, LimitHeaders), SimError> {
    let mut world = sim.world();
    let (token, key) = bearer_key(&world, req.headers(), now)?;
    let token = token.as_str();
    world.presented(token);
    let Some(endpoint) = endpoint else {
        let allowed: Vec<&str> = endpoints::allowed_methods(path)
            .into_iter()
            .map(|m| m.as_str())
            .collect();
        return Err(if allowed.is_empty() {
            SimError::new(
                ErrorCode::RoutePathNotFound,
                format!("There is no endpoint at {method} {path}."),
                "See the v1 interface for the list of endpoints.",
            )
        } else {
            SimError::new(
                ErrorCode::RouteMethodNotAllowed,
                format!("{method} is not allowed on {path}."),
                format!("Use {}.", allowed.join(" or ")),
            )
        });
    };

    // The limit counts every authenticated call to the endpoint, in windows of one simulated minute.
    let budget = world.count_call(token, endpoint, now);
    let (limit, remaining, reset) = (budget.limit, budget.remaining, budget.reset);
    if budget.refused {
        let retry = reset - now;
        let mut e = SimError::new(
            ErrorCode::AuthRateLimitExceeded,
            format!(
                "Too many requests: {} {} allows {limit} requests per minute per key.",
                endpoint.method.as_str(),
                endpoint.pattern
            ),
            format!("Wait {retry} seconds (Retry-After) before calling again."),
        );
        e.error.retry_after_seconds = Some(retry);
        e.headers = limit_headers(limit, 0, reset);
        e.headers.push(("retry-after", retry.to_string()));
        return Err(e);
    }
    let headers = limit_headers(limit, remaining, reset);

    if !key.scopes.contains(&endpoint.scope) {
        let action = format!("{} {}", endpoint.method.as_str(), endpoint.pattern);
        let mut e = SimError::insufficient_scope(endpoint.scope, &action, &key.scopes);
        e.headers = headers;
        return Err(e);
    }
    drop(world);
    Ok((
        Caller {
            account: key.account,
            env: key.env,
            now,
            id: None,
            request_id: String::new(),
        },
        headers,
    ))
}

type LimitHeaders = Vec<(&'static str, String)>;

/// `X-RateLimit-*` for a call counted against no key: the endpoint's limit
/// (for a wrong method the smallest of the path's endpoints, for an unknown
/// path the smallest of all), all of it remaining, reset at the end of the
/// current minute.
fn uncounted_headers(endpoint: Option<&Endpoint>, path: &str, now: u64) -> LimitHeaders {
    let limit = endpoint
        .map(|e| e.limit_per_minute)
        .or_else(|| {
            endpoints::allowed_methods(path)
                .into_iter()
                .filter_map(|m| endpoints::match_route(m.as_str(), path))
                .map(|r| r.endpoint.limit_per_minute)
                .min()
        })
        .or_else(|| {
            endpoints::ENDPOINTS
                .iter()
                .map(|e| e.limit_per_minute)
                .min()
        })
        .unwrap_or(0);
    let (_, reset) = limit_window(now);
    limit_headers(limit, limit, reset)
}

fn limit_headers(limit: u32, remaining: u32, reset: u64) -> LimitHeaders {
    vec![
        ("x-ratelimit-limit", limit.to_string()),
        ("x-ratelimit-remaining", remaining.to_string()),
        ("x-ratelimit-reset", reset.to_string()),
    ]
}

fn insert_headers(response: &mut Response, headers: LimitHeaders) {
    for (name, value) in headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(HeaderName::from_static(name), v);
        }
    }
}

/// Stamps the request id into the header and, for errors, into the body.
pub fn finish(response: &mut Response, request_id: &str) {
    if let Some(err) = response.extensions_mut().remove::<SimError>() {
        *response.body_mut() = Body::from(err.body(request_id));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        insert_headers(response, err.headers);
    }
    if let Ok(v) = HeaderValue::from_str(request_id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("x-request-id"), v);
    }
}
