//! One page per route; each page owns its data. `PAGES` is the one table
//! of them: it makes the routes, the main menu (`components::shell`) and
//! the guard that keeps a role from a page it has no scope for. Pages most
//! visits never open are chunks of the build, fetched when first shown
//! (`chunks`).

pub mod carriers;
pub mod chunks;
pub mod label;
pub mod labels;
pub mod login;
pub mod not_found;
pub mod ship;
pub mod status;
pub mod tracking;
pub mod wallet;
pub mod webhooks;

use crate::api::Client;
use api::Scope;
use leptos::children::ToChildren;
use leptos::prelude::*;
use leptos::tachys::view::iterators::StaticVec;
use leptos_router::components::{RouteChildren, Routes, RoutesProps};
use leptos_router::{
    NestedRoute, ParamSegment, PartialPathMatch, PathSegment, PossibleRouteMatch, StaticSegment,
};

pub struct Page {
    /// The route: `/labels`, or one parameter as in `/labels/:id`.
    pub path: &'static str,
    /// The menu entry, and the heading of the guard.
    pub title: &'static str,
    pub in_menu: bool,
    /// What a session needs to use the page (`None`: every signed-in user),
    /// and what the guard says a role without it cannot do.
    pub scope: Option<(Scope, &'static str)>,
}

const SHIP: Option<(Scope, &str)> = Some((Scope::RatesRead, "request rates"));
const LABELS: Option<(Scope, &str)> = Some((Scope::LabelsRead, "see labels"));
const BATCHES: Option<(Scope, &str)> = Some((Scope::BatchesRead, "see batch jobs"));

pub static PAGES: [Page; 12] = [
    Page {
        path: "/",
        title: "Ship",
        in_menu: false,
        scope: SHIP,
    },
    Page {
        path: "/ship",
        title: "Ship",
        in_menu: true,
        scope: SHIP,
    },
    Page {
        path: "/labels",
        title: "Labels",
        in_menu: true,
        scope: LABELS,
    },
    Page {
        path: "/labels/:id",
        title: "Label",
        in_menu: false,
        scope: LABELS,
    },
    Page {
        path: "/batches",
        title: "Batches",
        in_menu: true,
        scope: BATCHES,
    },
    // Before `/batches/:id`: the router takes the first match.
    Page {
        path: "/batches/new",
        title: "New batch",
        in_menu: false,
        scope: BATCHES,
    },
    Page {
        path: "/batches/:id",
        title: "Batch",
        in_menu: false,
        scope: BATCHES,
    },
    Page {
        path: "/tracking",
        title: "Tracking",
        in_menu: true,
        scope: Some((Scope::TrackingRead, "track parcels")),
    },
    Page {
        path: "/carriers",
        title: "Carrier accounts",
        in_menu: true,
        scope: Some((Scope::CarrierAccountsRead, "see carrier accounts")),
    },
    Page {
        path: "/wallet",
        title: "Wallet",
        in_menu: true,
        scope: Some((Scope::WalletRead, "see the wallet")),
    },
    Page {
        path: "/webhooks",
        title: "Webhooks",
        in_menu: true,
        // The Worker's inbox and ledger answer to labels:read.
        scope: Some((Scope::LabelsRead, "see webhook events")),
    },
    Page {
        path: "/status",
        title: "API status",
        in_menu: true,
        scope: None,
    },
];

/// A page by its table path. Kept apart from the table so that the menu
/// (`components::shell`) does not reach every page's code. The pages that
/// are chunks (`on_demand`) are fetched when first shown, behind the
/// guard, so a role without their scope never fetches them.
fn page_view(path: &str, on_demand: chunks::OnDemand) -> AnyView {
    match path {
        "/" | "/ship" => view! { <ship::ShipPage /> }.into_any(),
        _ => match on_demand(path) {
            Some(load) => chunks::show(load),
            None => view! { <not_found::NotFound /> }.into_any(),
        },
    }
}

/// The table's entry for `path`.
pub fn page(path: &str) -> Option<&'static Page> {
    PAGES.iter().find(|p| p.path == path)
}

impl Page {
    /// Whether the signed-in session may use the page.
    pub fn allowed(&self, client: Client) -> bool {
        self.scope.is_none_or(|(scope, _)| client.can(scope))
    }

