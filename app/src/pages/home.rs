//! Home (`/`): what to do next. An admin of an organization not yet set up
//! sees its checklist, each step read from what is really done (not from
//! clicks remembered here) and linked to the page where it is done; the
//! list goes once every step is. Below it, for what the person's role may
//! see: the wallet and a low balance, batch jobs running or waiting for
//! someone, labels bought today and shipments late against their estimate.

use crate::api::{Client, ClientError};
use crate::components::loader::Loader;
use crate::components::money::{Money, format_cents};
use crate::components::status_badge::{StatusBadge, Tone};
use crate::page_table::{KEYS_PAGE, WEBHOOK_SETTINGS_PAGE, WIDGET_SETTINGS_PAGE};
use crate::pages::shipments::{is_late, today};
use crate::pages::wallet::{LOW_BALANCE_CENTS, is_low};
use api::insights::HistoryQuery;
use api::jobs::JobState;
use api::session::Role;
use api::{KeyEnv, Scope, Wallet};
use leptos::prelude::*;
use leptos::reactive::computed::ScopedFuture;
use std::future::IntoFuture;

/// A step of setting an organization up, in the order most take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Keys,
    Sender,
    Webhook,
    Team,
    Shop,
    FirstLabel,
    Live,
    Funds,
}

impl Step {
    pub const ALL: [Step; 8] = [
        Step::Keys,
        Step::Sender,
        Step::Webhook,
        Step::Team,
        Step::Shop,
        Step::FirstLabel,
        Step::Live,
        Step::Funds,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Step::Keys => "Enter your API keys",
            Step::Sender => "Save the address you ship from",
            Step::Webhook => "Set the webhook signing secret",
            Step::Team => "Invite your team",
            Step::Shop => "Allow your shop to show the checkout widget",
            Step::FirstLabel => "Buy a first label",
            Step::Live => "Turn on live mode",
            Step::Funds => "Add funds or turn on auto-reload",
        }
    }

    /// Why it matters, in one line.
    pub fn why(self) -> &'static str {
        match self {
            Step::Keys => {
                "The dashboard buys labels with your shipping account's sandbox and live keys."
            }
            Step::Sender => "Ship and batch imports start from it.",
            Step::Webhook => "Labels bought outside the dashboard then show here too.",
            Step::Team => "Operators buy labels, viewers follow shipments, admins change settings.",
            Step::Shop => "List your shop's web address so shoppers see rates at checkout.",
            Step::FirstLabel => "In sandbox it is free: try the whole path once.",
            Step::Live => "Until then every label is a free test label.",
            Step::Funds => {
                "Live labels are paid from the wallet; in live mode its page says how to add funds."
            }
        }
    }

    /// Where it is done.
    pub fn href(self) -> &'static str {
        match self {
            Step::Keys | Step::Live => KEYS_PAGE,
            Step::Sender => "/presets",
            Step::Webhook => WEBHOOK_SETTINGS_PAGE,
            Step::Team => "/team",
            Step::Shop => WIDGET_SETTINGS_PAGE,
            Step::FirstLabel => "/ship",
            Step::Funds => "/wallet",
        }
    }

    pub fn done(self, f: &Facts) -> bool {
        match self {
            Step::Keys => f.keys,
            Step::Sender => f.sender,
            Step::Webhook => f.webhook,
            Step::Team => f.team,
            Step::Shop => f.shop,
            Step::FirstLabel => f.first_label,
            Step::Live => f.live,
            Step::Funds => f.live && f.funds,
        }
    }
}

/// What is set up, as the organization's own records say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub keys: bool,
    pub live: bool,
    pub sender: bool,
    pub webhook: bool,
    /// Someone else is a member, or has been invited.
    pub team: bool,
    pub shop: bool,
    pub first_label: bool,
    /// A live wallet with money in it or auto-reload on.
    pub funds: bool,
}

impl Facts {
    /// Every step done: the checklist is not shown.
    pub fn complete(&self) -> bool {
        Step::ALL.iter().all(|s| s.done(self))
    }
}

/// One read of the wallet on Home, the card's, which the checklist shares.
type WalletRead = LocalResource<Result<Wallet, ClientError>>;

