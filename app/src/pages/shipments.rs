//! Shipments: the parcels in motion as their trackers were last read (the
//! ledger Worker follows every label bought through the product), filtered
//! by status, late against their estimate or without movement for some
//! days; each links to the shoppers' tracking page. The filters live in the
//! address (`?status=`, `?late=1`, `?still=N`), so a view can be shared.

use crate::api::{Client, encode};
use crate::components::dates::{When, calendar_day};
use crate::components::loader::Loader;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::components::timeline::status_text;
use crate::page_table::{TRACKING_BRAND_PAGE, page};
use api::TrackerStatus;
use api::shipments::{Following, Shipment};
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_query_map};

const DAY: u64 = 24 * 3600;

/// Which statuses are shown: the parcels not delivered yet (the default),
/// one status, or every shipment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Statuses {
    #[default]
    InMotion,
    Only(TrackerStatus),
    All,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub statuses: Statuses,
    /// Only those whose estimated day has passed, not delivered.
    pub late: bool,
    /// Only those not delivered whose last movement is at least this many days old.
    pub still_days: Option<u32>,
}

impl Filters {
    pub fn from_params(get: impl Fn(&str) -> Option<String>) -> Filters {
        let statuses = match get("status").as_deref() {
            Some("all") => Statuses::All,
            Some(name) => TrackerStatus::from_name(name).map_or(Statuses::InMotion, Statuses::Only),
            None => Statuses::InMotion,
        };
        Filters {
            statuses,
            late: get("late").as_deref() == Some("1"),
            still_days: get("still")
                .and_then(|d| d.trim().parse().ok())
                .filter(|d| *d > 0),
        }
    }

    pub fn href(&self) -> String {
        let mut params = vec![];
        match self.statuses {
            Statuses::InMotion => {}
            Statuses::All => params.push("status=all".to_string()),
            Statuses::Only(s) => params.push(format!("status={}", encode(s.as_str()))),
        }
        if self.late {
            params.push("late=1".into());
        }
        if let Some(days) = self.still_days {
            params.push(format!("still={days}"));
        }
        match params.is_empty() {
            true => "/shipments".into(),
            false => format!("/shipments?{}", params.join("&")),
        }
    }

    pub fn narrowed(&self) -> bool {
        *self != Filters::default()
    }

    /// Does `s` show, on the day `today` (`YYYY-MM-DD`) at `now` (Unix seconds)?
    pub fn shows(&self, s: &Shipment, today: &str, now: u64) -> bool {
        let status_fits = match self.statuses {
            Statuses::InMotion => !delivered(s),
            Statuses::Only(status) => s.status == Some(status),
            Statuses::All => true,
        };
        status_fits
            && (!self.late || is_late(s, today))
            && self
                .still_days
                .is_none_or(|days| still_for(s, now) >= u64::from(days) * DAY)
    }
}

fn delivered(s: &Shipment) -> bool {
    s.status == Some(TrackerStatus::Delivered)
}

/// Not delivered and its estimated day is before `today`.
pub fn is_late(s: &Shipment, today: &str) -> bool {
    !delivered(s)
        && s.estimated_delivery
            .as_deref()
            .is_some_and(|day| day < today)
}

/// Seconds since the parcel last moved (its last event, else its purchase);
/// 0 once delivered.
pub fn still_for(s: &Shipment, now: u64) -> u64 {
    if delivered(s) {
        return 0;
    }
    let moved = s.events.last().map_or(s.bought_at, |e| e.occurred_at);
    now.saturating_sub(moved)
}

/// Where following the label stands, in words, when it is not simply read.
fn following_note(f: Following) -> Option<&'static str> {
    match f {
        Following::Registering => Some("Registering its tracker (tried again until it is)"),
        Following::Stopped => Some("No longer followed"),
        Following::Following | Following::Done => None,
    }
}

/// Today in the browser's time zone, `YYYY-MM-DD` (the carriers' estimates are calendar days).
pub fn today() -> String {
    let d = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date()
    )
}

