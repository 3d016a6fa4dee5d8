//! Insights: where the shipping money and the carbon go, per carrier and
//! day or week, over the last 7, 30 or 90 days of the session's mode
//! (`api::insights`, summed by the Worker). The chart is our own SVG: every
//! bar is a focusable value with its words, and the same numbers are in a
//! table and a text summary.

use crate::api::Client;
use crate::components::dates::{day_in, tz_offset_minutes};
use crate::components::loader::Loader;
use crate::components::money::format_cents;
use api::insights::{Grouping, Insights, InsightsQuery, Period, Totals};
use leptos::prelude::*;

/// Bars' colours (`style/main.css`, `.series-N`), one per carrier in spend order.
const SERIES: usize = 6;

/// One bar: a day or week, its carriers' spend in the order of `carriers`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub start: u64,
    pub spend: Vec<i64>,
    pub labels: u32,
}

impl Bar {
    pub fn total(&self) -> i64 {
        self.spend.iter().sum()
    }
}

/// Every bucket of the period, empty ones included, oldest first.
pub fn bars(insights: &Insights) -> (Vec<String>, Vec<Bar>) {
    let carriers: Vec<String> = insights
        .carriers
        .iter()
        .map(|c| c.carrier.clone())
        .collect();
    let q = InsightsQuery {
        period: insights.period,
        group: insights.group,
        tz_offset_minutes: insights.tz_offset_minutes,
    };
    let mut bars = vec![];
    let mut start = q.bucket_start(insights.since);
    while start <= insights.until {
        bars.push(Bar {
            start,
            spend: vec![0; carriers.len()],
            labels: 0,
        });
        // A week's or day's end is the next one's start (no DST: a fixed offset).
        start += q.bucket_seconds();
    }
    for b in &insights.buckets {
        let (Some(bar), Some(i)) = (
            bars.iter_mut().find(|bar| bar.start == b.start),
            carriers.iter().position(|c| *c == b.carrier),
        ) else {
            continue;
        };
        bar.spend[i] += b.totals.spend_cents;
        bar.labels += b.totals.labels;
    }
    (carriers, bars)
}

fn kg(grams: i64) -> String {
    format!("{:.1} kg", grams as f64 / 1000.0)
}

/// What the period says in a sentence or three (also the chart's summary
/// for screen readers).
pub fn summary(insights: &Insights, days: &str) -> String {
    let t = &insights.totals;
    if t.labels == 0 {
        return format!("No labels in the last {days}.");
    }
    let mut text = format!(
        "In the last {days}: {} label{}, {} spent",
        t.labels,
        if t.labels == 1 { "" } else { "s" },
        format_cents(t.spend_cents)
    );
    if t.refunded_cents > 0 {
        text.push_str(&format!(
            " ({} back for {} void{}, {} net)",
            format_cents(t.refunded_cents),
            t.voided,
            if t.voided == 1 { "" } else { "s" },
            format_cents(t.net_cents())
        ));
    }
    if let Some(avg) = t.average_cents() {
        text.push_str(&format!(", {} per label on average", format_cents(avg)));
    }
    text.push('.');
    if let Some(top) = insights.carriers.first() {
        text.push_str(&format!(
            " Most went to {} ({}).",
            top.carrier,
            format_cents(top.totals.spend_cents)
        ));
    }
    text
}

/// "What the choices cost", in words.
pub fn choices_text(insights: &Insights) -> String {
    let c = &insights.choices;
    if c.labels == 0 {
        return "No label bought here in this period came with the rates offered beside it.".into();
    }
    let extra = c.greenest_extra_cents();
    let saved = c.greenest_saved_grams();
    let green = if saved <= 0 {
        "You already chose the lowest-carbon rate every time.".to_string()
    } else if extra > 0 {
        format!(
            "Choosing the lowest-carbon option every time would have cost {} more and saved {}.",
            format_cents(extra),
            kg(saved)
        )
    } else {
        format!(
            "Choosing the lowest-carbon option every time would have cost {} less and saved {}.",
            format_cents(-extra),
            kg(saved)
        )
    };
    let cheap = c.cheapest_saved_cents();
    let cheap = if cheap > 0 {
        format!(
            " The cheapest every time would have saved {} and emitted {} more.",
            format_cents(cheap),
            kg(c.cheapest_extra_grams().max(0))
        )
    } else {
        " You already chose the cheapest rate every time.".into()
    };
    format!(
        "Over {} label{} bought here: {green}{cheap}",
        c.labels,
        if c.labels == 1 { "" } else { "s" }
    )
}