    /// The page (`view`), or what the role cannot do instead of a page
    /// whose every call would be refused.
    pub fn show(&'static self, view: impl FnOnce() -> AnyView) -> AnyView {
        match self.scope {
            Some((scope, cannot)) if !self.allowed(Client::get()) => view! {
                <h1>{self.title}</h1>
                <p class="notice" data-testid="guard">
                    {format!("Your role cannot {cannot} ({}). An admin can grant it.", scope.as_str())}
                </p>
            }
            .into_any(),
            _ => view(),
        }
    }
}

/// The router's routes, made from `PAGES`.
pub fn routes(on_demand: chunks::OnDemand) -> impl IntoView {
    let defs: StaticVec<_> = PAGES
        .iter()
        .map(|page| {
            NestedRoute::new(PagePath(page.path), move || {
                page.show(|| page_view(page.path, on_demand))
            })
        })
        .collect::<Vec<_>>()
        .into();
    Routes(
        RoutesProps::builder()
            .fallback(not_found::NotFound)
            .children(RouteChildren::to_children(move || defs))
            .build(),
    )
}

/// A table path as the router's segments: `/labels/:id` is the static
/// `labels` then the parameter `id`; `/batches/new` two static segments.
#[derive(Clone, Copy, Debug)]
struct PagePath(&'static str);

impl PagePath {
    /// The first segment and the second, as written (`:id` or `new`).
    fn parts(self) -> (&'static str, Option<&'static str>) {
        let path = self.0.trim_start_matches('/');
        match path.split_once('/') {
            Some((base, second)) => (base, Some(second)),
            None => (path, None),
        }
    }
}

impl PossibleRouteMatch for PagePath {
    fn optional(&self) -> bool {
        false
    }

    fn test<'a>(&self, path: &'a str) -> Option<PartialPathMatch<'a>> {
        match self.parts() {
            ("", None) => ().test(path),
            (base, None) => StaticSegment(base).test(path),
            (base, Some(second)) => match second.strip_prefix(':') {
                Some(param) => (StaticSegment(base), ParamSegment(param)).test(path),
                None => (StaticSegment(base), StaticSegment(second)).test(path),
            },
        }
    }

    fn generate_path(&self, path: &mut Vec<PathSegment>) {
        match self.parts() {
            ("", None) => {}
            (base, None) => StaticSegment(base).generate_path(path),
            (base, Some(second)) => match second.strip_prefix(':') {
                Some(param) => (StaticSegment(base), ParamSegment(param)).generate_path(path),
                None => (StaticSegment(base), StaticSegment(second)).generate_path(path),
            },
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
        let menu: Vec<_> = PAGES
            .iter()
            .filter(|p| p.in_menu)
            .map(|p| p.title)
            .collect();
        assert_eq!(
            menu,
            [
                "Ship",
                "Labels",
                "Batches",
                "Tracking",
                "Carrier accounts",
                "Wallet",
                "Webhooks",
                "API status"
            ]
        );
    }

    #[test]
    fn table_paths_match_like_the_router_macro() {
        let matched = |pattern: &'static str, url: &str| {
            PagePath(pattern).test(url).map(|m| {
                (
                    m.matched().to_string(),
                    m.remaining().to_string(),
                    m.params(),
                )
            })
        };
        let (m, rest, params) = matched("/labels/:id", "/labels/lbl_1").unwrap();
        assert_eq!((m.as_str(), rest.as_str()), ("/labels/lbl_1", ""));
        assert_eq!(params, [("id".into(), "lbl_1".to_string())]);
        assert_eq!(matched("/labels", "/labels").unwrap().1, "");
        assert!(matched("/wallet", "/labels").is_none());
        let (m, rest, params) = matched("/batches/new", "/batches/new").unwrap();
        assert_eq!((m.as_str(), rest.as_str()), ("/batches/new", ""));
        assert!(params.is_empty());
        assert!(matched("/batches/new", "/batches/job_1").is_none());
        assert!(matched("/batches/new", "/batches").is_none());
        // The table's order: `/batches/new` is matched before `/batches/:id`.
        let first = |url: &str| {
            PAGES.iter().find(|p| {
                PagePath(p.path)
                    .test(url)
                    .is_some_and(|m| m.remaining().is_empty())
            })
        };
        assert_eq!(first("/batches/new").map(|p| p.path), Some("/batches/new"));
        assert_eq!(
            first("/batches/job_1").map(|p| p.path),
            Some("/batches/:id")
        );
        assert_eq!(first("/batches").map(|p| p.path), Some("/batches"));
        assert_eq!(matched("/", "/").unwrap().1, "/");
    }
}
