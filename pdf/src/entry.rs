//! The PDF Worker's one endpoint, `POST /print` (`domain::prints`): it calls
//! the job's prints object until the file is ready (each call fetches a few
//! labels in an invocation of its own) and answers with the object's last
//! answer. Anything else is refused: only the main Worker's binding reaches
//! this Worker.

use crate::print::calls_for;
use crate::prints::{FETCHED, unprinted};
use domain::prints::{PRINT_PATH, PrintRequest, Unprinted};
use worker::wasm_bindgen::JsValue;
use worker::{Context, Env, Method, Request, RequestInit, Response, Result, event};

/// The prints objects' binding (pdf/wrangler.toml).
const PRINTS: &str = "PRINTS";

fn refuse(status: u16, reason: String) -> Result<Response> {
    unprinted(status, Unprinted::Failed { reason })
}

#[event(fetch)]
async fn fetch(mut req: Request, env: Env, _ctx: Context) -> Result<Response> {
    if req.method() != Method::Post || req.path() != PRINT_PATH {
        return refuse(404, format!("only POST {PRINT_PATH} is served here"));
    }
    let body = req.text().await?;
    let request: PrintRequest = match serde_json::from_str(&body) {
        Ok(request) => request,
        // Where, not what: the request carries the key.
        Err(e) => {
            let at = format!("line {} column {}", e.line(), e.column());
            return refuse(400, format!("unreadable request at {at}"));
        }
    };
    if request.labels.is_empty() {
        return refuse(400, "a print needs labels".into());
    }
    let prints = env
        .durable_object(PRINTS)?
        .id_from_name(&request.job)?
        .get_stub()?;
    for _ in 0..calls_for(request.labels.len()) {
        let mut init = RequestInit::new();
        init.with_method(Method::Post)
            .with_body(Some(JsValue::from_str(&body)));
        let call = Request::new_with_init("https://prints/print", &init)?;
        let answer = prints.fetch_with_request(call).await?;
        if answer.status_code() != FETCHED {
            return Ok(answer);
        }
    }
    refuse(
        503,
        "the job's labels changed while they were fetched".into(),
    )
}
