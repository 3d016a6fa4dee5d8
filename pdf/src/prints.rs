//! The job's prints object (`LabelPrints`, SQLite, one per job): its labels'
//! PDFs and merged files, stored in pieces, and the fetches and merges that
//! fill them (`crate::print` decides which). A call answers with the file
//! (200), with [`FETCHED`] when it fetched labels and more remain (the
//! caller calls again: a fresh invocation, with its own subrequests), or
//! with [`Unprinted`] (502 for a label at fault, 500 otherwise).

use std::collections::HashSet;

use futures_util::future::join_all;
use worker::js_sys::{self, Uint8Array};
use worker::wasm_bindgen::JsCast;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{
    DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue, State,
    durable_object, web_sys,
};

use crate::merge::merge;
use crate::print::{Next, PIECE_BYTES, file_key, next};
use domain::prints::{LabelSource, PDF_TYPE, PrintRequest, Unprinted};

/// "Labels fetched and stored; call again for the rest."
pub const FETCHED: u16 = 202;

/// Labels fetched at once: an invocation keeps at most six connections
/// open, later fetches wait for one anyway.
const AT_ONCE: usize = 6;

const TABLES: [&str; 2] = [
    // One label's PDF by its URL, in pieces written together: piece 0
    // stored means the whole file is.
    "CREATE TABLE IF NOT EXISTS labels (url TEXT NOT NULL, piece INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (url, piece))",
    // The merged file of a slot (`wire::slot`), under its key (`print::file_key`).
    "CREATE TABLE IF NOT EXISTS files (slot TEXT NOT NULL, piece INTEGER NOT NULL, key TEXT NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (slot, piece))",
];

#[durable_object]
pub struct LabelPrints {
    state: State,
}

impl DurableObject for LabelPrints {
    fn new(state: State, _env: Env) -> Self {
        Self { state }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let request: PrintRequest = match req.json().await {
            Ok(request) => request,
            // Not what was wrong: the request carries the key.
            Err(_) => {
                let reason = "unreadable request".to_string();
                return unprinted(400, Unprinted::Failed { reason });
            }
        };
        let sql = self.state.storage().sql();
        match print(&sql, &request).await {
            Ok(answer) => Ok(answer),
            // Storage failed: the reason is SQLite's, never the request's key.
            Err(e) => unprinted(
                500,
                Unprinted::Failed {
                    reason: e.to_string(),
                },
            ),
        }
    }
}

pub(crate) fn unprinted(status: u16, why: Unprinted) -> Result<Response> {
    Ok(Response::from_json(&why)?.with_status(status))
}

fn pdf(bytes: Vec<u8>) -> Result<Response> {
    let mut answer = Response::from_bytes(bytes)?;
    answer.headers_mut().set("Content-Type", PDF_TYPE)?;
    Ok(answer)
}

/// A stored file's pieces, joined (`None`: no piece).
fn read(sql: &SqlStorage, query: &str, bindings: Vec<SqlStorageValue>) -> Result<Option<Vec<u8>>> {
    let mut file: Option<Vec<u8>> = None;
    for row in sql.exec(query, bindings)?.raw() {
        if let Some(SqlStorageValue::Blob(piece)) = row?.into_iter().next() {
            file.get_or_insert_with(Vec::new).extend_from_slice(&piece);
        }
    }
    Ok(file)
}

/// Stores `bytes` in pieces as `table`'s row `name` (with `key`),
/// replacing what was there. No await between the writes: they are
/// committed together.
fn store(sql: &SqlStorage, table: &str, name: &str, key: Option<&str>, bytes: &[u8]) -> Result<()> {
    let column = if table == "files" { "slot" } else { "url" };
    sql.exec(
        &format!("DELETE FROM {table} WHERE {column} = ?"),
        vec![name.into()],
    )?;
    let pieces: Vec<&[u8]> = if bytes.is_empty() {
        vec![&[]]
    } else {
        bytes.chunks(PIECE_BYTES).collect()
    };
    for (n, piece) in pieces.into_iter().enumerate() {
        let mut values = vec![name.into(), (n as i64).into(), piece.to_vec().into()];
        let query = match key {
            Some(key) => {
                values.push(key.into());
                format!("INSERT INTO {table} ({column}, piece, bytes, key) VALUES (?, ?, ?, ?)")
            }
            None => format!("INSERT INTO {table} ({column}, piece, bytes) VALUES (?, ?, ?)"),
        };
        sql.exec(&query, values)?;
    }
    Ok(())
}

