//! What the main Worker and the accounts Worker say to each other through
//! the `ACCOUNTS` service binding. The accounts Worker (`accounts/`) holds the organizations' and
//! the directory's objects and everything about people: sign-in, password
//! hashing, invitations, the team, the audit log. The main Worker keeps
//! only what every request needs: it asks `check` who a session's person
//! is now, and forwards the organization endpoints, after its own origin
//! and session checks, naming the caller. Sign-ins answer [`Started`]; the
//! main Worker alone makes the session cookie. Only the binding reaches the
//! accounts Worker (it has no public URL), so it trusts the caller it is told.
//!
//! What the main Worker reads of these answers travels as plain text, not
//! JSON: a decoder derived for each would cost every isolate of the main
//! Worker more wasm than the few lines below.

use api::jobs::{Approval, Job};
use api::labels::Label;
use api::orgs::{AccountId, AuditAction, OrgId, OrgSummary};
use api::session::{KeySlot, Role};
use api::{KeyEnv, Scope};

use super::via::Via;

pub const BINDING: &str = "ACCOUNTS";
/// `POST` with the caller: [`Checked`] (plain text: it is on every request).
pub const CHECK_URL: &str = "https://accounts/check";
/// `POST` with [`ORG_HEADER`]: [`Checked`] without a role (the
/// organization's batch jobs run with its keys).
pub const KEYS_URL: &str = "https://accounts/keys";
pub const ORG_HEADER: &str = "parcel-org";
/// `POST` with [`ORG_HEADER`]: as [`KEYS_URL`], with the widget's settings
/// (`Checked::widget`), for the widget's page and calls.
pub const WIDGET_URL: &str = "https://accounts/widget";
/// `POST` with [`ORG_HEADER`], from the ledger Worker: [`Checked`] with
/// only the current key of each mode that has `tracking:read`, no secrets,
/// for following the organization's labels.
pub const TRACKING_KEYS_URL: &str = "https://accounts/tracking-keys";
/// `POST` with the caller: [`Me`], or an empty body if they are no longer a member.
pub const ME_URL: &str = "https://accounts/me";
/// `POST` with the caller and a [`Record`]: the main Worker adds an entry
/// to the caller's organization's audit log.
pub const RECORD_URL: &str = "https://accounts/record";
/// `POST` a personal access token as the body (with the client address):
/// [`Started`], or the refusal to pass on.
pub const TOKEN_URL: &str = "https://accounts/token";
/// Where forwarded endpoints go: this origin and the request's own path.
pub const ORIGIN: &str = "https://accounts";
/// `{org} {account} {via}`: the signed-in caller of a forwarded endpoint.
pub const CALLER_HEADER: &str = "parcel-caller";
/// The main Worker's request id, for the envelopes the accounts Worker makes.
pub const REQUEST_ID_HEADER: &str = "parcel-request-id";

/// The session's person, and how they signed in (`via`: what the session reaches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub org: OrgId,
    pub account: AccountId,
    pub via: Via,
}

impl Caller {
    pub fn header(&self) -> String {
        format!("{} {} {}", self.org, self.account, self.via.as_str())
    }

    pub fn from_header(value: &str) -> Option<Caller> {
        let mut parts = value.split(' ');
        let caller = Caller {
            org: OrgId::parse(parts.next()?)?,
            account: AccountId::parse(parts.next()?)?,
            via: Via::from_name(parts.next()?)?,
        };
        parts.next().is_none().then_some(caller)
    }
}

/// A sign-in, a new organization, an accepted invitation or a switch
/// succeeded: the session to start. As text: `{org} {account} {role} {via}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub org: OrgId,
    pub account: AccountId,
    pub role: Role,
    pub via: Via,
}

impl Started {
    pub fn encode(&self) -> String {
        format!(
            "{} {} {} {}",
            self.org,
            self.account,
            self.role,
            self.via.as_str()
        )
    }