/// The admin's reads, all at once. The service is asked only in the modes
/// the session has a key for (none before the keys, no live before live
/// is on); a read it refuses counts as not done. The wallet is the card's
/// read when the card shows.
async fn facts(client: Client, wallet: Option<WalletRead>) -> Result<Facts, ClientError> {
    let modes = client
        .session
        .with_untracked(|s| s.as_ref().map(|s| s.modes.clone()).unwrap_or_default());
    // A first label in either mode: the session may be in live by then.
    let first = |mode| {
        let has = modes.contains(&mode);
        async move {
            let query = HistoryQuery {
                mode: Some(mode),
                limit: 1,
                ..HistoryQuery::default()
            };
            has && client
                .history(query)
                .await
                .is_ok_and(|p| !p.rows.is_empty())
        }
    };
    let wallet = async {
        match wallet {
            _ if modes.is_empty() => None,
            // Untracked: awaiting a resource inside another subscribes to
            // it, and every read here would run again once it answered.
            Some(read) => ScopedFuture::new_untracked(read.into_future()).await.ok(),
            None => client.wallet().await.ok(),
        }
    };
    let (keys, addresses, webhook, members, invites, widget, sandbox, live, wallet) = futures::join!(
        client.org_keys(),
        client.saved_addresses(),
        client.org_webhook(),
        client.members(),
        client.invites(),
        client.org_widget(),
        first(KeyEnv::Sandbox),
        first(KeyEnv::Live),
        wallet,
    );
    let keys = keys?;
    Ok(Facts {
        keys: !keys.keys.is_empty(),
        live: keys.live,
        sender: !addresses?.addresses.is_empty(),
        webhook: !webhook?.secrets.is_empty(),
        team: members?.members.len() > 1 || !invites?.invites.is_empty(),
        shop: !widget?.settings.origins.is_empty(),
        first_label: sandbox || live,
        funds: wallet.is_some_and(|w| {
            !w.sandbox && !w.unlimited && (w.balance_cents > 0 || w.auto_reload.is_some())
        }),
    })
}

#[component]
pub fn HomePage() -> impl IntoView {
    let client = Client::get();
    // Admins of an organization made in the app (the deployment's own is
    // set up in its settings) see the checklist.
    let setup = client.session.with_untracked(|s| {
        s.as_ref()
            .is_some_and(|s| s.role == Role::Admin && !s.org.id.is_deployment())
    });
    let wallet = client
        .can(Scope::WalletRead)
        .then(|| LocalResource::new(move || client.wallet()));
    view! {
        <h1>"Home"</h1>
        {setup.then(|| view! { <Checklist client wallet /> })}
        <section aria-labelledby="today-title">
            <h2 id="today-title">"Today"</h2>
            <div class="today">
                {wallet.map(|wallet| view! { <WalletCard wallet /> })}
                {client.can(Scope::LabelsRead).then(|| view! { <LabelsToday client /> <Late client /> })}
                {client.can(Scope::BatchesRead).then(|| view! { <Jobs client /> })}
            </div>
        </section>
    }
}

#[component]
fn Checklist(client: Client, wallet: Option<WalletRead>) -> impl IntoView {
    let facts = LocalResource::new(move || facts(client, wallet));
    view! {
        <Loader resource=facts loading="Checking what is set up…" let:f>
            {(!f.complete()).then(|| {
                let done = Step::ALL.iter().filter(|s| s.done(&f)).count();
                view! {
                    <section class="card wide" aria-labelledby="setup-title">
                        <h2 id="setup-title">"Get set up"</h2>
                        <p class="hint" data-testid="setup-progress">
                            {format!("{done} of {} done", Step::ALL.len())}
                        </p>
                        <ol class="checklist">
                            {Step::ALL.iter().map(|s| step(*s, s.done(&f))).collect_view()}
                        </ol>
                    </section>
                }
            })}
        </Loader>
    }
}

fn step(s: Step, done: bool) -> impl IntoView {
    let (text, tone) = if done {
        ("Done", Tone::Good)
    } else {
        ("To do", Tone::Neutral)
    };
    view! {
        <li data-done=done.to_string()>
            <StatusBadge text tone />
            " "
            {if done {
                view! { <span>{s.title()}</span> }.into_any()
            } else {
                view! { <a href=s.href()>{s.title()}</a> }.into_any()
            }}
            <br />
            <span class="hint">{s.why()}</span>
        </li>
    }
}

