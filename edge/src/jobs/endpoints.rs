//! The job endpoints (`api::jobs`): who may call them, then the job's own
//! object. Creating and running need `batches:write` and `rates:read`;
//! watching needs `batches:read` (and `labels:read` for the label PDFs).

use crate::access::signed_in;
use crate::context::Cx;
use crate::control;
use crate::error::EdgeError;
use api::jobs::{Approval, CreateJob, Job, MAX_PAGE_ROWS, RowState};
use api::validation::{MAX_BODY_BYTES, parse_json};
use api::{EndpointId, KeyEnv, OwnId, Scope};
use domain::access::AccessError;
use domain::access::gate::{self, Principal, Tenant};
use domain::config::Config;
use domain::errors::BadBody;
use domain::errors::RouteError;
use domain::jobs::JobError;
use domain::jobs::engine::Action;
use domain::jobs::{Act, Acted, Create, Get, Jobs, Labels, Results, Rows};
use domain::label_pdf::pdf_source;
use domain::orgs::wire::Record;
use domain::orgs::{Named, object_name};
use domain::prints::{self, LabelSource, PDF_TYPE, PRINT_URL, PrintRequest, Unprinted};
use domain::routes::query_param;
use domain::upstream::budget::with_budgets;
use platform::js::{lines, pass_through};
use platform::objects::{ask, new_request, upgrade};
use platform::reply::response_header_pairs;
use platform::{body_bytes, header, random_hex, reply};
use worker::Env;
use worker::web_sys::{Request, Response};

/// The PDF Worker's service binding (wrangler.toml).
const PDF_BINDING: &str = "PDF";

const RUN: [Scope; 2] = [Scope::BatchesWrite, Scope::RatesRead];
const WATCH: [Scope; 1] = [Scope::BatchesRead];
const PRINT: [Scope; 2] = [Scope::BatchesRead, Scope::LabelsRead];

/// The object of job `id` in the caller's organization: another
/// organization's job id names an empty object there, so it is not found.
fn named(config: &Config, id: &str) -> String {
    object_name(&config.org, Named::Job { id })
}

/// The job behind the path, or 404: a job of the other mode is not found either.
async fn job(
    env: &Env,
    config: &Config,
    id: &str,
    mode: KeyEnv,
) -> Result<api::jobs::Job, EdgeError> {
    ask::<Jobs, _>(env, &named(config, id), Get {})
        .await?
        .filter(|job| job.mode == mode)
        .ok_or_else(|| JobError::NotFound { id: id.to_string() }.into())
}

/// The signed-in caller of a job endpoint and the mode they may use with `scopes`.
async fn caller(cx: &mut Cx<'_>, scopes: &[Scope]) -> Result<(Principal, KeyEnv), EdgeError> {
    let principal = signed_in(cx).await?;
    let mode = gate::require(&principal, &*cx.config, scopes)?;
    Ok((principal, mode))
}

/// `POST /api/jobs`: a checked import becomes a job (nothing is bought yet).
pub(crate) async fn create(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (principal, mode) = caller(cx, &RUN).await?;
    new_job(req, cx.env, &cx.config, mode, &principal).await
}

/// `GET /api/jobs`: one read, the control store keeps every job's summary.
pub(crate) async fn list(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &WATCH).await?;
    let jobs = control::list_jobs(cx.env, &cx.config.org, mode).await?;
    reply::json(200, &api::jobs::JobList { jobs }, &[])
}

pub(crate) async fn get(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &WATCH).await?;
    reply::json(200, &job(cx.env, &cx.config, &cx.param, mode).await?, &[])
}

/// A page of the job's rows; a page of another mode's job is not shown.
pub(crate) async fn rows(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &WATCH).await?;
    let (env, config, id, query) = (cx.env, &cx.config, &cx.param, cx.query);
    job(env, config, id, mode).await?;
    let number = |name: &str, default: u32| {
        query_param(query, name)
            .map(|v| v.parse::<u32>().map_err(|_| name.to_string()))
            .transpose()
            .map(|v| v.unwrap_or(default))
    };
    let state = match query_param(query, "state") {
        None => None,
        Some(s) => Some(RowState::from_name(&s).ok_or_else(|| bad_query("state", &s))?),
    };
    let offset = number("offset", 0).map_err(|n| bad_query(&n, "offset"))?;
    let limit = number("limit", 200).map_err(|n| bad_query(&n, "limit"))?;
    let page = ask::<Jobs, _>(
        env,
        &named(config, id),
        Rows {
            state,
            offset,
            limit: limit.clamp(1, MAX_PAGE_ROWS),
        },
    )
    .await?
    .ok_or(JobError::NotFound { id: id.clone() })?;
    reply::json(200, &page, &[])
}

