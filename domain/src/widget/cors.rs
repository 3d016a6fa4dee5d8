//! CORS for the storefront widget only: exact configured origins, no
//! credentials, `Vary: Origin`. The dashboard is same-origin and gets none.

/// What a widget call sends besides its body: its JSON's type.
pub const WIDGET_CALL: (&str, &str) = ("POST", "Content-Type");

/// Answer to a preflight from an allowed origin for `(methods, headers)`:
/// a widget call's ([`WIDGET_CALL`]) or the embed script's status read.
pub fn preflight_headers(
    origin: &str,
    (methods, headers): (&str, &str),
) -> Vec<(&'static str, String)> {
    vec![
        ("Access-Control-Allow-Origin", origin.to_string()),
        ("Access-Control-Allow-Methods", methods.into()),
        ("Access-Control-Allow-Headers", headers.into()),
        ("Access-Control-Max-Age", "600".into()),
        ("Vary", "Origin".into()),
    ]
}

/// Headers on a widget call's answer, so its script can read the body and
/// the headers it needs to back off.
pub fn response_headers(origin: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Access-Control-Allow-Origin", origin.to_string()),
        (
            "Access-Control-Expose-Headers",
            "X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset".into(),
        ),
        ("Vary", "Origin".into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_allows_credentials_or_wildcards() {
        for headers in [
            preflight_headers("https://shop.example", WIDGET_CALL),
            response_headers("https://shop.example"),
        ] {
            assert!(
                headers
                    .iter()
                    .all(|(n, v)| *n != "Access-Control-Allow-Credentials" && v != "*")
            );
            assert!(headers.contains(&("Vary", "Origin".to_string())));
        }
    }
}
