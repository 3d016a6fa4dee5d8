//! Step 3's fixes: many rows at once (`BulkFixes`), or each problem in
//! place (`ProblemTable`).

use super::import::Imported;
use crate::batches::columns::field::Field;
use crate::batches::rows::count_rows;
use crate::batches::rows::fixes::{FixGroup, fix_groups, parcel_rows, set_all, set_parcel};
use crate::batches::table::{Viewport, spacer};
use crate::components::field::focus;
use crate::components::parcel_form::describe_package;
use api::presets::PackagePreset;
use leptos::prelude::*;

/// "Set the weight of these 37 rows": one control per field with problems,
/// and per wrong value for a country or a state (`rows::fixes::fix_groups`).
#[component]
pub fn BulkFixes(
    imported: RwSignal<Option<Imported>>,
    edit: impl Fn(&mut dyn FnMut(&mut Imported)) + Copy + Send + Sync + 'static,
    note: RwSignal<Option<String>>,
    /// The organization's package presets: one fills the rows' missing sizes and weights.
    packages: RwSignal<Vec<PackagePreset>>,
) -> impl IntoView {
    let groups = Memo::new(move |_| {
        imported.with(|i| {
            i.as_ref()
                .map(|i| fix_groups(&i.drafts, &i.problems))
                .unwrap_or_default()
        })
    });
    let parcel_count = Memo::new(move |_| groups.with(|g| parcel_rows(g).len()));
    let chosen = RwSignal::new(String::new());
    let set_preset = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let preset = chosen
            .get_untracked()
            .parse::<usize>()
            .ok()
            .and_then(|i| packages.with_untracked(|p| p.get(i).cloned()));
        let Some(preset) = preset else {
            focus("bulk-preset");
            return;
        };
        let count = parcel_count.get_untracked();
        let fixes = groups.get_untracked();
        edit(&mut |i| set_parcel(&mut i.drafts, &fixes, &preset.parcel));
        note.set(Some(format!(
            "{} set on {}.",
            preset.name,
            count_rows(count)
        )));
        focus("rows-title");
    };
    view! {
        <h3>"Fix many rows at once"</h3>
        {move || (parcel_count.get() > 0 && !packages.with(Vec::is_empty)).then(|| view! {
            <form class="bulk-fix" on:submit=set_preset novalidate>
                <label for="bulk-preset">{format!("Package preset for the {} with a weight or size problem", count_rows(parcel_count.get()))}</label>
                <select id="bulk-preset" prop:value=move || chosen.get() on:change=move |ev| chosen.set(event_target_value(&ev))>
                    <option value="">"Choose a preset…"</option>
                    {packages.get().iter().enumerate().map(|(i, p)| view! { <option value=i.to_string()>{describe_package(p)}</option> }).collect_view()}
                </select>
                <button type="submit" class="secondary">{format!("Set for {}", count_rows(parcel_count.get()))}</button>
            </form>
        })}
        <ul class="bulk">
            <For each=move || groups.get()
                key=|g| (g.field, g.value.clone(), g.country.clone(), g.rows.len()) let:fix>
                {
                    let field = fix.field;
                    let count = fix.rows.len();
                    let id = id_for(&fix);
                    let label = bulk_label(&fix);
                    let value = RwSignal::new(String::new());
                    let rows = StoredValue::new(fix.rows);
                    let input_id = id.clone();
                    let set = move |ev: leptos::ev::SubmitEvent| {
                        ev.prevent_default();
                        let v = value.get_untracked();
                        if v.trim().is_empty() {
                            focus(&input_id);
                            return;
                        }
                        let indices = rows.get_value();
                        edit(&mut |i| set_all(&mut i.drafts, &indices, field, &v));
                        note.set(Some(format!("{} set on {}.", field.label(), count_rows(count))));
                        focus("rows-title");
                    };
                    view! {
                        <li>
                            <form class="bulk-fix" on:submit=set novalidate>
                                <label for=id.clone()>{label}</label>
                                <input id=id type="text" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
                                <button type="submit" class="secondary">{format!("Set for {}", count_rows(count))}</button>
                            </form>
                        </li>
                    }
                }
            </For>
        </ul>
    }
}

/// A bulk fix's label: which rows it sets, and what it takes.
fn bulk_label(fix: &FixGroup) -> String {
    let (field, rows) = (fix.field, count_rows(fix.rows.len()));
    let within = match fix.country.as_deref() {
        Some(c) if !c.is_empty() => format!(" in {c}"),
        _ => String::new(),
    };
    let which = match fix.value.as_deref() {
        None => format!("with a {} problem", field.label().to_lowercase()),
        Some("") => format!("without one{within}"),
        Some(v) => format!("with “{v}”{within}"),
    };
    let hint = match field {
        Field::Weight => " (with its unit: 12 oz, 1.5 lb, 500 g)",
        Field::Length | Field::Width | Field::Height => " (10 in, 25 cm)",
        Field::Country => " (a code or a name: US, Germany)",
        Field::State if matches!(fix.country.as_deref(), Some("US" | "CA")) => {
            " (a code or a name: CA, California)"
        }
        _ => "",
    };
    format!("{} for the {rows} {which}{hint}", field.label())
}