/// A merchant's action on a job, as the endpoint `id` names it: start,
/// approve, retry, release or cancel (no body); decisions on rows the job
/// could not settle alone, or released rows bought again, acknowledged
/// (`api::jobs`; the body is read once the caller may act on the job).
pub(crate) async fn act(req: Request, cx: &mut Cx<'_>, id: OwnId) -> Result<Response, EdgeError> {
    let asked = match id {
        OwnId::ApproveJob => Asked::Plain(Action::Approve),
        OwnId::RetryJob => Asked::Plain(Action::Retry),
        OwnId::ReleaseJob => Asked::Plain(Action::Release),
        OwnId::CancelJob => Asked::Plain(Action::Cancel),
        OwnId::DecideJob => Asked::Decide,
        OwnId::RetryReleasedRows => Asked::RetryReleased,
        _ => Asked::Plain(Action::Start),
    };
    acted(req, cx, asked).await
}

/// An action as its path names it.
enum Asked {
    Plain(Action),
    Decide,
    RetryReleased,
}

async fn acted(req: Request, cx: &mut Cx<'_>, asked: Asked) -> Result<Response, EdgeError> {
    let (principal, mode) = caller(cx, &RUN).await?;
    let (env, config, id) = (cx.env, &cx.config, &cx.param);
    job(env, config, id, mode).await?;
    let action = match asked {
        Asked::Plain(action) => action,
        Asked::Decide => {
            Action::Decide(parse_json(&body_bytes(&req).await).map_err(BadBody::Invalid)?)
        }
        Asked::RetryReleased => {
            Action::RetryReleased(parse_json(&body_bytes(&req).await).map_err(BadBody::Invalid)?)
        }
    };
    let approving = matches!(action, Action::Approve);
    match ask::<Jobs, _>(env, &named(config, id), Act { action }).await? {
        Acted::Done { job } => {
            if approving {
                audit_approval(env, &principal, &job).await;
            }
            reply::json(200, &job, &[])
        }
        Acted::Refused { reason } => Err(JobError::ActionRefused { reason }.into()),
        Acted::Missing => Err(JobError::NotFound { id: id.clone() }.into()),
    }
}

/// The job's live feed (a WebSocket the job object keeps).
pub(crate) async fn live(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &WATCH).await?;
    // A cross-site page must not open the feed with our cookie.
    gate::require_own_origin(&cx.facts)?;
    if !header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
        return Err(RouteError::UpgradeRequired.into());
    }
    job(cx.env, &cx.config, &cx.param, mode).await?;
    upgrade::<Jobs>(
        cx.env,
        &named(&cx.config, &cx.param),
        domain::jobs::LIVE_URL,
    )
    .await
    .map_err(EdgeError::from)
}

/// The job's results as CSV.
pub(crate) async fn results(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &WATCH).await?;
    let (env, config, id) = (cx.env, &cx.config, &cx.param);
    job(env, config, id, mode).await?;
    let csv = ask::<Jobs, _>(env, &named(config, id), Results {})
        .await?
        .ok_or(JobError::NotFound { id: id.clone() })?;
    reply::file(
        200,
        csv.as_bytes(),
        "text/csv; charset=utf-8",
        &format!(r#"attachment; filename="{id}-results.csv""#),
    )
}

/// One merged PDF of the job's bought labels.
pub(crate) async fn labels(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let (_, mode) = caller(cx, &PRINT).await?;
    job(cx.env, &cx.config, &cx.param, mode).await?;
    merged_labels(cx.env, &cx.config, mode, &cx.param, cx.query).await
}

fn bad_query(name: &str, value: &str) -> BadBody {
    BadBody::Invalid(api::validation::BodyError::Invalid {
        field: name.to_string(),
        reason: format!("{value:?} is not a valid value"),
    })
}

async fn new_job(
    req: Request,
    env: &Env,
    config: &Config,
    mode: KeyEnv,
    principal: &Principal,
) -> Result<Response, EdgeError> {
    let body = body_bytes(&req).await;
    if body.len() > MAX_BODY_BYTES {
        return Err(BadBody::TooLarge.into());
    }
    let request: CreateJob = parse_json(&body).map_err(BadBody::Invalid)?;
    request.check().map_err(JobError::from)?;
    let Principal::User { session, .. } = principal else {
        return Err(AccessError::SignInRequired(domain::access::SignInReason::NoSession).into());
    };
    let id = format!("job_{}", random_hex(12)?);
    let job = ask::<Jobs, _>(
        env,
        &named(config, &id),
        Create {
            id: id.clone(),
            org: config.org.clone(),
            request: String::from_utf8_lossy(&body).into_owned(),
            mode,
            created_by: config.actor(&session.user).to_string(),
            // The pace starts from the limit this isolate last saw for quotes.
            rates_limit: with_budgets(&config.org, |b| b.limit_seen(mode, EndpointId::GetRates)),
            rates_share: config.jobs.rates_share,
            max_chunk_rows: config.jobs.max_chunk_rows,
        },
    )
    .await?;
    // A buy-as-quoted job is approved as it is made: its ceilings.
    if matches!(job.approval, Approval::BuyAsQuoted { .. }) {
        audit_approval(env, principal, &job).await;
    }
    reply::json(201, &job, &[])
}

