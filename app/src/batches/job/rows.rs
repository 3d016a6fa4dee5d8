//! The job's rows, windowed: the filters, each row's line, and the detail
//! of the chosen one (with buying a released row again).

use super::held::Held;
use crate::api::encode;
use crate::batches::progress::{Filter, chunk_of, row_state, wallet_verdict};
use crate::batches::rows::group;
use crate::batches::table::{Viewport, spacer};
use crate::components::address_form::one_line;
use crate::components::dates::calendar_day;
use crate::components::money::{Money, format_cents};
use crate::components::service::{DASHBOARD, ServiceDashboard, with_dashboard};
use crate::state::write::Write;
use api::inbox::label_pdf_path;
use api::jobs::{ChunkView, RowState, RowView};
use leptos::prelude::*;

/// Every row, windowed: filters, and the detail of the chosen one.
#[component]
pub fn RowsTable(
    held: Held,
    retry: Option<Write>,
    releasing: RwSignal<Option<u32>>,
) -> impl IntoView {
    let filter = RwSignal::new(Filter::All);
    let selected = RwSignal::new(None::<u32>);
    let viewport = Viewport::new();
    let container = NodeRef::<leptos::html::Div>::new();
    let matching = Memo::new(move |_| {
        let f = filter.get();
        held.rows.with(|rows| {
            rows.iter()
                .flatten()
                .filter(|r| f.admits(r.state))
                .map(|r| r.index)
                .collect::<Vec<u32>>()
        })
    });
    let range = Memo::new(move |_| viewport.range(matching.with(Vec::len)));
    // Keyed by what a row shows, so unchanged rows keep their nodes.
    let shown = move || {
        let (start, end) = range.get();
        let indices = matching.with(|m| m[start..end].to_vec());
        held.rows.with(|rows| {
            indices
                .iter()
                .filter_map(|&i| rows.get(i as usize).cloned().flatten())
                .collect::<Vec<_>>()
        })
    };
    let choose = move |f: Filter| {
        if let Some(el) = container.get_untracked() {
            el.set_scroll_top(0);
        }
        viewport.to_top();
        filter.set(f);
    };
    view! {
        <section aria-labelledby="rows-title">
            <h2 id="rows-title">"Rows"</h2>
            <div class="filters" role="group" aria-label="Show rows">
                {Filter::ALL.into_iter().map(|f| view! {
                    <button type="button" class="secondary" aria-pressed=move || (filter.get() == f).to_string()
                        on:click=move |_| choose(f)>
                        {move || format!("{} ({})", f.label(), group(held.job.with(|j| j.as_ref().map_or(0, |j| f.count(j))) as usize))}
                    </button>
                }).collect_view()}
            </div>
            <div class="windowed" tabindex="0" role="region" aria-labelledby="rows-title" node_ref=container
                on:scroll=move |ev| viewport.on_scroll(ev) data-testid="rows-viewport">
                <table>
                    <thead>
                        <tr>
                            <th scope="col">"Row"</th>
                            <th scope="col">"Reference"</th>
                            <th scope="col">"State"</th>
                            <th scope="col">"Service"</th>
                            <th scope="col" class="num">"Price"</th>
                            <th scope="col">"Tracking or problem"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {spacer(move || range.get().0, 6)}
                        <For each=shown key=|r| (r.index, r.state, r.label_id.clone(), r.quote.as_ref().map(|q| q.rate_cents)) let:row>
                            {row_line(row, selected)}
                        </For>
                        {spacer(move || matching.with(Vec::len) - range.get().1, 6)}
                    </tbody>
                </table>
            </div>
            {move || selected.get().and_then(|i| held.rows.with(|r| r.get(i as usize).cloned().flatten()))
                .map(|row| {
                    let chunk = held.job.with(|j| j.as_ref().and_then(|j| chunk_of(j, &row).cloned()));
                    let retry = retry.filter(|_| row.state == RowState::Released);
                    view! { <RowDetail row chunk retry releasing on_close=Callback::new(move |()| selected.set(None)) /> }
                })}
        </section>
    }
}

fn row_line(row: RowView, selected: RwSignal<Option<u32>>) -> impl IntoView {
    let index = row.index;
    let service = row
        .quote
        .as_ref()
        .map(|q| format!("{} {}", q.carrier, q.service))
        .unwrap_or_default();
    let price = row
        .quote
        .as_ref()
        .map(|q| format_cents(q.rate_cents))
        .unwrap_or_default();
    let last = match (&row.tracking_number, &row.error) {
        (Some(t), _) => t.clone(),
        (None, Some(e)) => format!("{}: {}", e.code, e.message),
        _ => String::new(),
    };
    let tone = match row.state {
        RowState::Bought => "badge badge-good",
        RowState::Failed => "badge badge-bad",
        RowState::NeedsDecision => "badge badge-warn",
        _ => "badge",
    };
    view! {
        <tr data-index=index.to_string() data-state=row.state.as_str()>
            <td class="num">{index + 1}</td>
            <td><button type="button" class="link" on:click=move |_| selected.set(Some(index))
                aria-label=format!("Details of {}", row.reference)>{row.reference.clone()}</button></td>
            <td><span class=tone>{row_state(row.state)}</span></td>
            <td>{service}</td>
            <td class="num">{price}</td>
            <td class="last">{last}</td>
        </tr>
    }
}

