//! Following every label bought through the product: when its v1 tracker
//! is registered and read (`schedule`), and how much of the key's
//! per-minute limits those calls may take (`share`), so that people, the
//! widget and batch jobs keep the rest. The calls themselves are the ledger
//! Worker's (`ledger/`, the `WebhookInbox` object's alarms); design:
//! docs/tracking.md.

pub mod events;
pub mod page;
pub mod schedule;
pub mod share;

use api::orgs::OrgId;

/// Where the ledger's object answers the tracking page: `{PAGE_URL}{token}`
/// (a shipment's link) or `{PAGE_URL}lookup?ref=&postcode=` (an order).
pub const PAGE_URL: &str = "https://object/page/";

/// Where the ledger's object answers `GET` and `PUT /api/org/tracking`
/// (the page's `api::shipments::Brand`, parsed and checked there), with the
/// main Worker's request id in `webhooks::REQUEST_ID_HEADER`.
pub const SETTINGS_URL: &str = "https://object/tracking-settings";

/// Random bytes of a shipment's link token (88 bits: with the organization
/// it fits one path segment).
pub const TOKEN_BYTES: usize = 11;

/// A shipment's page: `/t/{org without its prefix}-{token}`.
pub fn link(org: &str, token: &str) -> String {
    format!("/t/{}-{token}", org.strip_prefix("org_").unwrap_or(org))
}

/// The organization and token a link's segment names.
pub fn parse_link(segment: &str) -> Option<(OrgId, &str)> {
    let (org, token) = segment.rsplit_once('-')?;
    let token_ok = token.len() == 2 * TOKEN_BYTES && token.bytes().all(|b| b.is_ascii_hexdigit());
    token_ok.then(|| OrgId::parse(&format!("org_{org}")).map(|o| (o, token)))?
}

/// An order's lookup page: `/track/{org}`.
pub fn lookup_path(org: &str) -> String {
    format!("/track/{org}")
}

/// A page view reads a tracker again when its last read is older than this
/// (within the trackers' share: the view only moves the read forward).
pub const READ_ON_VIEW_AFTER: u64 = 10;

/// The ledger Worker's setting for `READ_ON_VIEW_AFTER`, in seconds: how
/// fresh a viewed page is against how many reads views may ask for.
pub const READ_ON_VIEW_AFTER_SETTING: &str = "TRACKING_READ_ON_VIEW_AFTER";

pub fn read_on_view_after(value: Option<String>) -> Result<u64, crate::errors::SettingError> {
    crate::settings::bounded(
        value,
        READ_ON_VIEW_AFTER_SETTING,
        READ_ON_VIEW_AFTER,
        1..=3600,
        "a whole number of seconds from 1 to 3600",
    )
}

#[cfg(test)]
mod in_motion;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_names_its_organization_and_token_in_one_segment() {
        let org = "org_0123456789abcdef0123456789abcdef01234567";
        let token = "00112233445566778899aa";
        let link = link(org, token);
        let segment = link.strip_prefix("/t/").unwrap();
        assert!(api::endpoints::is_valid_id(segment), "{segment}");
        let (parsed, t) = parse_link(segment).unwrap();
        assert_eq!((parsed.as_str(), t), (org, token));
        assert!(parse_link("abc-0011").is_none());
        assert!(parse_link("ABC-00112233445566778899aa").is_none());
    }

    #[test]
    fn a_view_reads_after_the_setting_or_ten_seconds() {
        assert_eq!(read_on_view_after(None), Ok(READ_ON_VIEW_AFTER));
        assert_eq!(read_on_view_after(Some("1".into())), Ok(1));
        for bad in ["0", "3601", "soon"] {
            let e = read_on_view_after(Some(bad.into())).unwrap_err();
            assert_eq!(e.setting, READ_ON_VIEW_AFTER_SETTING, "{bad}");
        }
    }
}
