//! A new batch: the file (upload, drop or paste), its columns (recognised,
//! or mapped by the merchant and remembered), the rows and their problems
//! (fixed inline, in bulk, or in a spreadsheet and merged back), the
//! sender, and the plan's choices. Planning stores the job; nothing is
//! bought until the merchant confirms it on the job's page.

use super::columns::{
    Column, Field, Mapping, Source, load_saved, recognise, remember, store_saved,
};
use super::rows::{
    self, Draft, FixGroup, Problem, Readings, check_all, count_rows, export_problem_rows,
    fix_groups, group, job_row, merge, parcel_rows, set_all, set_parcel, template_csv,
    template_guide, too_many,
};
use super::sheet::{Sheet, read};
use super::table::{Viewport, spacer};
use super::units::{LengthUnit, WeightUnit};
use super::{download, now_ms};
use crate::api::{Client, ClientError};
use crate::components::address_form::{AddressForm, blank_address, first_problem};
use crate::components::error_view::ErrorView;
use crate::components::field::focus;
use crate::components::parcel_form::describe_package;
use crate::state::saved::Saved;
use crate::state::senders;
use crate::state::write::Write;
use api::Scope;
use api::jobs::{Approval, CreateJob, Fallback, MAX_NAME_CHARS, Rule};
use api::presets::PackagePreset;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

/// The rows of an import and what is known of them.
#[derive(Clone, Debug)]
struct Imported {
    /// The file's name: the job's name.
    name: String,
    headers: Vec<String>,
    mapping: Mapping,
    drafts: Vec<Draft>,
    problems: Vec<Vec<Problem>>,
    /// Line items merged, names read as codes, apostrophes taken off.
    readings: Readings,
    /// Reading, mapping and checking took this long.
    ms: f64,
}

impl Imported {
    fn bad_rows(&self) -> usize {
        self.problems.iter().filter(|p| !p.is_empty()).count()
    }

    fn recheck(&mut self) {
        self.problems = check_all(&self.drafts);
    }

    /// The file's column(s) a field came from, for its problems.
    fn column_name(&self, field: Field) -> String {
        self.mapping
            .source_of(field, &self.headers)
            .map_or("no column".into(), |h| format!("column “{h}”"))
    }
}

/// A file as read, waiting for its columns.
#[derive(Clone, Debug)]
struct Pending {
    name: String,
    sheet: Sheet,
    mapping: Mapping,
    source: Option<Source>,
    started_ms: f64,
}

/// Reads a file's text in the browser's own way.
async fn file_text(file: web_sys::File) -> Option<String> {
    wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|t| t.as_string())
}

fn first_file(files: Option<web_sys::FileList>) -> Option<web_sys::File> {
    files.and_then(|f| f.get(0))
}

#[component]
pub fn NewBatchPage() -> impl IntoView {
    let client = Client::get();
    if !(client.can(Scope::BatchesWrite) && client.can(Scope::RatesRead)) {
        return view! {
            <h1>"New batch"</h1>
            <p class="notice" data-testid="guard">
                "Your role cannot run batches (batches:write and rates:read). An admin can grant them."
            </p>
        }
        .into_any();
    }
    let pending = RwSignal::new(None::<Pending>);
    let imported = RwSignal::new(None::<Imported>);
    let refusal = RwSignal::new(None::<String>);

    // The mapping becomes rows: one pass reads, maps and checks them all.
    let apply = move |p: Pending, remember_it: bool| {
        let (drafts, readings) = rows::drafts(&p.sheet, &p.mapping);
        if let Some(text) = too_many(drafts.len()) {
            refusal.set(Some(text));
            pending.set(None);
            imported.set(None);
            return;
        }
        if remember_it {
            store_saved(&remember(load_saved(), &p.sheet.headers, p.mapping.clone()));
        }
        let problems = check_all(&drafts);
        let ms = now_ms() - p.started_ms;
        imported.set(Some(Imported {
            name: p.name.clone(),
            headers: p.sheet.headers.clone(),
            mapping: p.mapping.clone(),
            drafts,
            problems,
            readings,
            ms,
        }));
        pending.set(Some(p));
    };
    let take = move |name: String, text: String| {
        let started_ms = now_ms();
        refusal.set(None);
        imported.set(None);
        pending.set(None);
        match read(&text) {
            Err(e) => refusal.set(Some(e.to_string())),
            Ok(sheet) => {
                let (mapping, source) = recognise(&sheet.headers, &load_saved());
                let p = Pending {
                    name,
                    sheet,
                    mapping,
                    source,
                    started_ms,
                };
                // Known headers go straight to the rows; others to the mapper.
                if source.is_some_and(|s| s != Source::Recognised) {
                    apply(p, false);
                } else {
                    pending.set(Some(p));
                }
            }
        }
    };
    let take_file = move |file: Option<web_sys::File>| {
        if let Some(file) = file {
            let name = file.name();
            spawn_local(async move {
                match file_text(file).await {
                    Some(text) => take(name, text),
                    None => refusal.set(Some(
                        "The file could not be read as text. Save it as CSV (UTF-8) and try again."
                            .into(),
                    )),
                }
            });
        }
    };

    let has_rows = Memo::new(move |_| imported.with(Option::is_some));
    view! {
        <h1>"New batch"</h1>
        <FileStep take take_file />
        {move || refusal.get().map(|text| view! {
            <p class="notice notice-bad" role="alert" data-testid="import-refused">{text}</p>
        })}
        {move || pending.get().map(|p| view! { <Mapper pending=p imported apply /> })}
        // Built once per import, not once per fix.
        <Show when=move || has_rows.get()>
            <RowsStep imported />
        </Show>
    }
    .into_any()
}

