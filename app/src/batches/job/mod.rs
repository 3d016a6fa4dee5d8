//! One job, where it is, on any device: its plan and the confirmation
//! (nothing is bought before it), the approval of the exact total, the
//! progress from the job's live feed, the rows (windowed, filtered, each
//! with its detail: `rows`), and the results: CSV, merged label PDFs,
//! retry. The page holds the job and its rows in `held`.

mod held;
mod rows;

use super::client::{JobAct, job_path, live_path};
use super::progress::{
    self, all_quoted, announce_now, announcement, by_carrier, ceiling, duration, label_parts,
    notification, title,
};
use super::rows::group;
use crate::api::Client;
use crate::api::live::use_feed;
use crate::components::dates::When;
use crate::components::error_view::ErrorView;
use crate::components::money::{Money, format_cents};
use crate::components::service::with_dashboard;
use crate::state::write::Write;
use api::jobs::{Approval, Decide, Job, JobState, JobUpdate, RetryReleased, RowState, RowView};
use api::{KeyEnv, Scope};
use held::Held;
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;
use rows::RowsTable;

/// The tab's title when no job is open.
const PAGE_TITLE: &str = "Parcel · batches";

#[component]
pub fn JobPage() -> impl IntoView {
    let client = Client::get();
    let id = use_params_map().with_untracked(|p| p.get("id").unwrap_or_default());
    let held = Held::new();
    held.load(client, id.clone());
    let connected = use_feed(&live_path(&id), move |u: JobUpdate| held.take_update(u));
    // After a drop the feed may have missed changes: read everything again.
    let dropped = StoredValue::new(false);
    let reload_id = id.clone();
    Effect::new(move |_| {
        if connected.get() {
            if dropped.get_value() {
                dropped.set_value(false);
                held.load(client, reload_id.clone());
            }
        } else if held.job.with_untracked(Option::is_some) {
            dropped.set_value(true);
        }
    });
    let announce = RwSignal::new(String::new());
    let notify = RwSignal::new(false);
    watch(held.job, announce, notify);
    let retry_id = id.clone();
    let retry = Callback::new(move |()| held.load(client, retry_id.clone()));
    let loaded = Memo::new(move |_| held.job.with(Option::is_some));
    view! {
        {move || held.error.get().map(|error| view! { <ErrorView error retry /> })}
        <Show when=move || loaded.get()
            fallback=move || held.error.with(Option::is_none).then(|| crate::components::loader::busy("Loading the batch…"))>
            <JobView held id=id.clone() announce notify />
        </Show>
    }
}

/// Follows the job with the tab title, the polite announcement (throttled)
/// and, when `notify` is on, a browser notification.
fn watch(job: RwSignal<Option<Job>>, announce: RwSignal<String>, notify: RwSignal<bool>) {
    let before = StoredValue::new(None::<JobState>);
    let announced = StoredValue::new(None::<f64>);
    Effect::new(move |_| {
        job.with(|j| {
            let Some(j) = j else { return };
            document().set_title(&title(j));
            let changed = before.get_value() != Some(j.state);
            let now = super::now_ms();
            if announce_now(announced.get_value(), now, changed) {
                announced.set_value(Some(now));
                announce.set(announcement(j));
            }
            if let Some(was) = before.get_value()
                && notify.get_untracked()
                && let Some(text) = notification(was, j)
            {
                notify_now(&text);
            }
            before.set_value(Some(j.state));
        });
    });
    on_cleanup(|| document().set_title(PAGE_TITLE));
}

fn notify_now(text: &str) {
    if web_sys::Notification::permission() == web_sys::NotificationPermission::Granted {
        let options = web_sys::NotificationOptions::new();
        options.set_body(text);
        let _ = web_sys::Notification::new_with_options("Parcel batch", &options);
    }
}

