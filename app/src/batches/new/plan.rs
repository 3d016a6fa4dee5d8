//! Step 5, the plan: which rate each row buys, how prices are approved,
//! and planning, which stores the job (nothing is bought until the merchant
//! confirms it on the job's page).

use super::import::Imported;
use crate::api::{Client, ClientError};
use crate::batches::rows::checks::job_row;
use crate::batches::rows::{count_rows, group};
use crate::components::address_form::first_problem;
use crate::components::error_view::ErrorView;
use crate::components::field::focus;
use crate::state::write::Write;
use api::jobs::{Approval, CreateJob, Fallback, MAX_NAME_CHARS, Rule};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// The selection rule, how prices are approved, and the plan itself.
#[component]
pub fn PlanForm(
    imported: RwSignal<Option<Imported>>,
    sender: RwSignal<api::Address>,
    sender_shown: RwSignal<bool>,
    bad: Memo<usize>,
) -> impl IntoView {
    let client = Client::get();
    let rule = RwSignal::new("cheapest".to_string());
    let carrier = RwSignal::new(String::new());
    let service = RwSignal::new(String::new());
    let fallback = RwSignal::new("cheapest".to_string());
    let review = RwSignal::new(true);
    let max_row = RwSignal::new("50.00".to_string());
    let max_total = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let dollars = |s: &str| {
        s.trim()
            .trim_start_matches('$')
            .replace(',', "")
            .parse::<f64>()
            .ok()
            .filter(|d| d.is_finite() && *d > 0.0)
            .map(|d| (d * 100.0).round() as i64)
    };
    let request = move || -> Result<CreateJob, (String, String)> {
        let rule = match rule.get_untracked().as_str() {
            "fastest" => Rule::Fastest,
            "lowest_carbon" => Rule::LowestCarbon,
            "service" => {
                let (c, s) = (carrier.get_untracked(), service.get_untracked());
                if c.trim().is_empty() || s.trim().is_empty() {
                    return Err((
                        "plan-carrier".into(),
                        "Name the carrier and the service to buy.".into(),
                    ));
                }
                Rule::Service {
                    carrier: c.trim().into(),
                    service: s.trim().into(),
                    fallback: match fallback.get_untracked().as_str() {
                        "fastest" => Fallback::Fastest,
                        "lowest_carbon" => Fallback::LowestCarbon,
                        "none" => Fallback::None,
                        _ => Fallback::Cheapest,
                    },
                }
            }
            _ => Rule::Cheapest,
        };
        let approval = if review.get_untracked() {
            Approval::ReviewFirst
        } else {
            let row = dollars(&max_row.get_untracked()).ok_or((
                "plan-max-row".to_string(),
                "Enter the most a label may cost, in dollars.".to_string(),
            ))?;
            let total = dollars(&max_total.get_untracked()).ok_or((
                "plan-max-total".to_string(),
                "Enter the most the batch may cost in all, in dollars.".to_string(),
            ))?;
            Approval::BuyAsQuoted {
                max_row_cents: row,
                max_total_cents: total,
            }
        };
        let from = sender.get_untracked();
        if let Some(id) = first_problem("sender", &from) {
            sender_shown.set(true);
            return Err((id, "Complete the sender first.".into()));
        }
        imported.with_untracked(|i| {
            let i = i
                .as_ref()
                .ok_or(("batch-file".to_string(), "Choose a file first.".to_string()))?;
            if i.bad_rows() > 0 {
                return Err((
                    "problems-title".to_string(),
                    format!("Fix the {} with problems first.", count_rows(i.bad_rows())),
                ));
            }
            let rows = i
                .drafts
                .iter()
                .filter_map(|d| job_row(d, &from).ok())
                .collect();
            Ok(CreateJob {
                // A file name fits (255 at most); a pasted name is cut to fit.
                name: Some(i.name.chars().take(MAX_NAME_CHARS).collect()),
                rule,
                approval,
                rows,
            })
        })
    };
    let plan = Write::new(move || {
        let navigate = navigate.clone();
        let ready = request();
        async move {
            let req = match ready {
                Ok(req) => req,
                Err((id, text)) => {
                    problem.set(Some(text));
                    focus(&id);
                    return Ok(());
                }
            };
            problem.set(None);
            let job = client.create_job(&req).await?;
            navigate(&format!("/batches/{}", job.id), Default::default());
            Ok::<(), ClientError>(())
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        plan.submit();
    };
    let radio = move |value: bool, label: &'static str, hint: &'static str| {
        view! {
            <label class="choice">
                <input type="radio" name="approval" prop:checked=move || review.get() == value on:change=move |_| review.set(value) />
                <span>{label}<span class="hint">{hint}</span></span>
            </label>
        }
    };
    view! {
        <section class="card wide" aria-labelledby="plan-title">
            <h2 id="plan-title">"5. Plan"</h2>
            <form on:submit=on_submit novalidate>
                <div class="field">
                    <label for="plan-rule">"Which rate each row buys"</label>
                    <select id="plan-rule" on:change=move |ev| rule.set(event_target_value(&ev))>
                        <option value="cheapest">"The cheapest"</option>
                        <option value="fastest">"The fastest (the cheaper of equals)"</option>
                        <option value="lowest_carbon">"The lowest carbon (the cheaper of equals)"</option>
                        <option value="service">"A carrier and service I name"</option>
                    </select>
                </div>
                <Show when=move || rule.get() == "service">
                    <div class="plan-grid">
                        <div class="field"><label for="plan-carrier">"Carrier"</label>
                            <input id="plan-carrier" type="text" on:input=move |ev| carrier.set(event_target_value(&ev)) /></div>
                        <div class="field"><label for="plan-service">"Service"</label>
                            <input id="plan-service" type="text" on:input=move |ev| service.set(event_target_value(&ev)) /></div>
                        <div class="field"><label for="plan-fallback">"Where it is not offered"</label>
                            <select id="plan-fallback" on:change=move |ev| fallback.set(event_target_value(&ev))>
                                <option value="cheapest">"Buy the cheapest"</option>
                                <option value="fastest">"Buy the fastest"</option>
                                <option value="lowest_carbon">"Buy the lowest carbon"</option>
                                <option value="none">"Buy nothing: the row fails"</option>
                            </select></div>
                    </div>
                </Show>
                <fieldset>
                    <legend>"Before buying"</legend>
                    {radio(true, "Review every price first", " Every row is quoted; you approve the exact total, then it is bought.")}
                    {radio(false, "Buy as quoted, within a ceiling", " Rows are bought as they are quoted; a dearer row waits for you, and the batch pauses at the total.")}
                    <Show when=move || !review.get()>
                        <div class="plan-grid">
                            <div class="field"><label for="plan-max-row">"At most per label ($)"</label>
                                <input id="plan-max-row" type="text" inputmode="decimal" prop:value=move || max_row.get()
                                    on:input=move |ev| max_row.set(event_target_value(&ev)) /></div>
                            <div class="field"><label for="plan-max-total">"At most in all ($)"</label>
                                <input id="plan-max-total" type="text" inputmode="decimal" prop:value=move || max_total.get()
                                    on:input=move |ev| max_total.set(event_target_value(&ev)) /></div>
                        </div>
                    </Show>
                </fieldset>
                {move || problem.get().map(|text| view! { <p class="field-problem" role="alert">{text}</p> })}
                <button type="submit" class="primary" disabled=move || plan.pending()>
                    {move || plan.label("Plan the batch", "Planning…")}
                </button>
                <p class="hint">{move || match bad.get() {
                    0 => "Planning stores the batch and shows its time and cost. Nothing is bought until you confirm.".to_string(),
                    n => format!("Rows with problems: {}. Fix them to plan.", group(n)),
                }}</p>
            </form>
            {move || plan.error().map(|error| view! { <ErrorView error /> })}
        </section>
    }
}