/// Who committed a batch's money goes in the organization's audit log.
async fn audit_approval(env: &Env, principal: &Principal, job: &Job) {
    if let (Principal::User { session, .. }, Some(record)) =
        (principal, Record::batch_approved(job))
    {
        crate::accounts::record(env, session, &record).await;
    }
}

/// One merged PDF: `?part=N` (100 labels each, row order, 1-based), or
/// `?chunk=N` for one chunk's (its first 100 with `part`). The PDF Worker
/// fetches the labels, merges them once and keeps the file (`domain::prints`);
/// the PDF streams through.
async fn merged_labels(
    env: &Env,
    config: &Config,
    mode: KeyEnv,
    id: &str,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let param = |name: &str| -> Result<Option<u32>, BadBody> {
        query_param(query, name)
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| bad_query(name, &v))
            })
            .transpose()
    };
    let part = param("part")?.unwrap_or(1);
    let chunk = param("chunk")?;
    let sources = ask::<Jobs, _>(env, &named(config, id), Labels { chunk, part })
        .await?
        .ok_or(JobError::NotFound { id: id.to_string() })?;
    if sources.is_empty() {
        return Err(JobError::LabelsNone { part }.into());
    }
    let labels = sources
        .into_iter()
        .map(|(reference, url)| {
            let with_key = pdf_source(&url, &config.upstream.url)
                .map_err(|_| JobError::LabelPdf {
                    reference: reference.clone(),
                })?
                .with_key;
            Ok(LabelSource {
                reference,
                url,
                with_key,
            })
        })
        .collect::<Result<Vec<_>, EdgeError>>()?;
    // The key goes along only for labels on the service's own origin.
    let key = if labels.iter().any(|l| l.with_key) {
        let (key, _) = control::active_key(env, &config.org, config.keys_for(mode)?).await;
        Some(key.expose().to_string())
    } else {
        None
    };
    let request = PrintRequest {
        job: id.to_string(),
        slot: prints::slot(chunk, part),
        labels,
        key,
        timeout_ms: config.upstream.timeout_ms as u32,
    };
    let name = match chunk {
        Some(c) => format!("{id}-chunk-{c}-part-{part}.pdf"),
        None => format!("{id}-labels-{part}.pdf"),
    };
    print(env, &request, &format!(r#"attachment; filename="{name}""#)).await
}

/// The PDF Worker's file for `request`, streamed through; or its refusal
/// as the Worker's own error.
async fn print(
    env: &Env,
    request: &PrintRequest,
    disposition: &str,
) -> Result<Response, EdgeError> {
    let unavailable = |why: &str| {
        worker::console_error!("the PDF Worker made no file: {why}");
        JobError::PrintUnavailable
    };
    let body = serde_json::to_string(request).map_err(|e| unavailable(&e.to_string()))?;
    let call = new_request(PRINT_URL, "POST", &[], Some(&body))
        .ok_or_else(|| unavailable("the request could not be made"))?;
    let merger = env
        .service(PDF_BINDING)
        .map_err(|e| unavailable(&e.to_string()))?;
    let mut answer = merger
        .fetch_request(call)
        .await
        .map_err(|e| unavailable(&e.to_string()))?;
    let status = answer.status_code();
    if status == 200 {
        let extra = [
            ("Content-Type", PDF_TYPE.to_string()),
            ("Content-Disposition", disposition.to_string()),
        ];
        let raw: Response = answer.into();
        return Ok(pass_through(
            &raw,
            &lines(response_header_pairs(&[], &extra)),
        ));
    }
    let text = answer.text().await.unwrap_or_default();
    match serde_json::from_str::<Unprinted>(&text) {
        Ok(Unprinted::LabelUnavailable { reference }) => {
            Err(JobError::LabelPdf { reference }.into())
        }
        Ok(Unprinted::Failed { reason }) => Err(unavailable(&reason).into()),
        Err(_) => Err(unavailable(&format!("HTTP {status}")).into()),
    }
}