/// One row: where it goes, what it buys or bought, its label, its problem.
#[component]
fn RowDetail(
    row: RowView,
    chunk: Option<ChunkView>,
    /// Offered for a released row: buying it again, acknowledged.
    retry: Option<Write>,
    releasing: RwSignal<Option<u32>>,
    on_close: Callback<()>,
) -> impl IntoView {
    let heading = NodeRef::<leptos::html::H3>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    let p = row.parcel;
    view! {
        <section class="card wide row-detail" aria-labelledby="row-detail-title" data-testid="row-detail">
            <h3 id="row-detail-title" tabindex="-1" node_ref=heading>{format!("Row {}: {}", row.index + 1, row.reference)}</h3>
            <dl class="facts">
                <dt>"State"</dt><dd>{row_state(row.state)}</dd>
                <dt>"To"</dt><dd>{one_line(&row.to_address)}</dd>
                <dt>"Parcel"</dt><dd>{format!("{} oz, {} × {} × {} in", p.weight_oz, p.length, p.width, p.height)}</dd>
                {row.quote.clone().map(|q| view! {
                    <dt>"Rate"</dt>
                    <dd>{format!("{} {}, {}, delivery {}, {} g CO₂e", q.carrier, q.service, format_cents(q.rate_cents), calendar_day(&q.carrier_eta), q.carbon_grams)}</dd>
                })}
                {row.approved_cents.map(|c| view! { <dt>"Approved price"</dt><dd><Money cents=c /></dd> })}
                {row.chunk.map(|c| view! { <dt>"Chunk"</dt><dd>{format!("{c}{}", row.batch_id.as_ref().map(|b| format!(" (batch {b})")).unwrap_or_default())}</dd> })}
                {row.tracking_number.clone().map(|t| view! { <dt>"Tracking number"</dt><dd><code>{t}</code></dd> })}
                {row.error.clone().map(|e| view! {
                    <dt>"Problem"</dt>
                    <dd>{format!("{} ({}). {}", e.message, e.code, e.suggestion)}</dd>
                })}
            </dl>
            {retry.map(|retry| view! { <RetryReleasedRow index=row.index chunk retry releasing /> })}
            {row.label_id.clone().map(|label| view! {
                <p class="links">
                    <a href=format!("{}?inline=1", label_pdf_path(&encode(&label))) target="_blank" rel="noopener">"Open the label (PDF)"</a>
                    <a href=label_pdf_path(&encode(&label)) download=format!("{label}.pdf")>"Download the label"</a>
                </p>
            })}
            <button type="button" class="secondary" on:click=move |_| on_close.run(())>"Close"</button>
        </section>
    }
}

/// The acknowledgment before a released row is bought again: what its
/// chunk cost, the wallet before and after, and a plain statement of the
/// risk, checked by the merchant.
#[component]
fn RetryReleasedRow(
    index: u32,
    chunk: Option<ChunkView>,
    retry: Write,
    releasing: RwSignal<Option<u32>>,
) -> impl IntoView {
    let checked = RwSignal::new(false);
    let facts = chunk.as_ref().map(|c| {
        format!(
            "Chunk {}'s batch ({}, request {}) got no clear answer.",
            c.number,
            format_cents(c.total_cents),
            c.request_id.as_deref().unwrap_or("unknown")
        )
    });
    let verdict = chunk
        .as_ref()
        .and_then(|c| wallet_verdict(c.total_cents, c.wallet_before_cents, c.wallet_after_cents))
        .unwrap_or_else(|| format!("The wallet before and after is not known: check {DASHBOARD} for a batch with this row."));
    let check_id = format!("ack-{index}");
    view! {
        <div class="notice notice-warn" role="group" aria-labelledby="retry-released-title" data-testid="retry-released">
            <h4 id="retry-released-title">"Buy this row again?"</h4>
            {facts.map(|f| view! { <p>{f}</p> })}
            <p data-testid="wallet-verdict">{with_dashboard(&verdict)}</p>
            <div class="field-check">
                <input id=check_id.clone() type="checkbox" prop:checked=move || checked.get()
                    on:change=move |ev| checked.set(event_target_checked(&ev)) />
                <label for=check_id>"I checked " <ServiceDashboard/> ": this row has no label. Buy it again (if it had one, it is paid twice)."</label>
            </div>
            <button type="button" class="primary" disabled=move || !checked.get() || retry.pending()
                on:click=move |_| {
                    releasing.set(Some(index));
                    retry.submit();
                }>
                {move || retry.label("Buy this row again", "Buying…")}
            </button>
        </div>
    }
}
