//! Step 1, the file: uploaded, dropped or pasted; the template and its
//! column guide.

use crate::batches::download;
use crate::batches::rows::spreadsheet::{template_csv, template_guide};
use leptos::prelude::*;

/// Reads a file's text in the browser's own way.
pub async fn file_text(file: web_sys::File) -> Option<String> {
    wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|t| t.as_string())
}

pub fn first_file(files: Option<web_sys::FileList>) -> Option<web_sys::File> {
    files.and_then(|f| f.get(0))
}

/// Upload, drop or paste; the template and its column guide.
#[component]
pub fn FileStep(
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
