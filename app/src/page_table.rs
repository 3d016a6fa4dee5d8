//! The one table of the dashboard's pages, `PAGES`: each route with its
//! menu entry and its guard. It makes the routes (`pages::routes`), the
//! main menu and its groups (`components::shell`), the guard that keeps a role from a page
//! it has no scope for, and the pages anyone may open without signing in
//! (the links people join by). It holds no views, so the menu does not
//! pull the on-demand pages into the first load.

use crate::api::Client;
use api::Scope;
use api::session::{Role, SessionInfo};
use leptos::prelude::*;

pub struct Page {
    /// The route: `/labels`, or one parameter as in `/labels/:id`.
    pub path: &'static str,
    /// The menu entry, and the heading of the guard.
    pub title: &'static str,
    /// The menu's group the entry is in; `None`: reached by a link only.
    pub menu: Option<Group>,
    pub guard: Guard,
}

/// The menu's groups, in the menu's order: the daily work, the money, and
/// every setting (organization, people, credentials, developer pages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Shipping,
    Money,
    Settings,
}

impl Group {
    pub const ALL: [Group; 3] = [Group::Shipping, Group::Money, Group::Settings];

    pub fn heading(self) -> &'static str {
        match self {
            Group::Shipping => "Shipping",
            Group::Money => "Money",
            Group::Settings => "Settings",
        }
    }

    /// The id of its heading in the menu.
    pub fn id(self) -> &'static str {
        match self {
            Group::Shipping => "menu-shipping",
            Group::Money => "menu-money",
            Group::Settings => "menu-settings",
        }
    }
}

