//! A new batch, step by step: the file (`file`: upload, drop or paste),
//! its columns (`columns`: recognised, or mapped by the merchant and
//! remembered), the rows and their problems (`rows`, `fixes`: fixed
//! inline, in bulk, or in a spreadsheet and merged back), the sender
//! (`sender`), and the plan's choices (`plan`). Planning stores the job;
//! nothing is bought until the merchant confirms it on the job's page.
//! What the steps share is the import (`import`).

mod columns;
mod file;
mod fixes;
mod import;
mod plan;
mod rows;
mod sender;

use crate::api::Client;
use crate::batches::columns::recognition::{Source, recognise};
use crate::batches::columns::saved::{load_saved, remember, store_saved};
use crate::batches::now_ms;
use crate::batches::rows::checks::check_all;
use crate::batches::rows::reading::{self, too_many};
use crate::batches::sheet::read;
use crate::components::address_form::blank_address;
use crate::state::saved::Saved;
use api::Scope;
use columns::Mapper;
use file::{FileStep, file_text};
use import::{Imported, Pending};
use leptos::prelude::*;
use leptos::task::spawn_local;
use plan::PlanForm;
use rows::RowsStep;
use sender::SenderStep;

#[component]
pub fn NewBatchPage() -> impl IntoView {
    let client = Client::get();
    if !(client.can(Scope::BatchesWrite) && client.can(Scope::RatesRead)) {
        return view! {
            <h1>"New batch"</h1>
            <p class="notice" data-testid="guard">
                "Your role cannot run batches: it needs to request rates and to buy labels in batches. An admin can grant both."
            </p>
        }
        .into_any();
    }
    let pending = RwSignal::new(None::<Pending>);
    let imported = RwSignal::new(None::<Imported>);
    let refusal = RwSignal::new(None::<String>);

    // The mapping becomes rows: one pass reads, maps and checks them all.
    let apply = move |p: Pending, remember_it: bool| {
        let (drafts, readings) = reading::drafts(&p.sheet, &p.mapping);
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
            <ImportedSteps imported />
        </Show>
    }
    .into_any()
}

/// The steps once the file's rows are read: the rows, the sender and the
/// plan, which share the sender and the count of rows with problems.
#[component]
fn ImportedSteps(imported: RwSignal<Option<Imported>>) -> impl IntoView {
    let sender = RwSignal::new(blank_address());
    // The organization's saved addresses (the default preselected) and
    // presets; in the deployment's own organization, this browser's senders.
    let org = Saved::fetch(Client::get(), sender, blank_address());
    let sender_shown = RwSignal::new(false);
    let bad = Memo::new(move |_| imported.with(|i| i.as_ref().map_or(0, Imported::bad_rows)));
    view! {
        <RowsStep imported bad packages=org.packages />
        <SenderStep sender org sender_shown />
        <PlanForm imported sender sender_shown bad />
    }
}
