//! The label history: every label the ledger holds (bought here, by a
//! batch job, or announced by a signed `label.created`), newest first,
//! filtered by carrier, service, status, mode and period, searched by
//! tracking number, reference or recipient, a page at a time, and exported
//! as CSV exactly as filtered. The filters live in the address, so a
//! filtered list can be bookmarked, shared and gone back to.

use crate::api::{Client, encode, export_href};
use crate::components::dates::{WhenShort, parse_ymd, tz_offset_minutes};
use crate::components::loader::Loader;
use crate::components::money::Money;
use crate::components::status_badge::{StatusBadge, Tone};
use api::KeyEnv;
use api::insights::{
    Cursor, HistoryQuery, HistoryRow, InsightsQuery, LabelStatus, Period, unix_day,
};
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_query_map};

const DAY: i64 = 86_400;

/// The list's filters as the address holds them (`/labels?carrier=…`).
/// Unknown or malformed values are dropped: an edited address shows the
/// unfiltered list rather than an error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub q: String,
    pub carrier: String,
    pub service: String,
    pub status: Option<LabelStatus>,
    pub mode: Option<KeyEnv>,
    /// The last 7, 30 or 90 days (from local midnight); with neither this
    /// nor `from`/`to`: all time.
    pub period: Option<Period>,
    /// `YYYY-MM-DD`, both days included; they win over `period`.
    pub from: String,
    pub to: String,
    /// The page's start (`HistoryPage::next` of the page before).
    pub cursor: Option<String>,
}

impl Filters {
    pub fn from_params(param: impl Fn(&str) -> Option<String>) -> Filters {
        let text = |name| {
            param(name)
                .map(|v| v.trim().to_string())
                .unwrap_or_default()
        };
        let date = |name| {
            Some(text(name))
                .filter(|d| parse_ymd(d).is_some())
                .unwrap_or_default()
        };
        Filters {
            q: text("q"),
            carrier: text("carrier"),
            service: text("service"),
            status: param("status").and_then(|s| LabelStatus::from_name(&s)),
            mode: param("mode").and_then(|m| KeyEnv::from_name(&m)),
            period: param("period").and_then(|p| Period::from_name(&p)),
            from: date("from"),
            to: date("to"),
            cursor: param("cursor").filter(|c| Cursor::decode(c).is_some()),
        }
    }

    /// The list's address with these filters (and page).
    pub fn href(&self) -> String {
        let mut pairs: Vec<(&str, String)> = vec![];
        for (name, value) in [
            ("q", &self.q),
            ("carrier", &self.carrier),
            ("service", &self.service),
        ] {
            if !value.is_empty() {
                pairs.push((name, value.clone()));
            }
        }
        if let Some(s) = self.status {
            pairs.push(("status", s.as_str().into()));
        }
        if let Some(m) = self.mode {
            pairs.push(("mode", m.as_str().into()));
        }
        if !self.from.is_empty() || !self.to.is_empty() {
            pairs.push(("from", self.from.clone()));
            pairs.push(("to", self.to.clone()));
        } else if let Some(p) = self.period {
            pairs.push(("period", p.as_str().into()));
        }
        if let Some(c) = &self.cursor {
            pairs.push(("cursor", c.clone()));
        }
        let query: Vec<String> = pairs
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k}={}", encode(&v)))
            .collect();
        if query.is_empty() {
            "/labels".into()
        } else {
            format!("/labels?{}", query.join("&"))
        }
    }

    /// The same filters on the first page.
    pub fn first_page(&self) -> Filters {
        Filters {
            cursor: None,
            ..self.clone()
        }
    }

    /// Whether anything narrows the list (the empty state says so).
    pub fn narrowed(&self) -> bool {
        self.first_page()
            != Filters {
                mode: self.mode,
                ..Filters::default()
            }
    }

    /// The Worker's query at `now` in a time zone `tz_minutes` east of UTC:
    /// days start at local midnight.
    pub fn query(&self, now: u64, tz_minutes: i32) -> HistoryQuery {
        let local_midnight = |ymd: &str| {
            let (y, m, d) = parse_ymd(ymd)?;
            let at = unix_day(y, m, d) * DAY - i64::from(tz_minutes) * 60;
            u64::try_from(at).ok()
        };
        let (since, until) = if !self.from.is_empty() || !self.to.is_empty() {
            // Dates typed the wrong way round mean the same days.
            let (first, last) = match (self.from.as_str(), self.to.as_str()) {
                (from, to) if !from.is_empty() && !to.is_empty() && from > to => (to, from),
                pair => pair,
            };
            (
                local_midnight(first),
                local_midnight(last).map(|at| at + DAY as u64),
            )
        } else {
            let since = self.period.map(|period| {
                InsightsQuery {
                    period,
                    tz_offset_minutes: tz_minutes,
                    ..InsightsQuery::default()
                }
                .since(now)
            });
            (since, None)
        };
        let text = |v: &str| (!v.is_empty()).then(|| v.to_string());
        HistoryQuery {
            mode: self.mode,
            carrier: text(&self.carrier),
            service: text(&self.service),
            status: self.status,
            since,
            until,
            q: text(&self.q),
            cursor: self.cursor.as_deref().and_then(Cursor::decode),
            ..HistoryQuery::default()
        }
    }
}