/// Who may use a page; the text says what the guard tells a role that may not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Every signed-in user.
    SignedIn,
    /// Sessions that may use the scope.
    Scope(Scope, &'static str),
    /// The organization's admins.
    Admin(&'static str),
    /// Every member of an organization made in the app; the text says
    /// where the deployment's own keeps the thing instead (its settings).
    InApp(&'static str),
    /// Anyone, signed in or not, without the menu: the pages a link opens.
    Anyone,
}

/// The organization's API keys (admins): where the "no API key yet"
/// banner and the API status page send them; the organization's webhook
/// URL and secret (admins): where the Webhooks page and the API keys page
/// send them. The Workers' messages name them too.
pub use api::orgs::{KEYS_PAGE, WEBHOOK_SETTINGS_PAGE};
/// The organization's storefront widget (admins): where the API keys page
/// sends them. (Not under `/widget/`: that is the widget page itself.)
pub const WIDGET_SETTINGS_PAGE: &str = "/storefront-widget";
/// The shoppers' tracking page's name and look (admins): where the
/// Shipments page sends them.
pub const TRACKING_BRAND_PAGE: &str = "/tracking-page";

const SHIP: Guard = Guard::Scope(Scope::RatesRead, "request rates");
const LABELS: Guard = Guard::Scope(Scope::LabelsRead, "see labels");
const BATCHES: Guard = Guard::Scope(Scope::BatchesRead, "see batch jobs");

pub static PAGES: [Page; 26] = [
    Page {
        path: "/",
        title: "Home",
        menu: Some(Group::Shipping),
        guard: Guard::SignedIn,
    },
    Page {
        path: "/ship",
        title: "Ship",
        menu: Some(Group::Shipping),
        guard: SHIP,
    },
    Page {
        path: "/labels",
        title: "Labels",
        menu: Some(Group::Shipping),
        guard: LABELS,
    },
    Page {
        path: "/labels/:id",
        title: "Label",
        menu: None,
        guard: LABELS,
    },
    Page {
        path: "/batches",
        title: "Batches",
        menu: Some(Group::Shipping),
        guard: BATCHES,
    },
    // Before `/batches/:id`: the router takes the first match.
    Page {
        path: "/batches/new",
        title: "New batch",
        menu: None,
        guard: BATCHES,
    },
    Page {
        path: "/batches/:id",
        title: "Batch",
        menu: None,
        guard: BATCHES,
    },
    Page {
        path: "/shipments",
        title: "Shipments",
        menu: Some(Group::Shipping),
        guard: LABELS,
    },
    Page {
        path: TRACKING_BRAND_PAGE,
        title: "Tracking page",
        menu: None,
        guard: Guard::Admin("change the tracking page"),
    },
    Page {
        path: "/tracking",
        title: "Tracking",
        menu: Some(Group::Shipping),
        guard: Guard::Scope(Scope::TrackingRead, "track parcels"),
    },
    Page {
        path: "/insights",
        title: "Insights",
        menu: Some(Group::Shipping),
        guard: LABELS,
    },
    Page {
        path: "/wallet",
        title: "Wallet",
        menu: Some(Group::Money),
        guard: Guard::Scope(Scope::WalletRead, "see the wallet"),
    },
    Page {
        path: "/team",
        title: "Team",
        menu: Some(Group::Settings),
        guard: Guard::Admin("manage the team"),
    },
    Page {
        path: "/presets",
        title: "Addresses & packages",
        menu: Some(Group::Settings),
        guard: Guard::InApp(
            "is set up in the deployment's settings (the widget's ship-from address in WIDGET_SHIP_FROM): saved addresses and package presets are kept in the app by",
        ),
    },
    Page {
        path: WIDGET_SETTINGS_PAGE,
        title: "Storefront widget",
        menu: Some(Group::Settings),
        guard: Guard::Admin("manage the storefront widget"),
    },
    Page {
        path: "/carriers",
        title: "Carrier accounts",
        menu: Some(Group::Settings),
        guard: Guard::Scope(Scope::CarrierAccountsRead, "see carrier accounts"),
    },
    Page {
        path: KEYS_PAGE,
        title: "API keys",
        menu: Some(Group::Settings),
        guard: Guard::Admin("manage the API keys"),
    },
    Page {
        path: "/webhooks",
        title: "Webhooks",
        menu: Some(Group::Settings),
        // The Worker's inbox and ledger answer to labels:read.
        guard: Guard::Scope(Scope::LabelsRead, "see webhook events"),
    },
    Page {
        path: WEBHOOK_SETTINGS_PAGE,
        title: "Webhook settings",
        menu: None,
        guard: Guard::Admin("manage the webhook settings"),
    },
    Page {
        path: "/tokens",
        title: "Access tokens",
        menu: Some(Group::Settings),
        guard: Guard::InApp(
            "signs in with the tokens in its USERS secret (scripts/new-user): personal access tokens are made by",
        ),
    },
    Page {
        path: "/passkeys",
        title: "Passkeys",
        menu: Some(Group::Settings),
        guard: Guard::InApp(
            "signs in with the tokens in its USERS secret (scripts/new-user): passkeys belong to",
        ),
    },
    Page {
        path: "/audit",
        title: "Audit log",
        menu: Some(Group::Settings),
        guard: Guard::Admin("read the audit log"),
    },
    Page {
        path: "/status",
        title: "API status",
        menu: Some(Group::Settings),
        guard: Guard::SignedIn,
    },
    Page {
        path: api::orgs::INVITE_PAGE,
        title: "Accept an invitation",
        menu: None,
        guard: Guard::Anyone,
    },
    Page {
        path: api::orgs::RESET_PAGE,
        title: "Set a new password",
        menu: None,
        guard: Guard::Anyone,
    },
    Page {
        path: api::orgs::NEW_ORG_PAGE,
        title: "Create your organization",
        menu: None,
        guard: Guard::Anyone,
    },
];

/// The table's entry for `path`.
pub fn page(path: &str) -> Option<&'static Page> {
    PAGES.iter().find(|p| p.path == path)
}

/// The page anyone may open at the URL path `path`, shown outside the
/// signed-in frame whether or not someone is signed in.
pub fn open_to_anyone(path: &str) -> Option<&'static str> {
    page(path.trim_end_matches('/'))
        .filter(|p| p.guard == Guard::Anyone)
        .map(|p| p.path)
}

