//! One page per route; each page owns its data. The routes are made from
//! the page table (`crate::page_table::PAGES`). The signed-in pages are
//! chunks of the build, fetched when first shown (`chunks`).

pub mod audit;
pub mod carriers;
pub mod chunks;
pub mod home;
pub mod insights;
pub mod invite;
pub mod keys;
pub mod label;
pub mod labels;
pub mod login;
pub mod new_org;
pub mod not_found;
pub mod passkeys;
pub mod presets;
pub mod reset;
pub mod ship;
pub mod shipments;
pub mod status;
pub mod team;
pub mod tokens;
pub mod tracking;
pub mod tracking_brand;
pub mod tracking_events;
pub mod wallet;
pub mod webhook_settings;
pub mod webhooks;
pub mod widget_settings;

use crate::page_table::{Guard, PAGES};
use leptos::children::ToChildren;
use leptos::prelude::*;
use leptos::tachys::view::iterators::StaticVec;
use leptos_router::components::{RouteChildren, Routes, RoutesProps};
use leptos_router::{
    NestedRoute, ParamSegment, PartialPathMatch, PathSegment, PossibleRouteMatch, StaticSegment,
};

/// A page by its table path. Kept apart from the table so that the menu
/// (`components::shell`) does not reach every page's code. Every page is a
/// chunk (`on_demand`), fetched when first shown, behind the guard, so a
/// role without its scope never fetches it.
pub(crate) fn page_view(path: &str, on_demand: chunks::OnDemand) -> AnyView {
    match on_demand(path) {
        Some(load) => chunks::show(load),
        None => view! { <not_found::NotFound /> }.into_any(),
    }
}

/// The router's routes, made from `PAGES` (the signed-in frame's: the open
/// pages are shown outside it).
pub fn routes(on_demand: chunks::OnDemand) -> impl IntoView {
    let defs: StaticVec<_> = PAGES
        .iter()
        .filter(|page| page.guard != Guard::Anyone)
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