fn status_badge(status: LabelStatus) -> impl IntoView {
    let (text, tone) = match status {
        LabelStatus::Bought => ("Bought", Tone::Good),
        LabelStatus::VoidRequested => ("Void requested", Tone::Warn),
        LabelStatus::Voided => ("Voided", Tone::Neutral),
    };
    view! { <StatusBadge text tone /> }
}

fn row(r: HistoryRow) -> impl IntoView {
    let href = format!("/labels/{}", r.id);
    let hooks = format!("/webhooks?q={}", encode(&r.id));
    let hooks_name = format!("Webhook events for {}", r.tracking_number);
    let ship_to = match (&r.reference, &r.recipient) {
        (Some(reference), Some(to)) => format!("{reference} · {to}"),
        (Some(one), None) | (None, Some(one)) => one.clone(),
        (None, None) => String::new(),
    };
    let buyer = match (r.bought_by, r.job) {
        (Some(user), Some(job)) => view! {
            {user} " · " <A href=format!("/batches/{job}")>"batch"</A>
        }
        .into_any(),
        (Some(user), None) => view! { {user} }.into_any(),
        (None, Some(job)) => view! { <A href=format!("/batches/{job}")>"batch"</A> }.into_any(),
        (None, None) => view! { <span class="hint">"webhook"</span> }.into_any(),
    };
    let event = if r.deliveries == 0 {
        view! { <span class="badge badge-warn">"Not received yet"</span> }.into_any()
    } else {
        view! { <span class="badge badge-good">"Received"</span> }.into_any()
    };
    view! {
        <tr>
            <td data-label="Date"><WhenShort unix=r.at /></td>
            <td data-label="Tracking number"><A href=href><code>{r.tracking_number}</code></A></td>
            <td data-label="Reference and recipient">{ship_to}</td>
            <td data-label="Service">{format!("{} {}", r.carrier, r.service)}</td>
            <td data-label="Price" class="num"><Money cents=r.price_cents /></td>
            <td data-label="Status">
                {status_badge(r.status)}
                {(r.refund_cents > 0).then(|| view! { " " <Money cents=r.refund_cents /> " back" })}
            </td>
            <td data-label="Carbon" class="num">{r.carbon_grams.map(|g| format!("{g} g"))}</td>
            <td data-label="Bought by">{buyer}</td>
            <td data-label="label.created">
                {event} " " <a href=hooks aria-label=hooks_name>"Events"</a>
            </td>
        </tr>
    }
}