    pub fn decode(text: &str) -> Option<Started> {
        let mut parts = text.split(' ');
        let started = Started {
            org: OrgId::parse(parts.next()?)?,
            account: AccountId::parse(parts.next()?)?,
            role: Role::from_name(parts.next()?)?,
            via: Via::from_name(parts.next()?)?,
        };
        parts.next().is_none().then_some(started)
    }
}

/// One of the organization's keys as the main Worker needs it, opened by
/// the accounts Worker: only it holds `MASTER_KEYS`, so a leak of the main
/// Worker's settings or of any object's storage never opens another key.
/// (The answer crosses the service binding inside the runtime: no network,
/// no log, no client sees it.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyLine {
    pub mode: KeyEnv,
    pub slot: KeySlot,
    pub key: String,
    pub scopes: Vec<Scope>,
}

/// The person's role now (`None`: not a member, or not asked) and the
/// organization's keys and webhook secrets, opened. As text: the role's
/// name (or nothing) on the first line, then `{mode}\t{slot}\t{key}\t{scope,scope}`
/// per key, `webhook\t{slot}\t{secret}` per webhook secret and
/// `name\t{name}` for the person's name (what their purchases and jobs are
/// recorded under: people read names, not account ids); asked at
/// [`WIDGET_URL`], `widget\t{share}`, then `widget_origin\t{origin}` per
/// origin, `widget_from\t{json}` and `widget_fallback\t{json}` (compact
/// JSON has no tab or newline); `mode_switch\toperators` when operators may
/// switch between live and sandbox.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checked {
    pub role: Option<Role>,
    /// The person's name, when a member was asked about.
    pub name: Option<String>,
    pub keys: Vec<KeyLine>,
    pub webhook: Vec<(KeySlot, String)>,
    pub widget: Option<WidgetLines>,
    pub operators_switch_mode: bool,
}

/// An organization's widget settings as the main Worker uses them: the
/// address and the fallback stay JSON, written into the page as they are.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WidgetLines {
    pub share: f64,
    pub origins: Vec<String>,
    pub ship_from: Option<String>,
    pub fallback: Option<String>,
}

const WEBHOOK: &str = "webhook";
const NAME: &str = "name";
const WIDGET: &str = "widget";
const WIDGET_ORIGIN: &str = "widget_origin";
const WIDGET_FROM: &str = "widget_from";
const WIDGET_FALLBACK: &str = "widget_fallback";
const MODE_SWITCH: &str = "mode_switch\toperators";

impl Checked {
    pub fn encode(&self) -> String {
        let mut text = self.role.map_or("", Role::as_str).to_string();
        for key in &self.keys {
            let scopes: Vec<&str> = key.scopes.iter().map(|s| s.as_str()).collect();
            text.push_str(&format!(
                "\n{}\t{}\t{}\t{}",
                key.mode,
                key.slot.as_str(),
                key.key,
                scopes.join(",")
            ));
        }
        for (slot, secret) in &self.webhook {
            text.push_str(&format!("\n{WEBHOOK}\t{}\t{secret}", slot.as_str()));
        }
        if let Some(name) = &self.name {
            text.push_str(&format!("\n{NAME}\t{name}"));
        }
        if self.operators_switch_mode {
            text.push_str(&format!("\n{MODE_SWITCH}"));
        }
        if let Some(w) = &self.widget {
            text.push_str(&format!("\n{WIDGET}\t{}", w.share));
            for origin in &w.origins {
                text.push_str(&format!("\n{WIDGET_ORIGIN}\t{origin}"));
            }
            for (name, json) in [(WIDGET_FROM, &w.ship_from), (WIDGET_FALLBACK, &w.fallback)] {
                if let Some(json) = json {
                    text.push_str(&format!("\n{name}\t{json}"));
                }
            }
        }
        text
    }