fn row(s: Shipment, today: &str) -> impl IntoView + use<> {
    let (text, tone) = s
        .status
        .map_or(("Not read yet", Tone::Neutral), status_text);
    let late = is_late(&s, today);
    let last = s.events.last().cloned();
    let note = following_note(s.following);
    let number = s.tracking_number.clone();
    let page = s.link.clone().map(|href| {
        let label = format!("Tracking page of {number}");
        view! { <a href=href target="_blank" rel="noopener" aria-label=label>"Tracking page"</a> }
    });
    view! {
        <tr>
            <td data-label="Tracking number"><A href=format!("/labels/{}", s.label_id)>{s.tracking_number}</A></td>
            <td data-label="Reference">{s.reference.unwrap_or_else(|| "—".into())}</td>
            <td data-label="Service">{format!("{} {}", s.carrier, s.service)}</td>
            <td data-label="Status">
                <StatusBadge text=text tone />
                {note.map(|n| view! { <span class="hint">" " {n}</span> })}
            </td>
            <td data-label="Estimated">
                {s.estimated_delivery.as_deref().map(calendar_day).unwrap_or_else(|| "—".into())}
                {late.then(|| view! { " " <StatusBadge text="Late" tone=Tone::Bad /> })}
            </td>
            <td data-label="Last movement">
                {match last {
                    Some(e) => view! { <When unix=e.occurred_at /> " " {e.message} }.into_any(),
                    None => view! { "—" }.into_any(),
                }}
            </td>
            <td data-label="Shopper's page">{page}</td>
        </tr>
    }
}

#[component]
fn FilterForm(filters: Filters, on_apply: Callback<Filters>) -> impl IntoView {
    let status = RwSignal::new(match filters.statuses {
        Statuses::InMotion => String::new(),
        Statuses::All => "all".into(),
        Statuses::Only(s) => s.as_str().into(),
    });
    let late = RwSignal::new(filters.late);
    let still = RwSignal::new(
        filters
            .still_days
            .map(|d| d.to_string())
            .unwrap_or_default(),
    );
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let params = |name: &str| match name {
            "status" => Some(status.get_untracked()).filter(|s| !s.is_empty()),
            "late" => late.get_untracked().then(|| "1".into()),
            "still" => Some(still.get_untracked()),
            _ => None,
        };
        on_apply.run(Filters::from_params(params));
    };
    let options = TrackerStatus::ALL.map(|s| {
        let value = s.as_str();
        view! { <option value=value selected=status.get_untracked() == value>{status_text(s).0}</option> }
    });
    view! {
        <form class="filters" role="search" aria-label="Filter shipments" on:submit=submit>
            <label>"Status "
                <select on:change=move |ev| status.set(event_target_value(&ev))>
                    <option value="" selected=status.get_untracked().is_empty()>"In motion (not delivered)"</option>
                    {options.into_iter().collect_view()}
                    <option value="all" selected=status.get_untracked() == "all">"All shipments"</option>
                </select>
            </label>
            <label><input type="checkbox" prop:checked=late on:change=move |ev| late.set(event_target_checked(&ev)) />" Late against their estimate"</label>
            <label>"No movement for at least "
                <input type="number" min="1" inputmode="numeric" size="3" prop:value=still on:input=move |ev| still.set(event_target_value(&ev)) />
                " days"
            </label>
            <button type="submit">"Show"</button>
        </form>
    }
}