/// One call for the file of `request`: served if stored under its labels;
/// else this call fetches the next labels not stored (at most
/// `print::FETCH_PER_CALL`) and, once every label is stored, merges them
/// and stores the file.
async fn print(sql: &SqlStorage, request: &PrintRequest) -> Result<Response> {
    for ddl in TABLES {
        sql.exec(ddl, None)?;
    }
    let labels = &request.labels;
    let key = file_key(labels);
    let mut fetched = false;
    loop {
        let query = "SELECT bytes FROM files WHERE slot = ? AND key = ? ORDER BY piece";
        if let Some(file) = read(
            sql,
            query,
            vec![request.slot.as_str().into(), key.as_str().into()],
        )? {
            return pdf(file);
        }
        let mut stored = HashSet::new();
        for label in labels {
            let query = "SELECT piece FROM labels WHERE url = ? AND piece = 0";
            if sql
                .exec(query, vec![label.url.as_str().into()])?
                .raw()
                .next()
                .is_some()
            {
                stored.insert(label.url.as_str());
            }
        }
        match next(labels, |url| stored.contains(url)) {
            Next::Fetch(_) if fetched => {
                let progress = serde_json::json!({ "stored": stored.len(), "total": labels.len() });
                return Ok(Response::from_json(&progress)?.with_status(FETCHED));
            }
            Next::Fetch(batch) => {
                if let Some(reference) = fetch(sql, request, &batch).await? {
                    return unprinted(502, Unprinted::LabelUnavailable { reference });
                }
                fetched = true;
            }
            Next::Merge => return merged(sql, request, &key).await,
        }
    }
}

/// Fetches and stores `batch`; the reference of the first label whose PDF
/// could not be had, if any (the others are kept).
async fn fetch(
    sql: &SqlStorage,
    request: &PrintRequest,
    batch: &[&LabelSource],
) -> Result<Option<String>> {
    for group in batch.chunks(AT_ONCE) {
        let answers = join_all(group.iter().map(|label| {
            let key = if label.with_key {
                request.key.as_deref()
            } else {
                None
            };
            fetch_label(&label.url, key, request.timeout_ms)
        }))
        .await;
        let mut failed = None;
        for (label, answer) in group.iter().zip(answers) {
            match answer {
                Ok(bytes) => store(sql, "labels", &label.url, None, &bytes)?,
                Err(why) => {
                    worker::console_error!("label PDF of row {}: {why}", label.reference);
                    failed.get_or_insert_with(|| label.reference.clone());
                }
            }
        }
        if failed.is_some() {
            return Ok(failed);
        }
    }
    Ok(None)
}

/// One label's PDF: the key goes only where `key` is given.
async fn fetch_label(
    url: &str,
    key: Option<&str>,
    timeout_ms: u32,
) -> std::result::Result<Vec<u8>, String> {
    let failed = |what: &str| what.to_string();
    let headers = web_sys::Headers::new().map_err(|_| failed("no headers"))?;
    let bearer = key.map(|k| format!("Bearer {k}"));
    let mut pairs = vec![("Accept", PDF_TYPE)];
    if let Some(bearer) = &bearer {
        pairs.push(("Authorization", bearer.as_str()));
    }
    for (name, value) in pairs {
        headers.set(name, value).map_err(|_| failed("no headers"))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_headers(&headers);
    init.set_signal(Some(&web_sys::AbortSignal::timeout_with_u32(timeout_ms)));
    let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let answer = JsFuture::from(global.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| failed("no answer (unreachable or timed out)"))?;
    let answer: web_sys::Response = answer.unchecked_into();
    if answer.status() != 200 {
        return Err(format!("HTTP {}", answer.status()));
    }
    let body = answer.array_buffer().map_err(|_| failed("no body"))?;
    let body = JsFuture::from(body)
        .await
        .map_err(|_| failed("body cut off"))?;
    Ok(Uint8Array::new(&body).to_vec())
}

/// Merges the stored labels and stores the file in the slot.
async fn merged(sql: &SqlStorage, request: &PrintRequest, key: &str) -> Result<Response> {
    let mut pdfs = Vec::with_capacity(request.labels.len());
    for label in &request.labels {
        let query = "SELECT bytes FROM labels WHERE url = ? ORDER BY piece";
        pdfs.push(read(sql, query, vec![label.url.as_str().into()])?.unwrap_or_default());
    }
    match merge(&pdfs) {
        Ok(file) => {
            store(sql, "files", &request.slot, Some(key), &file)?;
            pdf(file)
        }
        Err(e) => {
            let label = e.label.and_then(|n| request.labels.get(n));
            worker::console_error!("merge failed at label {:?}: {}", e.label, e.reason);
            match label {
                Some(label) => {
                    // What was stored for it is no PDF: the next try fetches it again.
                    sql.exec(
                        "DELETE FROM labels WHERE url = ?",
                        vec![label.url.as_str().into()],
                    )?;
                    unprinted(
                        502,
                        Unprinted::LabelUnavailable {
                            reference: label.reference.clone(),
                        },
                    )
                }
                None => unprinted(500, Unprinted::Failed { reason: e.reason }),
            }
        }
    }
}