/// The filter form: its fields start from the address and apply together.
#[component]
fn FilterForm(
    filters: Filters,
    /// Modes with a key (the mode filter is offered when there are two).
    modes: Vec<KeyEnv>,
    session_mode: Option<KeyEnv>,
    on_apply: Callback<Filters>,
) -> impl IntoView {
    let q = RwSignal::new(filters.q.clone());
    let carrier = RwSignal::new(filters.carrier.clone());
    let service = RwSignal::new(filters.service.clone());
    let name = |n: Option<&'static str>| n.unwrap_or_default().to_string();
    let status = RwSignal::new(name(filters.status.map(LabelStatus::as_str)));
    let mode = RwSignal::new(name(filters.mode.or(session_mode).map(KeyEnv::as_str)));
    let custom = !filters.from.is_empty() || !filters.to.is_empty();
    let period = RwSignal::new(if custom {
        "custom".to_string()
    } else {
        name(filters.period.map(Period::as_str))
    });
    let from = RwSignal::new(filters.from.clone());
    let to = RwSignal::new(filters.to.clone());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let custom = period.get_untracked() == "custom";
        on_apply.run(Filters {
            q: q.get_untracked().trim().into(),
            carrier: carrier.get_untracked().trim().into(),
            service: service.get_untracked().trim().into(),
            status: LabelStatus::from_name(&status.get_untracked()),
            mode: KeyEnv::from_name(&mode.get_untracked()).filter(|m| Some(*m) != session_mode),
            period: Period::from_name(&period.get_untracked()),
            from: if custom {
                from.get_untracked()
            } else {
                String::new()
            },
            to: if custom {
                to.get_untracked()
            } else {
                String::new()
            },
            cursor: None,
        });
    };
    let text_field = move |id: &'static str,
                           label: &'static str,
                           value: RwSignal<String>,
                           hint: &'static str| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input id=id type="text" placeholder=hint
                    prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            </div>
        }
    };
    let select = move |id: &'static str,
                       label: &'static str,
                       value: RwSignal<String>,
                       options: Vec<(&'static str, &'static str)>| {
        let options = options
            .into_iter()
            .map(|(v, text)| view! { <option value=v selected=move || value.get() == v>{text}</option> })
            .collect_view();
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <select id=id on:change=move |ev| value.set(event_target_value(&ev))>{options}</select>
            </div>
        }
    };
    let mode_field = (modes.len() > 1).then(|| {
        select(
            "history-mode",
            "Mode",
            mode,
            vec![("live", "Live"), ("sandbox", "Sandbox")],
        )
    });
    view! {
        <form class="filters history-filters" role="search" aria-label="Filter labels" on:submit=submit>
            <div class="field">
                <label for="history-q">"Search labels"</label>
                <input id="history-q" type="search" placeholder="Tracking number, reference or recipient"
                    prop:value=move || q.get() on:input=move |ev| q.set(event_target_value(&ev)) />
            </div>
            {text_field("history-carrier", "Carrier", carrier, "Any carrier")}
            {text_field("history-service", "Service", service, "Any service")}
            {select("history-status", "Status", status, vec![
                ("", "Any status"), ("bought", "Bought"), ("void_requested", "Void requested"), ("voided", "Voided and refunded"),
            ])}
            {mode_field}
            {select("history-period", "Period", period, vec![
                ("", "All time"), ("7d", "Last 7 days"), ("30d", "Last 30 days"), ("90d", "Last 90 days"), ("custom", "Between dates"),
            ])}
            <Show when=move || period.get() == "custom">
                <div class="field">
                    <label for="history-from">"From"</label>
                    <input id="history-from" type="date" prop:value=move || from.get()
                        on:input=move |ev| from.set(event_target_value(&ev)) />
                </div>
                <div class="field">
                    <label for="history-to">"To"</label>
                    <input id="history-to" type="date" prop:value=move || to.get()
                        on:input=move |ev| to.set(event_target_value(&ev)) />
                </div>
            </Show>
            <div class="actions">
                <button type="submit">"Search"</button>
            </div>
        </form>
    }
}

/// Goes to a label by its id (labels the ledger has not seen too).
#[component]
fn OpenById() -> impl IntoView {
    let navigate = use_navigate();
    let id = RwSignal::new(String::new());
    view! {
        <form class="inline-form" on:submit=move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let v = id.get_untracked().trim().to_string();
            if !v.is_empty() {
                navigate(&format!("/labels/{}", encode(&v)), NavigateOptions::default());
            }
        }>
            <div class="field">
                <label for="label-id">"Label id"</label>
                <input id="label-id" type="text" required placeholder="lbl_…"
                    prop:value=move || id.get() on:input=move |ev| id.set(event_target_value(&ev)) />
            </div>
            <button type="submit" class="secondary">"Open label"</button>
        </form>
    }
}