#[component]
fn JobView(
    held: Held,
    id: String,
    announce: RwSignal<String>,
    notify: RwSignal<bool>,
) -> impl IntoView {
    let client = Client::get();
    let can_run = client.can(Scope::BatchesWrite) && client.can(Scope::RatesRead);
    let job = move || held.job.get();
    let with_job =
        move |f: &dyn Fn(&Job) -> String| held.job.with(|j| j.as_ref().map(f).unwrap_or_default());
    let state = Memo::new(move |_| held.job.with(|j| j.as_ref().map(|j| j.state)));
    let act = |act: JobAct| {
        let id = id.clone();
        Write::new(move || {
            let id = id.clone();
            async move {
                held.keep(client.job_act(id, act).await?);
                Ok(())
            }
        })
    };
    let start = act(JobAct::Start);
    let approve = act(JobAct::Approve);
    let retry = act(JobAct::Retry);
    let release = act(JobAct::Release);
    let cancel = act(JobAct::Cancel);
    let decide = |accept: bool| {
        let id = id.clone();
        Write::new(move || {
            let id = id.clone();
            let rows = held.rows.with_untracked(|r| {
                r.iter()
                    .flatten()
                    .filter(|r| r.state == RowState::NeedsDecision)
                    .map(|r| r.index)
                    .collect()
            });
            async move {
                let decided = client.job_decide(id, &Decide { rows, accept }).await?;
                held.keep(decided);
                Ok(())
            }
        })
    };
    let (accept, skip) = (decide(true), decide(false));
    // A released row is bought again only by name, once the merchant acknowledged it.
    let releasing = RwSignal::new(None::<u32>);
    let retry_released = {
        let id = id.clone();
        Write::new(move || {
            let id = id.clone();
            let rows = releasing.get_untracked().into_iter().collect();
            async move {
                let retry = RetryReleased {
                    rows,
                    acknowledged: true,
                };
                held.keep(client.job_retry_released(id, &retry).await?);
                Ok(())
            }
        })
    };
    let wallet = client
        .can(Scope::WalletRead)
        .then(|| LocalResource::new(move || client.wallet()));
    let wallet_line = move |total: (i64, &'static str)| {
        wallet.and_then(|w| w.get()).map(|w| match w {
            Ok(w) => view! { <p data-testid="wallet">{progress::wallet(&w, total)}</p> }.into_any(),
            Err(error) => view! { <ErrorView error /> }.into_any(),
        })
    };
    let errors = move || {
        [
            start,
            approve,
            retry,
            release,
            cancel,
            accept,
            skip,
            retry_released,
        ]
        .into_iter()
        .find_map(|w| w.error())
        .map(|error| view! { <ErrorView error /> })
    };
    let quoted_rows = Memo::new(move |_| {
        held.rows.with(|r| {
            let rows: Vec<RowView> = r.iter().flatten().cloned().collect();
            by_carrier(&rows)
        })
    });
    let breakdown = move || {
        let lines = quoted_rows.get();
        (!lines.is_empty()).then(|| view! {
            <table class="breakdown">
                <caption>"By carrier"</caption>
                <thead><tr><th scope="col">"Carrier"</th><th scope="col" class="num">"Rows"</th><th scope="col" class="num">"Cost"</th></tr></thead>
                <tbody>
                    {lines.into_iter().map(|(carrier, n, cents)| view! {
                        <tr><th scope="row">{carrier}</th><td class="num">{group(n as usize)}</td><td class="num"><Money cents /></td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        })
    };
    let sandbox = with_job(&|j| (j.mode == KeyEnv::Sandbox).to_string()) == "true";
    let results_href = job_path(&id, "/results.csv");
    let pdf_base = job_path(&id, "/labels.pdf");
    view! {
        <p><A href="/batches">"← All batches"</A></p>
        <h1>{move || with_job(&|j| format!("Batch: {}", j.name))}</h1>
        {sandbox.then(|| view! { <p class="notice" role="note">"Sandbox batch: the labels are not mailable and nothing is charged."</p> })}
        <p class="visually-hidden" role="status" aria-live="polite" data-testid="announcement">{move || announce.get()}</p>
        <dl class="facts">
            <dt>"State"</dt><dd data-testid="job-state">{move || state.get().map(progress::job_state)}</dd>
            <dt>"Rows"</dt><dd>{move || with_job(&|j| group(j.counts.total as usize))}</dd>
            <dt>"Rule"</dt><dd>{move || with_job(&|j| match &j.rule {
                api::jobs::Rule::Cheapest => "The cheapest rate".to_string(),
                api::jobs::Rule::Fastest => "The fastest rate".to_string(),
                api::jobs::Rule::LowestCarbon => "The lowest-carbon rate".to_string(),
                api::jobs::Rule::Service { carrier, service, .. } => format!("{carrier} {service}"),
            })}</dd>
            <dt>"Prices"</dt><dd>{move || with_job(&|j| progress::approval(&j.approval))}</dd>
            <dt>"Started by"</dt><dd data-testid="started-by">{move || job().map(|j| view! { {j.created_by.clone()} " on " <When unix=j.created_at /> })}</dd>
        </dl>
        {move || job().and_then(|j| j.problem.clone()).map(|p| view! {
            <div class="notice notice-warn" role="alert" data-testid="job-problem"><p>{with_dashboard(&progress::problem(&p))}</p></div>
        })}
        {errors}

        // The plan, and the one button that starts spending.
        <Show when=move || state.get() == Some(JobState::Planned)>
            <section class="card wide" aria-labelledby="plan-title">
                <h2 id="plan-title">"The plan"</h2>
                {move || job().map(|j| {
                    let e = j.estimate;
                    let pace = (e.rates_per_minute as f64 * e.share).floor() as u32;
                    view! {
                        <dl class="facts">
                            <dt>"Shipments to quote"</dt><dd>{format!("{} ({} identical rows share a quote)", group(e.distinct_shipments as usize), group((j.counts.total - e.distinct_shipments) as usize))}</dd>
                            <dt>"Pace"</dt><dd>{format!("{pace} quotes a minute: {:.0}% of your {} a minute rates limit, the rest kept for the dashboard", e.share * 100.0, e.rates_per_minute)}</dd>
                            <dt>"Chunks"</dt><dd>{format!("{} of up to {} rows, each bought while its rates are valid", group(e.chunks as usize), group(e.chunk_rows as usize))}</dd>
                            <dt>"Time"</dt><dd data-testid="plan-time">{format!("About {}: {} quoting, {} making labels", duration(e.quote_seconds + e.process_seconds), duration(e.quote_seconds), duration(e.process_seconds))}</dd>
                            <dt>"Cost"</dt><dd data-testid="plan-cost">{match ceiling(&j) {
                                Some(c) => format!("At most {} (your ceilings); exact once quoted", format_cents(c)),
                                None => "Exact after quoting: you approve the total before anything is bought".to_string(),
                            }}</dd>
                        </dl>
                        {ceiling(&j).map(|c| wallet_line((c, "the ceiling")))}
                    }
                })}
                {can_run.then(|| view! {
                    <div class="actions">
                        <button type="button" class="primary" disabled=move || start.pending() on:click=move |_| start.submit()>
                            {move || match (start.pending(), held.job.with(|j| j.as_ref().map(|j| j.approval))) {
                                (true, _) => "Starting…",
                                (_, Some(Approval::ReviewFirst)) => "Confirm: start quoting",
                                _ => "Confirm: quote and buy",
                            }}
                        </button>
                        <button type="button" class="secondary" disabled=move || cancel.pending() on:click=move |_| cancel.submit()>"Discard this plan"</button>
                    </div>
                })}
            </section>
        </Show>

        // Review first: the exact total, per carrier, against the wallet.
        <Show when=move || state.get() == Some(JobState::AwaitingApproval)>
            <section class="card wide" aria-labelledby="approve-title">
                <h2 id="approve-title">"Approve the total"</h2>
                {move || job().map(|j| view! {
                    <p data-testid="exact-total">"Every row is quoted: " <strong><Money cents=j.cost.quoted_cents /></strong> {format!(" for {} labels.", group(j.counts.quoted as usize))}</p>
                    {wallet_line((j.cost.quoted_cents, "the total"))}
                })}
                {breakdown}
                {can_run.then(|| view! {
                    <div class="actions">
                        <button type="button" class="primary" disabled=move || approve.pending() on:click=move |_| approve.submit()>
                            {move || approve.label("Approve and buy", "Approving…")}
                        </button>
                        <button type="button" class="secondary" disabled=move || cancel.pending() on:click=move |_| cancel.submit()>"Cancel the batch"</button>
                    </div>
                })}
            </section>
        </Show>

        // Running, waiting or done.
        <Show when=move || !matches!(state.get(), Some(JobState::Planned) | Some(JobState::AwaitingApproval) | None)>
            <section class="card wide" aria-labelledby="progress-title">
                <h2 id="progress-title">"Progress"</h2>
                {move || job().map(|j| {
                    let c = j.counts;
                    view! {
                        <progress max="100" value=j.progress_percentage.to_string() aria-labelledby="progress-title"
                            data-testid="progress"></progress>
                        <p data-testid="progress-text">{format!("{}%{}", j.progress_percentage, match (j.state.is_finished(), j.eta_seconds) {
                            (false, Some(s)) => format!(" · about {} left", duration(s)),
                            _ => String::new(),
                        })}</p>
                        <ul class="counts" aria-label="Rows by state">
                            <li data-testid="count-quoted">{format!("Quoted: {}", group(c.quoted as usize))}</li>
                            <li data-testid="count-bought">{format!("Bought: {}", group(c.bought as usize))}</li>
                            <li data-testid="count-failed">{format!("Failed: {}", group(c.failed as usize))}</li>
                            <li data-testid="count-waiting">{format!("Waiting: {}", group((c.pending + c.in_batch) as usize))}</li>
                            <li>{format!("Waiting for a decision: {}", group(c.needs_decision as usize))}</li>
                            <li>{format!("Skipped: {}", group(c.skipped as usize))}</li>
                            {(c.released > 0).then(|| view! { <li data-testid="count-released">{format!("Released: {}", group(c.released as usize))}</li> })}
                        </ul>
                        <p>{if all_quoted(&j) {
                            format!("Cost: {} bought{}", format_cents(j.cost.bought_cents), if j.cost.quoted_cents > 0 { format!(", {} more quoted", format_cents(j.cost.quoted_cents)) } else { String::new() })
                        } else {
                            format!("Cost so far: {} bought, {} quoted{}", format_cents(j.cost.bought_cents), format_cents(j.cost.quoted_cents),
                                ceiling(&j).map(|c| format!("; at most {}", format_cents(c))).unwrap_or_default())
                        }}</p>
                    }
                })}
                {breakdown}
                <div class="field-check">
                    <input id="notify" type="checkbox" prop:checked=move || notify.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            notify.set(on);
                            if on {
                                let _ = web_sys::Notification::request_permission();
                            }
                        } />
                    <label for="notify">"Notify me when the batch ends or needs me"</label>
                </div>
                {can_run.then(|| view! {
                    <div class="actions">
                        <Show when=move || held.job.with(|j| j.as_ref().is_some_and(|j| j.counts.needs_decision > 0))>
                            <button type="button" class="primary" disabled=move || accept.pending() on:click=move |_| accept.submit()>"Accept the new prices"</button>
                            <button type="button" class="secondary" disabled=move || skip.pending() on:click=move |_| skip.submit()>"Skip those rows"</button>
                        </Show>
                        <Show when=move || matches!(held.job.with(|j| j.as_ref().and_then(|j| j.problem.clone())), Some(api::jobs::JobProblem::NeedsFunds { .. }))>
                            <button type="button" class="primary" disabled=move || start.pending() on:click=move |_| start.submit()>"Resume (funds added)"</button>
                        </Show>
                        <Show when=move || matches!(held.job.with(|j| j.as_ref().and_then(|j| j.problem.clone())), Some(api::jobs::JobProblem::OutcomeUnknown { .. }))>
                            <button type="button" class="secondary" disabled=move || release.pending() on:click=move |_| release.submit()>"Release the chunk"</button>
                        </Show>
                        <Show when=move || held.job.with(|j| j.as_ref().is_some_and(|j| j.counts.failed > 0 && !matches!(j.state, JobState::Stopped | JobState::Quoting)))>
                            <button type="button" class="primary" disabled=move || retry.pending() on:click=move |_| retry.submit()>
                                {move || with_job(&|j| format!("Retry the {} failed rows", group(j.counts.failed as usize)))}
                            </button>
                        </Show>
                        <Show when=move || matches!(state.get(), Some(s) if !s.is_finished())>
                            <button type="button" class="secondary" disabled=move || cancel.pending() on:click=move |_| cancel.submit()>"Cancel the batch"</button>
                        </Show>
                    </div>
                })}
            </section>
            <section class="card wide" aria-labelledby="results-title">
                <h2 id="results-title">"Results"</h2>
                <p><a href=results_href.clone() download="">"Download the results (CSV)"</a>" · one line per row: reference, status, tracking number, label, price or the error."</p>
                {
                    let pdf_base = pdf_base.clone();
                    move || {
                        let bought = held.job.with(|j| j.as_ref().map_or(0, |j| j.counts.bought));
                        let parts = label_parts(bought);
                        (parts > 0).then(|| view! {
                            <p>"Labels to print, 100 to a file in row order:"</p>
                            <ul class="links">
                                {(1..=parts).map(|n| view! {
                                    <li><a href=format!("{pdf_base}?part={n}") download="">{format!("Labels PDF {n} of {parts}")}</a></li>
                                }).collect_view()}
                            </ul>
                        })
                    }
                }
            </section>
        </Show>
        <RowsTable held retry=can_run.then_some(retry_released) releasing />
    }
}
