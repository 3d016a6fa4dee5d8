//! A Worker that panics when asked. It is built as the four Workers are
//! (worker-build, then scripts/worker-entry.mjs) with only worker's own
//! panic hook, as they have, so tests/worker-panic.test.mjs can prove what
//! none of them can be made to do on purpose: after a panic, the isolate's
//! next request is answered by a fresh wasm instance. Only that test uses it.

#[cfg(target_arch = "wasm32")]
mod worker_glue {
    use worker::wasm_bindgen::JsValue;
    use worker::wasm_bindgen_futures::JsFuture;
    use worker::web_sys::{Request, Response};
    use worker::{Context, Env, event, js_sys};

    thread_local! {
        /// Made once per wasm instance: a new one after a reset.
        static INSTANCE: String = format!("{:x}", (js_sys::Math::random() * 1e15) as u64);
    }

    #[event(fetch)]
    async fn fetch(req: Request, _env: Env, _ctx: Context) -> worker::Result<Response> {
        let url = req.url();
        if url.ends_with("/panic") {
            // After an await, as a handler's panic would be: inside a
            // later microtask, not the call workerd made.
            JsFuture::from(js_sys::Promise::resolve(&JsValue::NULL)).await?;
            panic!("asked to panic");
        }
        let body = if url.ends_with("/instance") {
            INSTANCE.with(String::clone)
        } else {
            "ok".to_string()
        };
        Ok(Response::new_with_opt_str(Some(&body))?)
    }
}