/// Upload, drop or paste; the template and its column guide.
#[component]
fn FileStep(
    take: impl Fn(String, String) + Copy + Send + Sync + 'static,
    take_file: impl Fn(Option<web_sys::File>) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let pasted = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);
    let guide = template_guide()
        .into_iter()
        .map(|(key, required, text, example)| {
            view! {
                <tr>
                    <th scope="row"><code>{key}</code></th>
                    <td>{if required { "Yes" } else { "No" }}</td>
                    <td>{text}</td>
                    <td><code>{example}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card wide" aria-labelledby="file-title">
            <h2 id="file-title">"1. Your file"</h2>
            <p class="hint">
                "A CSV or TSV with one shipment per row, up to 5,000 rows: our template, or your store's order export "
                "(Shopify, WooCommerce, eBay, Etsy, Amazon). Nothing is sent until you plan the batch."
            </p>
            <div
                class=move || if dragging.get() { "dropzone dragging" } else { "dropzone" }
                on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
                on:dragleave=move |_| dragging.set(false)
                on:drop=move |ev: leptos::ev::DragEvent| {
                    ev.prevent_default();
                    dragging.set(false);
                    take_file(first_file(ev.data_transfer().and_then(|d| d.files())));
                }
            >
                <label for="batch-file">"Choose a file, or drop it here"</label>
                <input id="batch-file" type="file" accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        take_file(first_file(input.files()));
                        input.set_value("");
                    } />
            </div>
            <details class="paste">
                <summary>"Paste rows instead"</summary>
                <label for="batch-paste">"Rows with their header line (copied from a spreadsheet or a CSV)"</label>
                <textarea id="batch-paste" rows="6" prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                <button type="button" class="secondary"
                    on:click=move |_| take("pasted rows".into(), pasted.get_untracked())>"Read pasted rows"</button>
            </details>
            <details class="guide">
                <summary>"The template and its columns"</summary>
                <p>
                    <button type="button" class="secondary"
                        on:click=move |_| download("parcel-batch-template.csv", "text/csv", &template_csv())>
                        "Download the template (CSV)"
                    </button>
                </p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Template columns">
                    <table>
                        <thead><tr><th scope="col">"Column"</th><th scope="col">"Required"</th><th scope="col">"What it holds"</th><th scope="col">"Example"</th></tr></thead>
                        <tbody>{guide}</tbody>
                    </table>
                </div>
            </details>
        </section>
    }
}

