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
}
