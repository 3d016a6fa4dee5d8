//! The app's wasm, served brotli-compressed at the highest quality from a
//! file made at build time (`scripts/build-app`): the platform would
//! otherwise compress it on the fly at a lower quality (locally: gzip, ~30%
//! larger). The dashboard's modules are its first load (`/app-<hash>_bg.wasm`)
//! and the chunks its rarely opened pages fetch (`/split_<page>-<hash>.wasm`,
//! `/chunk_<n>-<hash>.wasm`); the widget's is under `/widget/`. Every name
//! carries its content's hash, so each is immutable. Everything else static
//! is served by the platform's assets.

/// A built module at the top or under `/widget/`: one file name, no tricks.
pub fn is_app_wasm(path: &str) -> bool {
    let name = path
        .strip_prefix(api::widget::PAGE_PATH)
        .or_else(|| path.strip_prefix('/'));
    name.is_some_and(|name| name.ends_with(".wasm") && is_file_name(name))
}

fn is_file_name(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.contains("..")
}

/// Whether `Accept-Encoding` admits `br` (a `q=0` refuses it).
pub fn accepts_brotli(accept_encoding: Option<&str>) -> bool {
    accept_encoding.is_some_and(|header| {
        header.split(',').any(|part| {
            let mut pieces = part.split(';').map(str::trim);
            let coding = pieces.next().unwrap_or("");
            let refused = pieces.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            coding.eq_ignore_ascii_case("br") && !refused
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_app_modules_are_taken() {
        assert!(is_app_wasm("/app-8f66875f74ed6a20_bg.wasm"));
        assert!(is_app_wasm("/split_batches-8f66875f74ed6a20.wasm"));
        assert!(is_app_wasm("/chunk_7-8f66875f74ed6a20.wasm"));
        assert!(is_app_wasm("/widget/widget-8f66875f74ed6a20_bg.wasm"));
        assert!(!is_app_wasm("/widget/x/widget_bg.wasm"));
        assert!(!is_app_wasm("/api/app_bg.wasm"));
        assert!(!is_app_wasm("/..%2F_bg.wasm"));
        assert!(!is_app_wasm("/app.js"));
        assert!(!is_app_wasm("/x/../y_bg.wasm"));
        assert!(!is_app_wasm("/batches/x.wasm"));
    }

    #[test]
    fn reads_accept_encoding() {
        assert!(accepts_brotli(Some("gzip, deflate, br, zstd")));
        assert!(accepts_brotli(Some("BR;q=0.5")));
        assert!(!accepts_brotli(Some("gzip, br;q=0")));
        assert!(!accepts_brotli(Some("gzip")));
        assert!(!accepts_brotli(None));
    }
}
