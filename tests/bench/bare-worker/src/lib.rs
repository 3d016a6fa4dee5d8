//! The floor a Rust Worker pays: take the call, add the key, forward it,
//! stream the answer back. Same raw `web_sys` types as the real Worker, no
//! checks, no log line. Only the benchmark uses it.

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
        Ok(answer.unchecked_into())
    }
}