#[component]
fn WalletCard(wallet: WalletRead) -> impl IntoView {
    view! {
        <section class="card" aria-labelledby="home-wallet">
            <h3 id="home-wallet"><a href="/wallet">"Wallet"</a></h3>
            <Loader resource=wallet loading="Loading balance…" let:w>
                <p class="balance"><Money cents=w.balance_cents /></p>
                {if is_low(&w) {
                    view! {
                        <p class="notice notice-warn" role="alert">
                            {format!("Low balance: less than {}. Add funds before the next live labels.", format_cents(LOW_BALANCE_CENTS))}
                        </p>
                    }.into_any()
                } else if w.sandbox || w.unlimited {
                    view! { <p class="hint">"Sandbox: labels are free test labels."</p> }.into_any()
                } else {
                    ().into_any()
                }}
            </Loader>
        </section>
    }
}

/// At most this many of today's labels are counted ("100 or more").
const TODAY_COUNT: u32 = 100;

#[component]
fn LabelsToday(client: Client) -> impl IntoView {
    let day = js_sys::Date::new_0();
    day.set_hours(0);
    day.set_minutes(0);
    day.set_seconds(0);
    let since = (day.get_time() / 1000.0) as u64;
    let labels = LocalResource::new(move || {
        client.history(HistoryQuery {
            since: Some(since),
            limit: TODAY_COUNT,
            ..HistoryQuery::default()
        })
    });
    view! {
        <section class="card" aria-labelledby="home-labels">
            <h3 id="home-labels"><a href="/labels">"Labels today"</a></h3>
            <Loader resource=labels loading="Counting labels…" let:page>
                <p class="balance" data-testid="labels-today">
                    {match (page.rows.len(), page.next.is_some()) {
                        (n, true) => format!("{n} or more"),
                        (n, false) => n.to_string(),
                    }}
                </p>
            </Loader>
        </section>
    }
}

#[component]
fn Late(client: Client) -> impl IntoView {
    let shipments = LocalResource::new(move || client.shipments());
    view! {
        <section class="card" aria-labelledby="home-late">
            <h3 id="home-late"><a href="/shipments?late=1">"Late shipments"</a></h3>
            <Loader resource=shipments loading="Reading shipments…" let:list>
                {
                    let today = today();
                    let late = list.shipments.iter().filter(|s| is_late(s, &today)).count();
                    view! {
                        <p class="balance" data-testid="late">{late}</p>
                        <p class="hint">{if late == 0 { "None past its estimated day." } else { "Past their estimated day and not delivered." }}</p>
                    }
                }
            </Loader>
        </section>
    }
}

/// A job someone should look at, or that is on its way.
fn active(state: JobState) -> Option<(&'static str, Tone)> {
    match state {
        JobState::Quoting | JobState::Buying => Some(("Running", Tone::Neutral)),
        JobState::AwaitingApproval => Some(("Waiting for approval", Tone::Warn)),
        JobState::Paused | JobState::Stopped => Some(("Needs you", Tone::Bad)),
        _ => None,
    }
}

#[component]
fn Jobs(client: Client) -> impl IntoView {
    let jobs = LocalResource::new(move || client.jobs());
    view! {
        <section class="card" aria-labelledby="home-jobs">
            <h3 id="home-jobs"><a href="/batches">"Batch jobs"</a></h3>
            <Loader resource=jobs loading="Loading jobs…" let:list>
                {
                    let open: Vec<_> = list.jobs.into_iter().filter_map(|j| active(j.state).map(|a| (j, a))).collect();
                    if open.is_empty() {
                        view! { <p class="hint">"None running or waiting."</p> }.into_any()
                    } else {
                        view! {
                            <ul class="plain">
                                {open.into_iter().map(|(j, (text, tone))| view! {
                                    <li><a href=format!("/batches/{}", j.id)>{j.name}</a> " " <StatusBadge text tone /></li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    }
                }
            </Loader>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_reads_its_own_fact_and_funds_count_only_in_live() {
        let mut f = Facts::default();
        assert_eq!(Step::ALL.iter().filter(|s| s.done(&f)).count(), 0);
        f.funds = true;
        assert!(!Step::Funds.done(&f), "a sandbox wallet funds nothing");
        f.live = true;
        assert!(Step::Funds.done(&f) && Step::Live.done(&f));
        assert!(!f.complete());
        f = Facts {
            keys: true,
            live: true,
            sender: true,
            webhook: true,
            team: true,
            shop: true,
            first_label: true,
            funds: true,
        };
        assert!(f.complete());
        f.webhook = false;
        assert_eq!(
            Step::ALL.iter().filter(|s| !s.done(&f)).collect::<Vec<_>>(),
            [&Step::Webhook]
        );
    }

    #[test]
    fn every_step_links_to_a_page_of_the_table() {
        for s in Step::ALL {
            assert!(crate::page_table::page(s.href()).is_some(), "{s:?}");
        }
    }
}