/// Which column means what: recognised, or chosen here and remembered.
#[component]
fn Mapper(
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
        let rows = count_rows(p.sheet.records.len());
        match source {
            Some(s) if s != Source::Recognised => format!("{rows}; columns from {}.", s.describe()),
            Some(_) => format!("{rows}. We know some of these columns: check the rest."),
            None => format!("{rows}. These columns are new to us: say what each one holds."),
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

/// The sender, the rows' problems and their fixes, and the plan's choices.
#[component]
fn RowsStep(imported: RwSignal<Option<Imported>>) -> impl IntoView {
    let sender = RwSignal::new(blank_address());
    // The organization's saved addresses (the default preselected) and
    // presets; in the deployment's own organization, this browser's senders.
    let org = Saved::fetch(Client::get(), sender, blank_address());
    let local = if org.kept {
        Vec::new()
    } else {
        senders::load()
    };
    if let Some(first) = local.first() {
        sender.set(first.clone());
    }
    let choices = Memo::new(move |_| {
        org.addresses
            .with(|list| senders::choices(list.as_ref(), &local))
    });
    let sender_shown = RwSignal::new(false);
    let note = RwSignal::new(None::<String>);
    let with = move |f: &dyn Fn(&Imported) -> String| {
        imported.with(|i| i.as_ref().map(f).unwrap_or_default())
    };
    let bad = Memo::new(move |_| imported.with(|i| i.as_ref().map_or(0, Imported::bad_rows)));
    let total = Memo::new(move |_| imported.with(|i| i.as_ref().map_or(0, |i| i.drafts.len())));
    let edit = move |f: &mut dyn FnMut(&mut Imported)| {
        imported.update(|i| {
            if let Some(i) = i {
                f(i);
                i.recheck();
            }
        });
    };
    let export = move |_| {
        imported.with_untracked(|i| {
            if let Some(i) = i {
                let name = format!("{}-problems.csv", i.name.trim_end_matches(".csv"));
                download(
                    &name,
                    "text/csv",
                    &export_problem_rows(&i.drafts, &i.problems),
                );
            }
        })
    };
    let reimport = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = first_file(input.files()) else {
            return;
        };
        input.set_value("");
        spawn_local(async move {
            let text = file_text(file).await.unwrap_or_default();
            let fixed = match read(&text) {
                Ok(sheet) => {
                    let (mapping, _) = recognise(&sheet.headers, &load_saved());
                    rows::drafts(&sheet, &mapping).0
                }
                Err(e) => {
                    note.set(Some(e.to_string()));
                    return;
                }
            };
            let mut outcome = Default::default();
            edit(&mut |i| outcome = merge(&mut i.drafts, fixed.clone()));
            let rows::Merged { replaced, unknown } = outcome;
            let mut text = format!("{} merged by reference.", count_rows(replaced));
            if !unknown.is_empty() {
                let list: Vec<String> = unknown
                    .iter()
                    .map(|(line, r)| format!("row {line} ({r})"))
                    .collect();
                text.push_str(&format!(
                    " Not in this import, so left out: {}.",
                    list.join(", ")
                ));
            }
            text.push_str(&format!(
                " Rows with problems now: {}.",
                group(bad.get_untracked())
            ));
            note.set(Some(text));
        });
    };
    view! {
        <section class="card wide" aria-labelledby="rows-title">
            <h2 id="rows-title" tabindex="-1">"3. Rows"</h2>
            <p data-testid="rows-summary">
                {move || with(&|i| {
                    let mut text = format!("{} rows read and checked in {:.0} ms.", group(i.drafts.len()), i.ms);
                    for sentence in i.readings.describe() {
                        text.push(' ');
                        text.push_str(&sentence);
                    }
                    text
                })}
                " "
                <strong>{move || match bad.get() {
                    0 => "Every row is ready.".to_string(),
                    n => format!("{} ready, {} with problems.", group(total.get() - n), group(n)),
                }}</strong>
            </p>
            <p class="hint" role="status" data-testid="fix-note">{move || note.get()}</p>
            <Show when=move || { bad.get() > 0 }>
                <BulkFixes imported edit note packages=org.packages />
                <ProblemTable imported edit note />
                <div class="actions">
                    <button type="button" class="secondary" on:click=export>"Download the rows with problems (CSV)"</button>
                    <div class="field">
                        <label for="batch-fixed">"Import the fixed rows (merged by reference)"</label>
                        <input id="batch-fixed" type="file" accept=".csv,.tsv,.txt,text/csv" on:change=reimport />
                    </div>
                </div>
            </Show>
        </section>
        <section class="card wide" aria-labelledby="sender-title">
            <h2 id="sender-title">"4. Sender"</h2>
            {move || (!choices.with(Vec::is_empty)).then(|| view! {
                <div class="field">
                    <label for="batch-sender">{if org.kept { "Saved addresses" } else { "Saved senders" }}</label>
                    <select id="batch-sender"
                                                on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).parse::<usize>()
                                && let Some((_, a)) = choices.with_untracked(|c| c.get(n).cloned())
                            {
                                sender.set(a);
                            }
                        }>
                        <option value="">"Typed below"</option>
                        {move || choices.get().into_iter().enumerate().map(|(n, (name, a))| view! {
                            <option value=n.to_string() prop:selected=move || sender.with(|s| s == &a)>{name}</option>
                        }).collect_view()}
                    </select>
                </div>
            })}
            <AddressForm legend="Ship from (every row)" prefix="sender" address=sender
                on_edit=Callback::new(|()| {}) show_problems=sender_shown />
        </section>
        <PlanForm imported sender sender_shown bad />
    }
}

/// "Set the weight of these 37 rows": one control per field with problems,
/// and per wrong value for a country or a state (`rows::fix_groups`).
#[component]
fn BulkFixes(
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
fn ProblemTable(
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

/// The selection rule, how prices are approved, and the plan itself.
#[component]
fn PlanForm(
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
