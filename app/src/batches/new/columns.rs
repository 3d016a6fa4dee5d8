//! Step 2, the columns: which column means what, recognised or chosen
//! here and remembered for files with the same headers.

use super::import::{Imported, Pending};
use crate::batches::columns::Column;
use crate::batches::columns::recognition::Source;
use crate::batches::now_ms;
use crate::batches::rows::count_lines;
use crate::batches::units::{LengthUnit, WeightUnit};
use leptos::prelude::*;

/// Which column means what: recognised, or chosen here and remembered.
#[component]
pub fn Mapper(
    pending: Pending,
    imported: RwSignal<Option<Imported>>,
    apply: impl Fn(Pending, bool) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let mapping = RwSignal::new(pending.mapping.clone());
    let open = RwSignal::new(imported.get_untracked().is_none());
    let source = pending.source;
    let pending = StoredValue::new(pending);
    let summary = move || {
        let p = pending.get_value();
        // The file's lines: an order's further items are lines of their own
        // until the rows step merges them.
        let lines = count_lines(p.sheet.records.len());
        match source {
            Some(s) if s != Source::Recognised => {
                format!("{lines}; columns from {}.", s.describe())
            }
            Some(_) => format!("{lines}. We know some of these columns: check the rest."),
            None => format!("{lines}. These columns are new to us: say what each one holds."),
        }
    };
    let sample = move |i: usize| {
        pending.with_value(|p| {
            p.sheet
                .records
                .first()
                .and_then(|r| r.get(i))
                .cloned()
                .unwrap_or_default()
        })
    };
    let columns = move || {
        let headers = pending.with_value(|p| p.sheet.headers.clone());
        headers
            .into_iter()
            .enumerate()
            .map(|(i, header)| {
                let id = format!("map-{i}");
                view! {
                    <tr>
                        <th scope="row"><label for=id.clone()>{header}</label></th>
                        <td class="sample">{sample(i)}</td>
                        <td>
                            <select id=id
                                on:change=move |ev| {
                                    let chosen = Column::parse(&event_target_value(&ev));
                                    mapping.update(|m| {
                                        // One column per meaning: the new choice takes it over.
                                        if chosen.is_some() {
                                            for c in m.columns.iter_mut().filter(|c| **c == chosen) {
                                                *c = None;
                                            }
                                        }
                                        m.columns[i] = chosen;
                                    });
                                }>
                                <option value="" selected=move || mapping.with(|m| m.columns[i].is_none())>"Not used"</option>
                                {Column::ALL.into_iter().map(|c| view! {
                                    <option value=c.key() selected=move || mapping.with(|m| m.columns[i] == Some(c))>{c.label()}</option>
                                }).collect_view()}
                            </select>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    let missing = move || {
        mapping.with(|m| {
            m.missing()
                .iter()
                .map(|f| f.label())
                .collect::<Vec<_>>()
                .join(", ")
        })
    };
    let use_it = move |_| {
        let mut p = pending.get_value();
        p.mapping = mapping.get_untracked();
        p.started_ms = now_ms();
        open.set(false);
        apply(p, true);
    };
    view! {
        <section class="card wide" aria-labelledby="columns-title">
            <h2 id="columns-title">"2. Columns"</h2>
            <p data-testid="columns-summary">{summary}</p>
            <Show when=move || !open.get()>
                <button type="button" class="secondary" on:click=move |_| open.set(true)>"Change the columns"</button>
            </Show>
            {move || open.get().then(|| view! {
                <div class="table-scroll" tabindex="0" role="region" aria-label="Columns of your file">
                    <table class="mapper">
                        <thead><tr><th scope="col">"Your column"</th><th scope="col">"First row"</th><th scope="col">"Holds"</th></tr></thead>
                        <tbody>{columns()}</tbody>
                    </table>
                </div>
                <div class="units">
                    <div class="field">
                        <label for="map-weight-unit">"Weights without a unit are in"</label>
                        <select id="map-weight-unit" on:change=move |ev| {
                            if let Some(u) = WeightUnit::parse(&event_target_value(&ev)) {
                                mapping.update(|m| m.weight_unit = u);
                            }
                        }>
                            {WeightUnit::ALL.into_iter().map(|u| view! {
                                <option value=u.as_str() selected=move || mapping.with(|m| m.weight_unit == u)>{u.as_str()}</option>
                            }).collect_view()}
                        </select>
                    </div>
                    <div class="field">
                        <label for="map-length-unit">"Sizes without a unit are in"</label>
                        <select id="map-length-unit" on:change=move |ev| {
                            if let Some(u) = LengthUnit::parse(&event_target_value(&ev)) {
                                mapping.update(|m| m.length_unit = u);
                            }
                        }>
                            {LengthUnit::ALL.into_iter().map(|u| view! {
                                <option value=u.as_str() selected=move || mapping.with(|m| m.length_unit == u)>{u.as_str()}</option>
                            }).collect_view()}
                        </select>
                    </div>
                </div>
                {move || {
                    let m = missing();
                    (!m.is_empty()).then(|| view! {
                        <p class="hint" role="status">{format!("No column for: {m}. Every row will need it; you can set it for all rows at once next.")}</p>
                    })
                }}
                <button type="button" class="primary" on:click=use_it>"Use these columns"</button>
                <p class="hint">"Saved in this browser for files with the same columns."</p>
            })}
        </section>
    }
}