fn bar_words(bar: &Bar, carriers: &[String], label: &str) -> String {
    let parts: Vec<String> = carriers
        .iter()
        .zip(&bar.spend)
        .filter(|(_, s)| **s > 0)
        .map(|(c, s)| format!("{c} {}", format_cents(*s)))
        .collect();
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    format!(
        "{label}, {} in {} label{}{detail}",
        format_cents(bar.total()),
        bar.labels,
        if bar.labels == 1 { "" } else { "s" }
    )
}

#[component]
fn SpendChart(insights: Insights) -> impl IntoView {
    const H: f64 = 160.0;
    const W: f64 = 24.0;
    let (carriers, bars) = bars(&insights);
    let tz = insights.tz_offset_minutes;
    let top = bars.iter().map(Bar::total).max().unwrap_or(0).max(1);
    let max = top as f64;
    // The value axis: the tallest bar's spend, half of it and nothing.
    let scale = [format_cents(top), format_cents(top / 2), format_cents(0)];
    let width = (bars.len() as f64 * W).max(W);
    let legend = carriers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            view! { <li><span class=format!("swatch series-{}", i % SERIES) aria-hidden="true"></span>{c.clone()}</li> }
        })
        .collect_view();
    let drawn = bars
        .iter()
        .enumerate()
        .map(|(x, bar)| {
            let words = bar_words(bar, &carriers, &day_in(bar.start, tz));
            let mut y = H;
            let rects = bar
                .spend
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > 0)
                .map(|(i, s)| {
                    let h = (*s as f64 / max * (H - 8.0)).max(1.0);
                    y -= h;
                    view! {
                        <rect class=format!("series-{}", i % SERIES) x=x as f64 * W + 3.0 y=y width=W - 6.0 height=h></rect>
                    }
                })
                .collect_view();
            let title = words.clone();
            view! {
                <g class="bar" tabindex="0" role="listitem" aria-label=words>
                    <title>{title}</title>
                    // The whole column takes the pointer, even an empty day.
                    <rect class="hit" x=x as f64 * W y=0 width=W height=H></rect>
                    {rects}
                </g>
            }
        })
        .collect_view();
    let first = bars
        .first()
        .map(|b| day_in(b.start, tz))
        .unwrap_or_default();
    let last = bars.last().map(|b| day_in(b.start, tz)).unwrap_or_default();
    let table_rows = bars
        .iter()
        .filter(|b| b.labels > 0)
        .map(|b| {
            let cells = b
                .spend
                .iter()
                .map(|s| view! { <td class="num">{format_cents(*s)}</td> })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">{day_in(b.start, tz)}</th>
                    {cells}
                    <td class="num">{b.labels}</td>
                    <td class="num">{format_cents(b.total())}</td>
                </tr>
            }
        })
        .collect_view();
    let heads = carriers
        .iter()
        .map(|c| view! { <th scope="col" class="num">{c.clone()}</th> })
        .collect_view();
    view! {
        <figure class="chart" aria-labelledby="spend-title">
            <figcaption id="spend-title">
                {if insights.group == Grouping::Week { "Spend per week, by carrier" } else { "Spend per day, by carrier" }}
            </figcaption>
            <ul class="legend">{legend}</ul>
            <div class="chart-body">
                <p class="y-axis hint" data-testid="value-axis" aria-hidden="true">
                    {scale.into_iter().map(|v| view! { <span>{v}</span> }).collect_view()}
                </p>
                <div class="chart-scroll">
                    <svg viewBox=format!("0 0 {width} {H}") preserveAspectRatio="none" width="100%" height=H
                        role="list" aria-label=format!("Bars from {first} to {last}; each is focusable")>
                        {drawn}
                    </svg>
                </div>
            </div>
            <p class="axis hint"><span>{first}</span><span>{last}</span></p>
            <details>
                <summary>"Show as a table"</summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Spend by day and carrier">
                    <table class="breakdown" data-testid="spend-table">
                        <thead><tr><th scope="col">"Day"</th>{heads}<th scope="col" class="num">"Labels"</th><th scope="col" class="num">"Total"</th></tr></thead>
                        <tbody>{table_rows}</tbody>
                    </table>
                </div>
            </details>
        </figure>
    }
}