#[component]
pub fn LabelsPage() -> impl IntoView {
    let client = Client::get();
    let params = use_query_map();
    let navigate = use_navigate();
    let filters = Memo::new(move |_| params.with(|m| Filters::from_params(|name| m.get(name))));
    let session = move || {
        client
            .session
            .with(|s| s.as_ref().map(|s| (s.mode, s.modes.clone())))
    };
    // One query per address, read at one second: the list shown and its
    // export select the same labels.
    let query = Memo::new(move |_| {
        let now = (js_sys::Date::now() / 1000.0) as u64;
        filters.get().query(now, tz_offset_minutes())
    });
    let page = LocalResource::new(move || client.history(query.get()));
    let apply = Callback::new(move |f: Filters| navigate(&f.href(), NavigateOptions::default()));
    let export = move || query.with(export_href);
    view! {
        <h1>"Labels"</h1>
        {move || {
            let (mode, modes) = session().unzip();
            // Rebuilt when the address changes: the fields show what is applied.
            view! { <FilterForm filters=filters.get() modes=modes.unwrap_or_default() session_mode=mode on_apply=apply /> }
        }}
        <p class="history-actions">
            <a href=export download="labels.csv">"Export CSV"</a>
            <span class="hint">" every label these filters select, for accounting"</span>
            {move || filters.get().narrowed().then(|| view! { " · " <A href="/labels">"Clear filters"</A> })}
        </p>
        <Loader resource=page loading="Loading labels…" let:p>
            {
                let f = filters.get_untracked();
                if p.rows.is_empty() {
                    let text = if f.cursor.is_some() {
                        "No more labels."
                    } else if f.narrowed() {
                        "No label matches these filters."
                    } else {
                        "No labels yet."
                    };
                    view! { <p class="notice" role="status">{text}</p> }.into_any()
                } else {
                    let shown = p.rows.len();
                    let next = p.next.map(|next| Filters { cursor: Some(next), ..f.clone() }.href());
                    let first = f.cursor.is_some().then(|| f.first_page().href());
                    view! {
                        <div class="table-wrap">
                            <table class="ledger">
                                <caption class="visually-hidden">"Labels, newest first"</caption>
                                <thead><tr>
                                    <th scope="col">"Date"</th><th scope="col">"Tracking number"</th><th scope="col">"Reference and recipient"</th>
                                    <th scope="col">"Service"</th><th scope="col" class="num">"Price"</th>
                                    <th scope="col">"Status"</th><th scope="col" class="num">"Carbon"</th><th scope="col">"Bought by"</th>
                                    <th scope="col">"label.created"</th>
                                </tr></thead>
                                <tbody>{p.rows.into_iter().map(row).collect_view()}</tbody>
                            </table>
                        </div>
                        <nav class="pager" aria-label="Pages of labels">
                            <span role="status">{format!("{shown} label{} on this page", if shown == 1 { "" } else { "s" })}</span>
                            {first.map(|href| view! { <A href=href>"Newest labels"</A> })}
                            {next.map(|href| view! { <A href=href>"Older labels"</A> })}
                        </nav>
                    }.into_any()
                }
            }
        </Loader>
        <h2>"Open a label"</h2>
        <OpenById />
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(href: &str) -> Filters {
        let query = href.split_once('?').map(|(_, q)| q).unwrap_or("");
        let map: HashMap<String, String> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k.to_string(), v.replace("%20", " ").replace("%C2%B7", "·"))
            })
            .collect();
        Filters::from_params(|n| map.get(n).cloned())
    }

    #[test]
    fn filters_round_trip_through_the_address() {
        let f = Filters {
            q: "1Z 99".into(),
            carrier: "Pacific Post".into(),
            status: Some(LabelStatus::Voided),
            mode: Some(KeyEnv::Sandbox),
            period: Some(Period::Days90),
            cursor: Some("1795586400.lbl_9".into()),
            ..Filters::default()
        };
        assert_eq!(parse(&f.href()), f);
        assert_eq!(Filters::default().href(), "/labels");
        // Dates win over a period; a bad date or cursor is dropped.
        let dated = parse("/labels?period=7d&from=2026-11-01&to=2026-11-30");
        assert_eq!(
            (dated.from.as_str(), dated.to.as_str()),
            ("2026-11-01", "2026-11-30")
        );
        assert!(!dated.href().contains("period"));
        let bad = parse("/labels?from=yesterday&cursor=abc&status=lost&mode=prod");
        assert_eq!(bad, Filters::default());
        assert!(!bad.narrowed());
        assert!(parse("/labels?mode=live").mode.is_some());
        assert!(
            !parse("/labels?mode=live").narrowed(),
            "the mode alone is not a filter"
        );
    }

    #[test]
    fn periods_and_dates_start_at_local_midnight() {
        // 2026-11-25T06:00:00Z; New York is UTC−5.
        let now = 1_795_586_400;
        let ny = -300;
        let days = |f: Filters| {
            let q = f.query(now, ny);
            (
                q.since.map(api::insights::iso_utc),
                q.until.map(api::insights::iso_utc),
            )
        };
        // The last 7 days: from midnight six days before today (the 25th there too).
        let week = Filters {
            period: Some(Period::Days7),
            ..Filters::default()
        };
        assert_eq!(days(week), (Some("2026-11-19T05:00:00Z".into()), None));
        // Both days included.
        let november = || Filters {
            from: "2026-11-01".into(),
            to: "2026-11-30".into(),
            ..Filters::default()
        };
        let november_query = |now, tz| november().query(now, tz);
        assert_eq!(
            days(november()),
            (
                Some("2026-11-01T05:00:00Z".into()),
                Some("2026-12-01T05:00:00Z".into())
            )
        );
        // Only an end; and dates the wrong way round mean the same days.
        let until = Filters {
            to: "2026-11-02".into(),
            ..Filters::default()
        };
        assert_eq!(days(until), (None, Some("2026-11-03T05:00:00Z".into())));
        let backwards = Filters {
            from: "2026-11-30".into(),
            to: "2026-11-01".into(),
            ..Filters::default()
        };
        assert_eq!(backwards.query(now, ny), november_query(now, ny));
        assert_eq!(Filters::default().query(now, ny), HistoryQuery::default());
    }
}
