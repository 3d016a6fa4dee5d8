//! Step 3, the rows: how many lines of the file were read into how many
//! rows, how many rows are ready and how many have problems, the
//! fixes (`fixes`), and the rows with problems out to a spreadsheet and
//! merged back by reference.

use super::file::{file_text, first_file};
use super::fixes::{BulkFixes, ProblemTable};
use super::import::Imported;
use crate::batches::columns::recognition::recognise;
use crate::batches::columns::saved::load_saved;
use crate::batches::download;
use crate::batches::rows::reading::drafts;
use crate::batches::rows::spreadsheet::{Merged, export_problem_rows, merge};
use crate::batches::rows::{count_rows, group};
use crate::batches::sheet::read;
use api::presets::PackagePreset;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The rows' summary, their problems and their fixes.
#[component]
pub fn RowsStep(
    imported: RwSignal<Option<Imported>>,
    /// How many rows have problems.
    bad: Memo<usize>,
    /// The organization's package presets, for the bulk fixes.
    packages: RwSignal<Vec<PackagePreset>>,
) -> impl IntoView {
    let note = RwSignal::new(None::<String>);
    let with = move |f: &dyn Fn(&Imported) -> String| {
        imported.with(|i| i.as_ref().map(f).unwrap_or_default())
    };
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
                    drafts(&sheet, &mapping).0
                }
                Err(e) => {
                    note.set(Some(e.to_string()));
                    return;
                }
            };
            let mut outcome = Default::default();
            edit(&mut |i| outcome = merge(&mut i.drafts, fixed.clone()));
            let Merged { replaced, unknown } = outcome;
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
                    let mut text = format!("{}, checked in {:.0} ms.", i.readings.lines_into_rows(i.drafts.len()), i.ms);
                    for sentence in i.readings.describe() {
                        text.push(' ');
                        text.push_str(&sentence);
                    }
                    text
                })}
                " "
                <strong>{move || match bad.get() {
                    0 => "Every row is ready.".to_string(),
                    n => format!("{} ready, {} with problems.", count_rows(total.get() - n), group(n)),
                }}</strong>
            </p>
            <p class="hint" role="status" data-testid="fix-note">{move || note.get()}</p>
            <Show when=move || { bad.get() > 0 }>
                <BulkFixes imported edit note packages />
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
    }
}
