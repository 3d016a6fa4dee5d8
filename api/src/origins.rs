//! Web origins (`scheme://host[:port]`), as CORS, CSP `frame-ancestors` and
//! `postMessage` compare them.

/// The lowercased origin of an absolute http(s) URL, or `None`. A URL with
/// `user@host` is refused: it can look like one host while going to another.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let host = rest.split(['/', '?', '#']).next()?;
    (matches!(scheme.as_str(), "http" | "https") && !host.is_empty() && !host.contains('@'))
        .then(|| format!("{scheme}://{}", host.to_ascii_lowercase()))
}

/// One widget origin as the CSP will name it (lower-cased), or what is
/// wrong with it: `https://` and a host (and port), no path; `http://`
/// only for 127.0.0.1 or localhost. (`WIDGET_ORIGINS` and an
/// organization's widget settings both hold to it; the app checks one as
/// it is typed.)
pub fn check_origin(origin: &str) -> Result<String, String> {
    let host = origin
        .strip_prefix("https://")
        .or_else(|| {
            origin
                .strip_prefix("http://")
                .filter(|h| h.starts_with("127.0.0.1") || h.starts_with("localhost"))
        })
        .ok_or_else(|| {
            format!("{origin} must start with https:// (http:// only for 127.0.0.1 or localhost)")
        })?;
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
    {
        return Err(format!(
            "{origin} must be an origin: scheme and host (and port), no path"
        ));
    }
    Ok(origin.to_ascii_lowercase())
}

/// The same shop with or without `www.` (`https://shop.example` and
/// `https://www.shop.example`), which browsers treat as two origins: a shop
/// served at both needs both listed. `None` for other hosts (a subdomain
/// other than `www`, an address, localhost).
pub fn www_twin(origin: &str) -> Option<String> {
    let (scheme, rest) = origin.split_once("://")?;
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, format!(":{port}")),
        None => (rest, String::new()),
    };
    let twin = match host.strip_prefix("www.") {
        Some(apex) => apex.to_string(),
        None => format!("www.{host}"),
    };
    let apex = host.strip_prefix("www.").unwrap_or(host);
    let labels = apex.split('.').count();
    let named = apex.bytes().any(|b| b.is_ascii_alphabetic());
    (labels == 2 && named && !apex.contains('/')).then(|| format!("{scheme}://{twin}{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("https://Shop.Example:8443/p/1?x=1").as_deref(),
            Some("https://shop.example:8443")
        );
        assert_eq!(
            origin_of("HTTP://127.0.0.1:9000").as_deref(),
            Some("http://127.0.0.1:9000")
        );
        for url in [
            "",
            "about:blank",
            "ftp://x.example/",
            "https:///x",
            "https://us@evil.example/",
        ] {
            assert_eq!(origin_of(url), None, "{url}");
        }
    }

    #[test]
    fn widget_origins_as_the_csp_names_them() {
        assert_eq!(
            check_origin("https://Shop.Example:8443").as_deref(),
            Ok("https://shop.example:8443")
        );
        assert!(check_origin("http://127.0.0.1:9000").is_ok());
        for bad in [
            "shop.example",
            "http://shop.example",
            "https://shop.example/",
            "https://shop.example/cart",
            "https://",
        ] {
            assert!(check_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_www_twin_of_a_shop() {
        assert_eq!(
            www_twin("https://shop.example").as_deref(),
            Some("https://www.shop.example")
        );
        assert_eq!(
            www_twin("https://www.shop.example:8443").as_deref(),
            Some("https://shop.example:8443")
        );
        for none in [
            "https://store.shop.example",
            "http://127.0.0.1:9000",
            "http://localhost:9000",
        ] {
            assert_eq!(www_twin(none), None, "{none}");
        }
    }
}