fn carbon_rows(insights: &Insights) -> impl IntoView + use<> {
    insights
        .carriers
        .iter()
        .map(|c| {
            let t: &Totals = &c.totals;
            let per = t
                .carbon_per_label_grams()
                .map(|g| format!("{g} g"))
                .unwrap_or_else(|| "unknown".into());
            view! {
                <tr>
                    <th scope="row">{c.carrier.clone()}</th>
                    <td class="num">{t.labels}</td>
                    <td class="num">{format_cents(t.spend_cents)}</td>
                    <td class="num">{t.average_cents().map(format_cents).unwrap_or_default()}</td>
                    <td class="num">{format_cents(t.refunded_cents)}</td>
                    <td class="num">{kg(t.carbon_grams)}</td>
                    <td class="num">{per}</td>
                </tr>
            }
        })
        .collect_view()
}

#[component]
pub fn InsightsPage() -> impl IntoView {
    let client = Client::get();
    let period = RwSignal::new(Period::Days30);
    let group = RwSignal::new(Grouping::Day);
    let insights = LocalResource::new(move || {
        let query = InsightsQuery {
            period: period.get(),
            group: group.get(),
            tz_offset_minutes: tz_offset_minutes(),
        };
        client.insights(query)
    });
    let period_button = move |p: Period, text: &'static str| {
        view! {
            <button type="button" class="secondary" aria-pressed=move || (period.get() == p).to_string()
                on:click=move |_| period.set(p)>{text}</button>
        }
    };
    view! {
        <h1>"Insights"</h1>
        <div class="filters" role="group" aria-label="Period">
            {period_button(Period::Days7, "7 days")}
            {period_button(Period::Days30, "30 days")}
            {period_button(Period::Days90, "90 days")}
            <button type="button" class="secondary" aria-pressed=move || (group.get() == Grouping::Week).to_string()
                on:click=move |_| group.update(|g| *g = if *g == Grouping::Week { Grouping::Day } else { Grouping::Week })>
                "By week"
            </button>
        </div>
        <Loader resource=insights loading="Summing the period…" let:i>
            {
                let days = format!("{} days", i.period.days());
                let t = i.totals;
                view! {
                    <p data-testid="insights-summary">{summary(&i, &days)}</p>
                    <div class="stats">
                        <section class="card" aria-labelledby="spend-label"><p id="spend-label" class="label">"Spend"</p><p class="balance" data-testid="spend-total">{format_cents(t.spend_cents)}</p></section>
                        <section class="card" aria-labelledby="avg-label"><p id="avg-label" class="label">"Per label"</p><p class="balance">{t.average_cents().map(format_cents).unwrap_or_else(|| "–".into())}</p></section>
                        <section class="card" aria-labelledby="refund-label"><p id="refund-label" class="label">"Refunded for voids"</p><p class="balance">{format_cents(t.refunded_cents)}</p></section>
                        <section class="card" aria-labelledby="carbon-label"><p id="carbon-label" class="label">"Carbon"</p><p class="balance">{kg(t.carbon_grams)}</p>
                            <p class="hint">{format!("known for {} of {} labels (those bought here)", t.carbon_labels, t.labels)}</p></section>
                    </div>
                    <SpendChart insights=i.clone() />
                    <section aria-labelledby="choices-title">
                        <h2 id="choices-title">"What the choices cost"</h2>
                        <p data-testid="choices">{choices_text(&i)}</p>
                    </section>
                    <section aria-labelledby="carriers-title">
                        <h2 id="carriers-title">"By carrier"</h2>
                        <div class="table-scroll" tabindex="0" role="region" aria-label="Totals by carrier">
                            <table class="breakdown">
                                <thead><tr>
                                    <th scope="col">"Carrier"</th><th scope="col" class="num">"Labels"</th><th scope="col" class="num">"Spend"</th>
                                    <th scope="col" class="num">"Per label"</th><th scope="col" class="num">"Refunded"</th>
                                    <th scope="col" class="num">"Carbon"</th><th scope="col" class="num">"Carbon per label"</th>
                                </tr></thead>
                                <tbody>{carbon_rows(&i)}</tbody>
                            </table>
                        </div>
                    </section>
                }
            }
        </Loader>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::insights::{Bucket, CarrierTotals, Choices};

    fn totals(labels: u32, spend: i64) -> Totals {
        Totals {
            labels,
            spend_cents: spend,
            ..Totals::default()
        }
    }

    fn sample() -> Insights {
        let day = 86_400;
        Insights {
            sandbox: false,
            period: Period::Days7,
            group: Grouping::Day,
            tz_offset_minutes: 0,
            since: 10 * day,
            until: 16 * day + 3600,
            buckets: vec![
                Bucket {
                    start: 11 * day,
                    carrier: "Atlas".into(),
                    totals: totals(2, 1000),
                },
                Bucket {
                    start: 11 * day,
                    carrier: "Pacific".into(),
                    totals: totals(1, 250),
                },
                Bucket {
                    start: 16 * day,
                    carrier: "Atlas".into(),
                    totals: totals(1, 400),
                },
            ],
            carriers: vec![
                CarrierTotals {
                    carrier: "Atlas".into(),
                    totals: totals(3, 1400),
                },
                CarrierTotals {
                    carrier: "Pacific".into(),
                    totals: totals(1, 250),
                },
            ],
            totals: Totals {
                refunded_cents: 400,
                voided: 1,
                ..totals(4, 1650)
            },
            choices: Choices::default(),
        }
    }

    #[test]
    fn every_day_of_the_period_is_a_bar_and_the_bars_hold_the_totals() {
        let (carriers, bars) = bars(&sample());
        assert_eq!(carriers, ["Atlas", "Pacific"]);
        assert_eq!(bars.len(), 7);
        assert_eq!(bars[1].spend, [1000, 250]);
        assert_eq!(bars[6].spend, [400, 0]);
        assert_eq!(bars.iter().map(Bar::total).sum::<i64>(), 1650);
        assert_eq!(bars.iter().map(|b| b.labels).sum::<u32>(), 4);
    }

    #[test]
    fn the_summary_and_the_choices_read_as_sentences() {
        let i = sample();
        assert_eq!(
            summary(&i, "7 days"),
            "In the last 7 days: 4 labels, $16.50 spent ($4.00 back for 1 void, $12.50 net), $4.13 per label on average. Most went to Atlas ($14.00)."
        );
        let mut c = i.clone();
        c.choices = Choices {
            labels: 2,
            chosen_cents: 1500,
            chosen_carbon_grams: 2400,
            cheapest_cents: 1200,
            cheapest_carbon_grams: 3000,
            greenest_cents: 1850,
            greenest_carbon_grams: 900,
        };
        assert_eq!(
            choices_text(&c),
            "Over 2 labels bought here: Choosing the lowest-carbon option every time would have cost $3.50 more and saved 1.5 kg. The cheapest every time would have saved $3.00 and emitted 0.6 kg more."
        );
        assert!(choices_text(&i).starts_with("No label"));
    }
}
