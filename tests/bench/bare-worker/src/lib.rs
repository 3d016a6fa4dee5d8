//! The floor a Rust Worker pays: take the call, add the key, forward it,
//! stream the answer back. Same raw `web_sys` types as the real Worker, no
//! checks. With the `LOG` var set it also writes the one JSON log line per
//! request that the real Worker must write: the floor of a Rust Worker that
//! logs. Only the benchmark uses it.

#[cfg(target_arch = "wasm32")]
mod worker_glue {
    use worker::wasm_bindgen::{JsCast, JsValue};
    use worker::wasm_bindgen_futures::JsFuture;
    use worker::web_sys::{Headers, Request, RequestInit, Response, WorkerGlobalScope};
    use worker::{Context, Env, event, js_sys};

    #[event(fetch)]
    async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
        let upstream = env.var("UPSTREAM")?.to_string();
        let key = env.var("KEY")?.to_string();
        let url = req.url();
        let after_scheme = url.find("://").map_or(0, |i| i + 3);
        let path = url[after_scheme..]
            .find('/')
            .map_or("/", |i| &url[after_scheme + i..]);
        let headers = Headers::new()?;
        headers.set("Authorization", &format!("Bearer {key}"))?;
        if let Some(t) = req.headers().get("Content-Type")? {
            headers.set("Content-Type", &t)?;
        }
        let init = RequestInit::new();
        init.set_method(&req.method());
        init.set_headers(&headers);
        if let Some(body) = req.body() {
            init.set_body(&body);
        }
        let target = format!("{upstream}{}", path.strip_prefix("/api").unwrap_or(path));
        let forwarded = Request::new_with_str_and_init(&target, &init)?;
        let global: WorkerGlobalScope = js_sys::global().unchecked_into();
        let answer: JsValue = JsFuture::from(global.fetch_with_request(&forwarded)).await?;
        let answer: Response = answer.unchecked_into();
        if env.var("LOG").is_ok() {
            // The real Worker's line, same fields and size (domain/src/log.rs).
            worker::console_log!(
                r#"{{"request_id":"req_edge_0123456789abcdef01234567","method":"{}","route":"{}","principal":"user:operator1","role":"operator","status":{},"upstream_status":{},"upstream_request_id":"req_0123456789abcdef","upstream_ms":1,"total_ms":1}}"#,
                req.method(),
                path,
                answer.status(),
                answer.status()
            );
        }
        Ok(answer)
    }
}
