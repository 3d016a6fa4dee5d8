//! The jobs: running and finished, with who started them, how prices are
//! approved, the counts and the cost.

use super::progress::{approval, job_state};
use super::rows::group;
use crate::api::Client;
use crate::components::dates::When;
use crate::components::loader::Loader;
use crate::components::money::Money;
use api::Scope;
use api::jobs::JobSummary;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn JobsPage() -> impl IntoView {
    let client = Client::get();
    let jobs = LocalResource::new(move || client.jobs());
    let can_run = client.can(Scope::BatchesWrite) && client.can(Scope::RatesRead);
    view! {
        <h1>"Batches"</h1>
        <p class="hint">"Labels for up to 5,000 shipments at a time, from your store's order export or our template."</p>
        {can_run.then(|| view! { <p><A href="/batches/new" attr:class="button primary">"New batch"</A></p> })}
        <Loader resource=jobs loading="Loading batches…" let:list>
            {if list.jobs.is_empty() {
                view! { <p>"No batches yet."</p> }.into_any()
            } else {
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="Batches">
                        <table class="jobs">
                            <thead><tr>
                                <th scope="col">"Batch"</th><th scope="col">"State"</th><th scope="col">"Started by"</th>
                                <th scope="col">"Prices"</th><th scope="col" class="num">"Bought"</th><th scope="col" class="num">"Failed"</th>
                                <th scope="col" class="num">"Rows"</th><th scope="col" class="num">"Cost"</th><th scope="col">"Mode"</th>
                            </tr></thead>
                            <tbody>{list.jobs.into_iter().map(job_line).collect_view()}</tbody>
                        </table>
                    </div>
                }.into_any()
            }}
        </Loader>
    }
}

fn job_line(j: JobSummary) -> impl IntoView {
    let c = j.counts;
    let cost = if j.cost.bought_cents > 0 {
        j.cost.bought_cents
    } else {
        j.cost.quoted_cents
    };
    view! {
        <tr data-job=j.id.clone()>
            <td><A href=format!("/batches/{}", j.id)>{j.name.clone()}</A><br /><span class="hint"><When unix=j.created_at /></span></td>
            <td>{job_state(j.state)}</td>
            <td>{j.created_by.clone()}</td>
            <td>{approval(&j.approval)}</td>
            <td class="num">{group(c.bought as usize)}</td>
            <td class="num">{group(c.failed as usize)}</td>
            <td class="num">{group(c.total as usize)}</td>
            <td class="num"><Money cents=cost /></td>
            <td>{j.mode.as_str()}</td>
        </tr>
    }
}