impl Guard {
    /// Why `session` may not use a page so guarded (`None`: it may).
    pub fn refusal(self, session: &SessionInfo) -> Option<String> {
        match self {
            Guard::SignedIn | Guard::Anyone => None,
            Guard::Scope(scope, _) if session.scopes.contains(&scope) => None,
            // A new organization's role is not the reason: it has no key yet.
            Guard::Scope(_, cannot) if session.modes.is_empty() => Some(format!(
                "This organization has no API key yet, so nobody can {cannot}. {}",
                no_key_yet(session)
            )),
            Guard::Scope(_, cannot) => Some(format!(
                "Your role cannot {cannot}. An admin of the organization can change your role."
            )),
            Guard::Admin(_) if session.org.id.is_deployment() => Some(
                "This deployment's own organization is set up in the deployment's settings (its people in USERS, its keys in the SVC_* secrets, its webhook secret in WEBHOOK_SECRET, its storefront widget in the WIDGET_* settings), not here: an organization made with scripts/new-org manages them in the app.".into(),
            ),
            Guard::Admin(_) if session.role == Role::Admin => None,
            Guard::InApp(elsewhere) if session.org.id.is_deployment() => Some(format!(
                "This deployment's own organization {elsewhere} the members of an organization made with scripts/new-org."
            )),
            Guard::InApp(_) => None,
            Guard::Admin(cannot) => Some(format!("Only admins can {cannot}.")),
        }
    }
}

/// What to do about an organization without a key, by who is asking.
pub fn no_key_yet(session: &SessionInfo) -> &'static str {
    match (session.role, session.org.id.is_deployment()) {
        (Role::Admin, false) => "Enter its keys on the API keys page.",
        (Role::Admin, true) => {
            "Its keys are set in the deployment's settings (the SVC_LIVE_KEY and SVC_SANDBOX_KEY secrets)."
        }
        _ => "Ask an admin of the organization to enter its keys.",
    }
}

impl Page {
    /// Whether the signed-in session may use the page (tracked).
    pub fn allowed(&self, client: Client) -> bool {
        client
            .session
            .with(|s| s.as_ref().is_some_and(|s| self.guard.refusal(s).is_none()))
    }