    pub fn decode(text: &str) -> Option<Checked> {
        let mut lines = text.split('\n');
        let role = match lines.next()? {
            "" => None,
            name => Some(Role::from_name(name)?),
        };
        let mut keys = Vec::new();
        let mut webhook = Vec::new();
        let mut widget: Option<WidgetLines> = None;
        let mut name = None;
        let mut operators_switch_mode = false;
        for line in lines {
            if line == MODE_SWITCH {
                operators_switch_mode = true;
                continue;
            }
            let mut fields = line.split('\t');
            let mut next = || fields.next();
            let first = next()?;
            match first {
                WEBHOOK => {
                    webhook.push((KeySlot::from_name(next()?)?, next()?.to_string()));
                    continue;
                }
                NAME => {
                    name = Some(next()?.to_string());
                    continue;
                }
                WIDGET => {
                    widget = Some(WidgetLines {
                        share: next()?.parse().ok()?,
                        ..WidgetLines::default()
                    });
                    continue;
                }
                WIDGET_ORIGIN | WIDGET_FROM | WIDGET_FALLBACK => {
                    let w = widget.as_mut()?;
                    let value = next()?.to_string();
                    match first {
                        WIDGET_ORIGIN => w.origins.push(value),
                        WIDGET_FROM => w.ship_from = Some(value),
                        _ => w.fallback = Some(value),
                    }
                    continue;
                }
                _ => {}
            }
            keys.push(KeyLine {
                mode: KeyEnv::from_name(first)?,
                slot: KeySlot::from_name(next()?)?,
                key: next()?.to_string(),
                scopes: next()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().ok())
                    .collect::<Option<_>>()?,
            });
        }
        Some(Checked {
            role,
            name,
            keys,
            webhook,
            widget,
            operators_switch_mode,
        })
    }
}

/// Who a session's person is: for the session answer and the menu's
/// switcher. As text: the person (`Ada <ada@example.com>`) on the first
/// line, then `{org}\t{role}\t{name}` per organization, the session's first
/// (names hold no control characters: `orgs::accounts` refuses them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    pub user: String,
    pub org: OrgSummary,
    pub orgs: Vec<OrgSummary>,
}

impl Me {
    pub fn encode(&self) -> String {
        let mut text = self.user.clone();
        for org in std::iter::once(&self.org).chain(&self.orgs) {
            text.push_str(&format!("\n{}\t{}\t{}", org.id, org.role, org.name));
        }
        text
    }

    pub fn decode(text: &str) -> Option<Me> {
        let mut lines = text.split('\n');
        let user = lines.next()?.to_string();
        let mut orgs = Vec::new();
        for line in lines {
            let mut fields = line.splitn(3, '\t');
            orgs.push(OrgSummary {
                id: OrgId::parse(fields.next()?)?,
                role: Role::from_name(fields.next()?)?,
                name: fields.next()?.to_string(),
            });
        }
        let mut orgs = orgs.into_iter();
        let org = orgs.next()?;
        Some(Me {
            user,
            org,
            orgs: orgs.collect(),
        })
    }
}

/// An audit entry only the main Worker sees happen: money committed by a
/// batch's approval, a label bought above the organization's threshold, or
/// the tracking page's settings (kept by the ledger Worker). As text: `{action}\n{detail}`; the accounts Worker takes no other action
/// from it (every other entry it writes itself, with the change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub action: AuditAction,
    pub detail: String,
}

impl Record {
    /// A live `job` was approved: a review-first job's exact total, or the
    /// ceiling a buy-as-quoted job was created with (its only approval).
    /// Sandbox jobs spend nothing.
    pub fn batch_approved(job: &Job) -> Option<Record> {
        if job.mode == KeyEnv::Sandbox {
            return None;
        }
        let what = match job.approval {
            Approval::ReviewFirst => format!(
                "approved {} for {} labels",
                dollars(job.cost.quoted_cents),
                job.counts.quoted
            ),
            Approval::BuyAsQuoted {
                max_row_cents,
                max_total_cents,
            } => format!(
                "buy as quoted, up to {} in total and {} a label, {} rows",
                dollars(max_total_cents),
                dollars(max_row_cents),
                job.counts.total
            ),
        };
        Some(Record {
            action: AuditAction::BatchApproved,
            detail: format!("{} ({}, {}): {what}", job.name, job.id, job.mode),
        })
    }