/// A bulk fix's input: the field's, and for a country or a state a hash
/// of the value it fixes (ids must stay unique as groups come and go).
fn id_for(fix: &FixGroup) -> String {
    match (&fix.value, &fix.country) {
        (None, _) => format!("bulk-{}", fix.field.key()),
        (Some(value), country) => {
            let text = format!("{value}\u{0}{}", country.as_deref().unwrap_or_default());
            let hash = text.bytes().fold(0x811c_9dc5_u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
            });
            format!("bulk-{}-{hash:08x}", fix.field.key())
        }
    }
}

/// Every problem on its own line, with the row's value to fix in place:
/// windowed, since a store export without sizes has one per row and field.
#[component]
pub fn ProblemTable(
    imported: RwSignal<Option<Imported>>,
    edit: impl Fn(&mut dyn FnMut(&mut Imported)) + Copy + Send + Sync + 'static,
    note: RwSignal<Option<String>>,
) -> impl IntoView {
    let lines = Memo::new(move |_| {
        imported.with(|i| {
            i.as_ref()
                .map(|i| {
                    i.problems
                        .iter()
                        .enumerate()
                        .flat_map(|(row, ps)| {
                            ps.iter().map(move |p| (row, p.field, p.text.clone()))
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let viewport = Viewport::new();
    let range = Memo::new(move |_| viewport.range(lines.with(Vec::len)));
    let fix = move |row: usize, field: Field, value: String| {
        let mut line = 0;
        edit(&mut |i| {
            if let Some(d) = i.drafts.get_mut(row) {
                d.fix(field, &value);
                line = d.line;
            }
        });
        let (left, still) = imported.with_untracked(|i| {
            i.as_ref().map_or((0, false), |i| {
                (
                    i.bad_rows(),
                    i.problems[row].iter().any(|p| p.field == field),
                )
            })
        });
        note.set(Some(format!(
            "Row {line}: {} {}. {} still {} problems.",
            field.label(),
            if still {
                "still has a problem"
            } else {
                "fixed"
            },
            count_rows(left),
            if left == 1 { "has" } else { "have" }
        )));
    };
    // Keyed, so an input keeps its node (and focus) while the window moves.
    let shown = move || {
        let (start, end) = range.get();
        lines.with(|l| l[start..end].to_vec())
    };
    view! {
        <h3 id="problems-title" tabindex="-1">"Problems, row by row"</h3>
        <div class="windowed" tabindex="0" role="region" aria-labelledby="problems-title"
            on:scroll=move |ev| viewport.on_scroll(ev)>
            <table>
                <thead>
                    <tr>
                        <th scope="col">"Row"</th>
                        <th scope="col">"Reference"</th>
                        <th scope="col">"Column"</th>
                        <th scope="col">"Value"</th>
                        <th scope="col">"Problem"</th>
                    </tr>
                </thead>
                <tbody>
                    {spacer(move || range.get().0, 5)}
                    <For each=shown key=|line| line.clone() let:line>
                        {
                            let (row, field, text) = line;
                            let (line, reference, value, column) = imported.with_untracked(|i| {
                                i.as_ref().map(|i| {
                                    let d = &i.drafts[row];
                                    (d.line, d.get(Field::Reference).to_string(), d.get(field).to_string(), i.column_name(field))
                                }).unwrap_or_default()
                            });
                            let id = format!("fix-{row}-{}", field.key());
                            let advice = format!("{id}-problem");
                            view! {
                                <tr data-row=line.to_string() data-field=field.key()>
                                    <td>{line}</td>
                                    <td>{reference}</td>
                                    <td>{format!("{} ({column})", field.label())}</td>
                                    <td>
                                        <label class="visually-hidden" for=id.clone()>{format!("Row {line} {}", field.label())}</label>
                                        <input id=id type="text" value=value aria-invalid="true" aria-describedby=advice.clone()
                                            on:change=move |ev| fix(row, field, event_target_value(&ev)) />
                                    </td>
                                    <td id=advice class="field-problem">{text}</td>
                                </tr>
                            }
                        }
                    </For>
                    {spacer(move || lines.with(Vec::len) - range.get().1, 5)}
                </tbody>
            </table>
        </div>
    }
}
