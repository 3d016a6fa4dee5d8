//! The app's wasm, served brotli-compressed at the highest quality from a
//! file made at build time (`scripts/build-app`): the platform would
//! otherwise compress it on the fly at a lower quality (locally: gzip, ~30%
//! larger). Everything else static is served by the platform's assets.
//! The batch screens (their own build under `/batches/`) reach the Worker
//! first for every path there (`run_worker_first`): their page for the
//! app's routes, their files as the platform has them.

#[cfg(target_arch = "wasm32")]
pub(crate) mod glue;

/// A Trunk-built module (`/app-<hash>_bg.wasm`, or the widget's under
/// `/widget/`, or the batch screens' under `/batches/`): one file name, no tricks.
pub fn is_app_wasm(path: &str) -> bool {
    let name = path
        .strip_prefix(api::widget::PAGE_PATH)
        .or_else(|| path.strip_prefix(api::jobs::PAGE_PATH))
        .or_else(|| path.strip_prefix('/'));
    name.is_some_and(|name| name.ends_with("_bg.wasm") && is_file_name(name))
}

fn is_file_name(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.contains("..")
}

/// A file of the batch screens' build (`/batches/batches-<hash>.js`, its
/// CSS, its icon): a name with a dot, which no page path has.
pub fn is_batches_file(path: &str) -> bool {
    path.strip_prefix(api::jobs::PAGE_PATH)
        .is_some_and(|name| name.contains('.') && is_file_name(name))
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
    fn only_the_app_module_is_taken() {
        assert!(is_app_wasm("/app-8f66875f74ed6a20_bg.wasm"));
        assert!(is_app_wasm("/widget/widget-8f66875f74ed6a20_bg.wasm"));
        assert!(!is_app_wasm("/widget/x/widget_bg.wasm"));
        assert!(!is_app_wasm("/api/app_bg.wasm"));
        assert!(!is_app_wasm("/..%2F_bg.wasm"));
        assert!(!is_app_wasm("/app.js"));
        assert!(!is_app_wasm("/x/../y_bg.wasm"));
        assert!(is_app_wasm("/batches/batches-8f66875f74ed6a20_bg.wasm"));
    }

    #[test]
    fn the_batch_screens_files_are_not_their_pages() {
        assert!(is_batches_file("/batches/batches-8f66875f74ed6a20.js"));
        assert!(is_batches_file("/batches/favicon-0a.svg"));
        assert!(!is_batches_file("/batches/job_0123456789abcdef01234567"));
        assert!(!is_batches_file("/batches/new"));
        assert!(!is_batches_file("/batches/"));
        assert!(!is_batches_file("/batches/../_headers"));
        assert!(!is_batches_file("/batches/a/b.js"));
        assert!(!is_batches_file("/widget/x.js"));
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