    /// The page (`view`), or why the session cannot use it instead of a
    /// page whose every call would be refused.
    pub fn show(&'static self, view: impl FnOnce() -> AnyView) -> AnyView {
        let refusal = Client::get()
            .session
            .with(|s| s.as_ref().and_then(|s| self.guard.refusal(s)));
        match refusal {
            None => view(),
            Some(why) => view! {
                <h1>{self.title}</h1>
                <p class="notice" data-testid="guard">{why}</p>
            }
            .into_any(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_once_and_the_menu_in_order() {
        let mut paths: Vec<_> = PAGES.iter().map(|p| p.path).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), PAGES.len());
        let menu: Vec<_> = Group::ALL
            .iter()
            .map(|group| {
                let titles: Vec<_> = PAGES
                    .iter()
                    .filter(|p| p.menu == Some(*group))
                    .map(|p| p.title)
                    .collect();
                (group.heading(), titles)
            })
            .collect();
        assert_eq!(
            menu,
            [
                (
                    "Shipping",
                    vec![
                        "Home",
                        "Ship",
                        "Labels",
                        "Batches",
                        "Shipments",
                        "Tracking",
                        "Insights"
                    ]
                ),
                ("Money", vec!["Wallet"]),
                (
                    "Settings",
                    vec![
                        "Team",
                        "Addresses & packages",
                        "Storefront widget",
                        "Carrier accounts",
                        "API keys",
                        "Webhooks",
                        "Access tokens",
                        "Passkeys",
                        "Audit log",
                        "API status"
                    ]
                )
            ]
        );
        // The links people join by are open, and only they are.
        let open: Vec<_> = PAGES
            .iter()
            .filter_map(|p| open_to_anyone(p.path))
            .collect();
        assert_eq!(open, ["/invite", "/reset", "/new-org"]);
        assert_eq!(open_to_anyone("/invite/"), Some("/invite"));
        assert_eq!(open_to_anyone("/team"), None);
    }

    #[test]
    fn guards_say_why_a_session_may_not() {
        use api::KeyEnv;
        use api::orgs::{OrgId, OrgSummary};
        let session = |role: Role, org: OrgId, keys: bool| {
            let summary = OrgSummary {
                id: org,
                name: "Acme".into(),
                role,
            };
            SessionInfo {
                user: "Ada".into(),
                orgs: vec![summary.clone()],
                org: summary,
                role,
                scopes: if keys { vec![Scope::RatesRead] } else { vec![] },
                mode: KeyEnv::Sandbox,
                modes: if keys { vec![KeyEnv::Sandbox] } else { vec![] },
                can_switch_mode: false,
                can_rotate_keys: false,
                key_problem: None,
                expires_at: 0,
                service: api::session::Service {
                    name: api::session::Service::DEFAULT_NAME.into(),
                    dashboard_url: None,
                },
            }
        };
        let acme = || OrgId::parse("org_acme").unwrap();
        let team = page("/team").unwrap().guard;
        assert_eq!(team.refusal(&session(Role::Admin, acme(), false)), None);
        assert_eq!(
            team.refusal(&session(Role::Operator, acme(), true))
                .as_deref(),
            Some("Only admins can manage the team.")
        );
        // The deployment's own organization has its people in its settings.
        assert!(
            team.refusal(&session(Role::Admin, OrgId::deployment(), true))
                .unwrap()
                .contains("USERS")
        );
        // The keys page too: the deployment's keys are its SVC_* secrets.
        let keys = page(KEYS_PAGE).unwrap().guard;
        assert_eq!(keys.refusal(&session(Role::Admin, acme(), false)), None);
        assert!(
            keys.refusal(&session(Role::Admin, OrgId::deployment(), true))
                .unwrap()
                .contains("SVC_*")
        );
        // And its webhook secret is WEBHOOK_SECRET.
        let hook = page(WEBHOOK_SETTINGS_PAGE).unwrap().guard;
        assert_eq!(hook.refusal(&session(Role::Admin, acme(), false)), None);
        assert!(
            hook.refusal(&session(Role::Admin, OrgId::deployment(), true))
                .unwrap()
                .contains("WEBHOOK_SECRET")
        );
        // Every member makes their own tokens; the deployment's are USERS.
        let tokens = page("/tokens").unwrap().guard;
        assert_eq!(tokens.refusal(&session(Role::Viewer, acme(), false)), None);
        assert!(
            tokens
                .refusal(&session(Role::Admin, OrgId::deployment(), true))
                .unwrap()
                .contains("USERS")
        );
        // Saved addresses and presets: every role of an organization made in the app.
        let presets = page("/presets").unwrap().guard;
        assert_eq!(presets.refusal(&session(Role::Viewer, acme(), true)), None);
        assert!(
            presets
                .refusal(&session(Role::Admin, OrgId::deployment(), true))
                .unwrap()
                .contains("WIDGET_SHIP_FROM")
        );
        let ship = page("/ship").unwrap().guard;
        assert_eq!(ship.refusal(&session(Role::Viewer, acme(), true)), None);
        // Without a key: admins are sent to the keys page, others to an admin.
        assert_eq!(
            ship.refusal(&session(Role::Admin, acme(), false))
                .as_deref(),
            Some(
                "This organization has no API key yet, so nobody can request rates. Enter its keys on the API keys page."
            )
        );
        assert!(
            ship.refusal(&session(Role::Operator, acme(), false))
                .unwrap()
                .ends_with("Ask an admin of the organization to enter its keys.")
        );
        assert_eq!(
            page("/wallet")
                .unwrap()
                .guard
                .refusal(&session(Role::Viewer, acme(), true))
                .as_deref(),
            Some(
                "Your role cannot see the wallet. An admin of the organization can change your role."
            )
        );
        assert_eq!(
            page("/status")
                .unwrap()
                .guard
                .refusal(&session(Role::Viewer, acme(), false)),
            None
        );
    }
}