#[component]
pub fn ShipmentsPage() -> impl IntoView {
    let client = Client::get();
    let params = use_query_map();
    let navigate = use_navigate();
    let filters = Memo::new(move |_| params.with(|m| Filters::from_params(|name| m.get(name))));
    let list = LocalResource::new(move || client.shipments());
    let apply = Callback::new(move |f: Filters| navigate(&f.href(), NavigateOptions::default()));
    view! {
        <h1>"Shipments"</h1>
        <p class="hint">"Every label bought here, on Ship or in a batch, as its carrier last reported it. Each tracker is read on its own schedule: hourly in transit, more often out for delivery, never after delivery."</p>
        {move || page(TRACKING_BRAND_PAGE).is_some_and(|p| p.allowed(client)).then(|| view! {
            <p><A href=TRACKING_BRAND_PAGE>"Your shoppers' tracking page: its name and look"</A></p>
        })}
        {move || view! { <FilterForm filters=filters.get() on_apply=apply /> }}
        {move || filters.get().narrowed().then(|| view! { <p><A href="/shipments">"Clear filters"</A></p> })}
        <Loader resource=list loading="Loading shipments…" let:list>
            {
                let f = filters.get();
                let (today, now) = (today(), (js_sys::Date::now() / 1000.0) as u64);
                let all = list.shipments.len();
                let late = list.shipments.iter().filter(|s| is_late(s, &today)).count();
                let shown: Vec<Shipment> = list.shipments.into_iter().filter(|s| f.shows(s, &today, now)).collect();
                if shown.is_empty() {
                    let text = if all == 0 {
                        "No shipments yet: a label bought on Ship or in a batch shows here once its tracker is registered, within a minute."
                    } else {
                        "No shipment matches these filters."
                    };
                    view! { <p class="notice" role="status">{text}</p> }.into_any()
                } else {
                    let summary = format!(
                        "{} of {all} shipment{} shown; {late} late against their estimate",
                        shown.len(),
                        if all == 1 { "" } else { "s" },
                    );
                    view! {
                        <p role="status">{summary}</p>
                        <div class="table-wrap">
                            <table class="ledger">
                                <caption class="visually-hidden">"Shipments, newest first"</caption>
                                <thead><tr>
                                    <th scope="col">"Tracking number"</th><th scope="col">"Reference"</th><th scope="col">"Service"</th>
                                    <th scope="col">"Status"</th><th scope="col">"Estimated"</th><th scope="col">"Last movement"</th>
                                    <th scope="col">"Shopper's page"</th>
                                </tr></thead>
                                <tbody>{shown.into_iter().map(|s| row(s, &today)).collect_view()}</tbody>
                            </table>
                        </div>
                    }.into_any()
                }
            }
        </Loader>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::TrackerEvent;
    use std::collections::HashMap;

    const NOW: u64 = 1_800_000_000;

    fn shipment(
        status: Option<TrackerStatus>,
        estimate: Option<&str>,
        moved: Option<u64>,
    ) -> Shipment {
        Shipment {
            label_id: "lbl_1".into(),
            tracking_number: "1Z1".into(),
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            reference: None,
            bought_at: NOW - 10 * DAY,
            following: Following::Following,
            link: None,
            status,
            tracker_id: None,
            read_at: None,
            estimated_delivery: estimate.map(Into::into),
            events: moved
                .map(|at| TrackerEvent {
                    status: status.unwrap_or(TrackerStatus::PreTransit),
                    message: "Scanned".into(),
                    location: "Oakland, CA".into(),
                    occurred_at: at,
                })
                .into_iter()
                .collect(),
        }
    }

    fn parse(href: &str) -> Filters {
        let query = href.split_once('?').map_or("", |(_, q)| q);
        let map: HashMap<&str, &str> = query.split('&').filter_map(|p| p.split_once('=')).collect();
        Filters::from_params(|n| map.get(n).map(|v| v.to_string()))
    }

    #[test]
    fn filters_round_trip_through_the_address() {
        for f in [
            Filters::default(),
            Filters {
                statuses: Statuses::All,
                late: true,
                still_days: Some(3),
            },
            Filters {
                statuses: Statuses::Only(TrackerStatus::OutForDelivery),
                late: false,
                still_days: None,
            },
        ] {
            assert_eq!(parse(&f.href()), f, "{}", f.href());
        }
        assert_eq!(Filters::default().href(), "/shipments");
        // Nonsense in the address is the default view, not an error.
        assert_eq!(
            parse("/shipments?status=lost&still=-2&late=yes"),
            Filters::default()
        );
    }

    #[test]
    fn in_motion_by_default_late_and_still_as_their_words_say() {
        let today = "2027-01-15";
        let transit = shipment(
            Some(TrackerStatus::InTransit),
            Some("2027-01-14"),
            Some(NOW - 4 * DAY),
        );
        let delivered = shipment(
            Some(TrackerStatus::Delivered),
            Some("2027-01-10"),
            Some(NOW - 9 * DAY),
        );
        let unread = shipment(None, None, None);
        let on_time = shipment(Some(TrackerStatus::InTransit), Some(today), Some(NOW - DAY));
        let all = [&transit, &delivered, &unread, &on_time];
        let shown = |f: Filters| all.iter().filter(|s| f.shows(s, today, NOW)).count();
        assert_eq!(shown(Filters::default()), 3, "every one not delivered");
        assert_eq!(
            shown(Filters {
                statuses: Statuses::All,
                ..Filters::default()
            }),
            4
        );
        let only_delivered = Filters {
            statuses: Statuses::Only(TrackerStatus::Delivered),
            ..Filters::default()
        };
        assert_eq!(shown(only_delivered), 1);
        // Late: the estimated day is before today and it is not delivered.
        assert!(is_late(&transit, today));
        assert!(!is_late(&on_time, today), "due today is not late");
        assert!(
            !is_late(&delivered, today),
            "a delivered parcel is never late"
        );
        assert_eq!(
            shown(Filters {
                late: true,
                ..Filters::default()
            }),
            1
        );
        // Still: since the last event, else since the purchase (10 days for the unread one).
        assert_eq!(still_for(&transit, NOW), 4 * DAY);
        assert_eq!(still_for(&unread, NOW), 10 * DAY);
        assert_eq!(still_for(&delivered, NOW), 0);
        assert_eq!(
            shown(Filters {
                still_days: Some(4),
                ..Filters::default()
            }),
            2
        );
        assert_eq!(
            shown(Filters {
                still_days: Some(5),
                ..Filters::default()
            }),
            1
        );
    }
}