    /// A live label that cost at least `threshold_cents` (sandbox labels cost nothing).
    pub fn large_purchase(label: &Label, threshold_cents: i64) -> Option<Record> {
        (!label.sandbox && label.rate_cents >= threshold_cents).then(|| Record {
            action: AuditAction::LargePurchase,
            detail: format!(
                "{} {} {} ({}, tracking {})",
                dollars(label.rate_cents),
                label.carrier,
                label.service,
                label.id,
                label.tracking_number
            ),
        })
    }

    pub fn encode(&self) -> String {
        format!("{}\n{}", self.action.as_str(), self.detail)
    }

    pub fn decode(text: &str) -> Option<Record> {
        let (action, detail) = text.split_once('\n')?;
        let action = AuditAction::from_name(action).filter(|a| {
            matches!(
                a,
                AuditAction::BatchApproved
                    | AuditAction::LargePurchase
                    | AuditAction::TrackingChanged
            )
        })?;
        let detail = detail.trim();
        (!detail.is_empty() && detail.len() <= 1_000).then(|| Record {
            action,
            detail: detail.into(),
        })
    }
}

/// `$1,234.50`, as the app shows money.
fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let whole = (cents.unsigned_abs() / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{sign}${grouped}.{:02}", cents.unsigned_abs() % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_header_round_trips_and_refuses_anything_else() {
        let caller = Caller {
            org: OrgId::parse("org_0123456789abcdef").unwrap(),
            account: AccountId::parse("acct_00ff").unwrap(),
            via: Via::Token,
        };
        assert_eq!(Caller::from_header(&caller.header()), Some(caller));
        for bad in [
            "",
            "org_a",
            "org_a acct_",
            "acct_1 org_a",
            "org_a acct_1",
            "org_a acct_1 x",
            "org_a acct_1 token x",
        ] {
            assert_eq!(Caller::from_header(bad), None, "{bad}");
        }
    }

    #[test]
    fn answers_round_trip_as_text() {
        let org = |id: &str, name: &str, role| OrgSummary {
            id: OrgId::parse(id).unwrap(),
            name: name.into(),
            role,
        };
        let me = Me {
            user: "Ada Lovelace <ada@example.com>".into(),
            org: org("org_b", "Beta & Sons, Ltd.", Role::Operator),
            orgs: vec![org("org_a", "Alpha\u{e9} Goods", Role::Admin)],
        };
        assert_eq!(Me::decode(&me.encode()), Some(me.clone()));
        let alone = Me { orgs: vec![], ..me };
        assert_eq!(Me::decode(&alone.encode()), Some(alone));
        assert_eq!(Me::decode("Ada"), None);
        assert_eq!(Me::decode("Ada\norg_a\troot\tAlpha"), None);
        let started = Started {
            org: OrgId::parse("org_a").unwrap(),
            account: AccountId::parse("acct_1").unwrap(),
            role: Role::Viewer,
            via: Via::Person,
        };
        assert_eq!(Started::decode(&started.encode()), Some(started));
        assert_eq!(Started::decode("org_a acct_1 viewer"), None);
        assert_eq!(Started::decode("org_a acct_1 viewer person extra"), None);
        let checked = Checked {
            role: Some(Role::Operator),
            name: Some("Olga Operator".into()),
            keys: vec![
                KeyLine {
                    mode: KeyEnv::Live,
                    slot: KeySlot::Current,
                    key: "svc_live_0123456789abcdef0123456789abcdef".into(),
                    scopes: vec![Scope::RatesRead, Scope::WalletRead],
                },
                KeyLine {
                    mode: KeyEnv::Sandbox,
                    slot: KeySlot::Next,
                    key: "svc_test_0123456789abcdef0123456789abcdef".into(),
                    scopes: vec![],
                },
            ],
            webhook: vec![(KeySlot::Current, "whsec_0123456789abcdef".into())],
            widget: None,
            operators_switch_mode: true,
        };
        assert_eq!(Checked::decode(&checked.encode()), Some(checked.clone()));
        let widget = Checked {
            widget: Some(WidgetLines {
                share: 0.5,
                origins: vec!["https://a.example".into(), "http://127.0.0.1:4000".into()],
                ship_from: Some(r#"{"name":"A\tB","zip":"94105"}"#.into()),
                fallback: Some(r#"{"name":"Standard","price_cents":795,"wait_seconds":8}"#.into()),
            }),
            ..checked.clone()
        };
        assert_eq!(Checked::decode(&widget.encode()), Some(widget));
        let closed = Checked {
            widget: Some(WidgetLines::default()),
            ..Checked::default()
        };
        assert_eq!(Checked::decode(&closed.encode()), Some(closed));
        assert_eq!(Checked::decode("\nwidget_origin\thttps://a.example"), None);
        let outsider = Checked::default();
        assert_eq!(outsider.encode(), "");
        assert_eq!(Checked::decode(""), Some(outsider));
        let keys_only = Checked {
            role: None,
            name: None,
            ..checked
        };
        assert_eq!(Checked::decode(&keys_only.encode()), Some(keys_only));
        assert_eq!(Checked::decode("admin\nlive\tcurrent\tk1.a.b"), None);
        assert_eq!(
            Checked::decode("admin\nlive\tcurrent\tk1.a.b\tnot:a-scope"),
            None
        );
    }
    #[test]
    fn money_decisions_are_recorded_in_words_and_nothing_else_passes() {
        assert_eq!(dollars(12_345_678), "$123,456.78");
        assert_eq!(dollars(5), "$0.05");
        assert_eq!(dollars(100_000), "$1,000.00");
        let label = Label {
            id: "lbl_1".into(),
            tracking_number: "1Z9".into(),
            label_url: "https://x/l.pdf".into(),
            carrier: "Pacific Post".into(),
            service: "Overnight".into(),
            rate_cents: 25_000,
            sandbox: false,
            wallet_balance_after_cents: 0,
            created_at: None,
        };
        let large = Record::large_purchase(&label, 25_000).expect("at the threshold");
        assert_eq!(
            large.detail,
            "$250.00 Pacific Post Overnight (lbl_1, tracking 1Z9)"
        );
        assert_eq!(Record::decode(&large.encode()), Some(large));
        assert_eq!(Record::large_purchase(&label, 25_001), None);
        let sandbox = Label {
            sandbox: true,
            ..label
        };
        assert_eq!(Record::large_purchase(&sandbox, 0), None);

        let mut job =
            crate::jobs::engine::tests::job(3, Approval::ReviewFirst, KeyEnv::Live).view(0);
        job.name = "orders.csv".into();
        job.cost.quoted_cents = 1_234;
        job.counts.quoted = 3;
        let approved = Record::batch_approved(&job).expect("a live job");
        assert_eq!(approved.action, AuditAction::BatchApproved);
        assert!(
            approved.detail.starts_with("orders.csv (job_"),
            "{}",
            approved.detail
        );
        assert!(
            approved
                .detail
                .ends_with(", live): approved $12.34 for 3 labels"),
            "{}",
            approved.detail
        );
        job.approval = Approval::BuyAsQuoted {
            max_row_cents: 900,
            max_total_cents: 5_000,
        };
        let ceiling = Record::batch_approved(&job).expect("a live job").detail;
        assert!(
            ceiling.ends_with("up to $50.00 in total and $9.00 a label, 3 rows"),
            "{ceiling}"
        );
        job.mode = KeyEnv::Sandbox;
        assert_eq!(Record::batch_approved(&job), None);

        // The main Worker records money decisions only, one line of words.
        for bad in [
            "role_changed\nx",
            "key_set\nx",
            "batch_approved\n  ",
            "batch_approved",
            "nope\nx",
        ] {
            assert_eq!(Record::decode(bad), None, "{bad}");
        }
    }
}
