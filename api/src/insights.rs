//! Insights and the label history (the Worker's own, not part of v1): what
//! the organization's labels cost, with whom and with how much carbon, per
//! day or week and carrier, and the filtered, searchable, exportable list
//! of them. The ledger Worker's `WebhookInbox` object computes both with SQL
//! over its label ledger (`crate::inbox`), for the session's mode only.

use serde::{Deserialize, Serialize};

use crate::KeyEnv;
use crate::address::Address;
use crate::parcel::Parcel;
use crate::rates::Rate;
use crate::validation::BodyError;

/// `GET`: [`Insights`] for [`InsightsQuery`].
pub const INSIGHTS_PATH: &str = "/api/insights";
/// `GET`: one [`HistoryPage`] for [`HistoryQuery`].
pub const HISTORY_PATH: &str = "/api/ledger/history";
/// `GET`: the ledger's [`LabelRecord`] of one label, `?id=<label id>` and
/// `mode=live|sandbox` as for the history (the session's mode without it);
/// 404 in the v1 envelope when the organization's ledger has no such label.
pub const LABEL_RECORD_PATH: &str = "/api/ledger/label";
/// `GET`: every label [`HistoryQuery`] selects, as CSV ([`CSV_COLUMNS`]),
/// newest first, streamed page by page (`cursor` and `limit` are ignored).
pub const EXPORT_PATH: &str = "/api/ledger/export.csv";

/// The export's columns, in order: what a bookkeeper files.
pub const CSV_COLUMNS: [&str; 12] = [
    "date",
    "reference",
    "carrier",
    "service",
    "tracking_number",
    "price",
    "refund",
    "carbon_grams",
    "bought_by",
    "batch",
    "label_id",
    "status",
];

/// History pages hold at most this many labels, and this many by default.
pub const MAX_HISTORY_LIMIT: u32 = 200;
pub const DEFAULT_HISTORY_LIMIT: u32 = 50;
/// A search needle is at most this many characters.
pub const MAX_SEARCH_CHARS: usize = 100;
/// A time-zone offset is at most 14 hours from UTC (Kiribati, +14:00).
pub const MAX_TZ_OFFSET_MINUTES: i32 = 14 * 60;

const DAY: u64 = 86_400;

crate::names! {
    /// How far back insights look, ending now.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Period {
        Days7 = "7d",
        #[default]
        Days30 = "30d",
        Days90 = "90d",
    }
}

impl Period {
    pub fn days(self) -> u64 {
        match self {
            Period::Days7 => 7,
            Period::Days30 => 30,
            Period::Days90 => 90,
        }
    }
}

crate::names! {
    /// The width of a chart's bar.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Grouping {
        #[default]
        Day = "day",
        /// Weeks start on Monday.
        Week = "week",
    }
}

crate::names! {
    /// Where a label stands. v1 has no void event: the Worker learns of a
    /// void when it forwards one, and of its confirmation (with the refund)
    /// when it forwards a read of the label that shows it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum LabelStatus {
        Bought = "bought",
        VoidRequested = "void_requested",
        /// Voided and refunded.
        Voided = "voided",
    }
}

/// `?period=7d|30d|90d&group=day|week&tz=<minutes east of UTC>`; each
/// optional (30 days, by day, UTC). Days start at local midnight of `tz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InsightsQuery {
    pub period: Period,
    pub group: Grouping,
    pub tz_offset_minutes: i32,
}

fn invalid(field: &str, reason: &str) -> BodyError {
    BodyError::Invalid {
        field: field.to_string(),
        reason: reason.to_string(),
    }
}

fn named<T>(
    param: &impl Fn(&str) -> Option<String>,
    field: &str,
    from_name: fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<Option<T>, BodyError> {
    match param(field) {
        None => Ok(None),
        Some(v) => from_name(&v)
            .map(Some)
            .ok_or_else(|| invalid(field, &format!("must be one of {allowed}"))),
    }
}

fn number(
    param: &impl Fn(&str) -> Option<String>,
    field: &str,
    range: std::ops::RangeInclusive<i64>,
) -> Result<Option<i64>, BodyError> {
    let Some(v) = param(field) else {
        return Ok(None);
    };
    v.parse::<i64>()
        .ok()
        .filter(|n| range.contains(n))
        .map(Some)
        .ok_or_else(|| {
            invalid(
                field,
                &format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        })
}

impl InsightsQuery {
    /// Reads the query through `param` (a percent-decoded parameter by name).
    pub fn from_params(param: impl Fn(&str) -> Option<String>) -> Result<Self, BodyError> {
        let tz = i64::from(MAX_TZ_OFFSET_MINUTES);
        Ok(InsightsQuery {
            period: named(&param, "period", Period::from_name, "7d, 30d, 90d")?.unwrap_or_default(),
            group: named(&param, "group", Grouping::from_name, "day, week")?.unwrap_or_default(),
            tz_offset_minutes: number(&param, "tz", -tz..=tz)?.unwrap_or(0) as i32,
        })
    }

    pub fn to_query(&self) -> String {
        format!(
            "period={}&group={}&tz={}",
            self.period.as_str(),
            self.group.as_str(),
            self.tz_offset_minutes
        )
    }

    fn offset(&self) -> i64 {
        i64::from(self.tz_offset_minutes) * 60
    }

    /// The start of the bucket holding `at` (unix seconds), in UTC seconds.
    pub fn bucket_start(&self, at: u64) -> u64 {
        let local = at as i64 + self.offset();
        let width = self.bucket_seconds() as i64;
        // 1970-01-01 was a Thursday: weeks start 4 days after it, on Monday.
        let shift = if self.group == Grouping::Week {
            4 * DAY as i64
        } else {
            0
        };
        let start = (local - shift).div_euclid(width) * width + shift;
        (start - self.offset()).max(0) as u64
    }

    pub fn bucket_seconds(&self) -> u64 {
        match self.group {
            Grouping::Day => DAY,
            Grouping::Week => 7 * DAY,
        }
    }

    /// The period's first second: local midnight `days - 1` days before
    /// `now`'s day, so "7 days" is today and the six before it.
    pub fn since(&self, now: u64) -> u64 {
        let today = InsightsQuery {
            group: Grouping::Day,
            ..*self
        }
        .bucket_start(now);
        today.saturating_sub((self.period.days() - 1) * DAY)
    }
}

/// Sums over a set of labels. Carbon is known only for labels whose rate
/// the Worker saw (bought here); `carbon_labels` counts those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    pub labels: u32,
    /// What the labels cost when bought (voided ones included).
    pub spend_cents: i64,
    pub voided: u32,
    /// Given back for confirmed voids.
    pub refunded_cents: i64,
    pub carbon_grams: i64,
    pub carbon_labels: u32,
}

impl Totals {
    pub fn net_cents(&self) -> i64 {
        self.spend_cents - self.refunded_cents
    }

    /// Average price per label, rounded to the cent; `None` without labels.
    pub fn average_cents(&self) -> Option<i64> {
        (self.labels > 0).then(|| rounded_div(self.spend_cents, i64::from(self.labels)))
    }

    /// Average carbon of the labels whose carbon is known.
    pub fn carbon_per_label_grams(&self) -> Option<i64> {
        (self.carbon_labels > 0)
            .then(|| rounded_div(self.carbon_grams, i64::from(self.carbon_labels)))
    }
}

fn rounded_div(n: i64, d: i64) -> i64 {
    (2 * n + d.signum() * d) / (2 * d)
}

/// One bar segment: one carrier in one day or week.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    /// Unix seconds of the bucket's first second (local midnight).
    pub start: u64,
    pub carrier: String,
    #[serde(flatten)]
    pub totals: Totals,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarrierTotals {
    pub carrier: String,
    #[serde(flatten)]
    pub totals: Totals,
}

/// What the choices cost: over the labels bought here whose quote the
/// Worker saw, what was chosen beside the cheapest and the lowest-carbon
/// rate of the same quote (carbon ties go to the cheaper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Choices {
    pub labels: u32,
    pub chosen_cents: i64,
    pub chosen_carbon_grams: i64,
    pub cheapest_cents: i64,
    pub cheapest_carbon_grams: i64,
    pub greenest_cents: i64,
    pub greenest_carbon_grams: i64,
}

impl Choices {
    /// Choosing the lowest-carbon rate every time would have cost this
    /// much more (negative: less)...
    pub fn greenest_extra_cents(&self) -> i64 {
        self.greenest_cents - self.chosen_cents
    }

    /// ...and saved this much carbon.
    pub fn greenest_saved_grams(&self) -> i64 {
        self.chosen_carbon_grams - self.greenest_carbon_grams
    }

    /// Choosing the cheapest every time would have saved this much...
    pub fn cheapest_saved_cents(&self) -> i64 {
        self.chosen_cents - self.cheapest_cents
    }

    /// ...and added this much carbon.
    pub fn cheapest_extra_grams(&self) -> i64 {
        self.cheapest_carbon_grams - self.chosen_carbon_grams
    }
}

/// What one quote offered beside the rate chosen from it: its cheapest
/// rate (the less carbon of equal prices) and its lowest-carbon one (the
/// cheaper of equal carbon). Kept with each label bought here, dashboard
/// or batch job, for "what the choices cost".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offered {
    pub cheapest_cents: i64,
    pub cheapest_carbon_grams: i64,
    pub greenest_cents: i64,
    pub greenest_carbon_grams: i64,
}

impl Offered {
    /// `None` for a quote without rates.
    pub fn of(rates: &[Rate]) -> Option<Offered> {
        let cheapest = rates
            .iter()
            .min_by_key(|r| (r.rate_cents, r.carbon_grams))?;
        let greenest = rates
            .iter()
            .min_by_key(|r| (r.carbon_grams, r.rate_cents))?;
        Some(Offered {
            cheapest_cents: cheapest.rate_cents,
            cheapest_carbon_grams: cheapest.carbon_grams,
            greenest_cents: greenest.rate_cents,
            greenest_carbon_grams: greenest.carbon_grams,
        })
    }
}

/// The answer to `GET /api/insights`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Insights {
    pub sandbox: bool,
    pub period: Period,
    pub group: Grouping,
    pub tz_offset_minutes: i32,
    /// Unix seconds: the period is `since ..= until`.
    pub since: u64,
    pub until: u64,
    /// Oldest first, then by carrier; empty buckets are left out.
    pub buckets: Vec<Bucket>,
    /// Largest spend first.
    pub carriers: Vec<CarrierTotals>,
    pub totals: Totals,
    pub choices: Choices,
}

/// `?mode=&carrier=&service=&status=&since=&until=&q=&cursor=&limit=`;
/// each optional. `mode` is `live` or `sandbox` (default: the session's;
/// the Worker checks the role may read that mode's labels); `since`/`until`
/// are unix seconds (`until` exclusive); `q` finds labels whose tracking
/// number, reference or recipient contains it (case-insensitive); `cursor`
/// is a page's `next`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryQuery {
    pub mode: Option<KeyEnv>,
    pub carrier: Option<String>,
    pub service: Option<String>,
    pub status: Option<LabelStatus>,
    pub since: Option<u64>,
    pub until: Option<u64>,
    pub q: Option<String>,
    pub cursor: Option<Cursor>,
    pub limit: u32,
}

/// Every label of the mode, newest first, a page of the default size.
impl Default for HistoryQuery {
    fn default() -> Self {
        HistoryQuery {
            mode: None,
            carrier: None,
            service: None,
            status: None,
            since: None,
            until: None,
            q: None,
            cursor: None,
            limit: DEFAULT_HISTORY_LIMIT,
        }
    }
}

/// Where the next page starts: after the label `id` made at `at` (pages
/// are ordered by time, newest first, then by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub at: u64,
    pub id: String,
}

impl Cursor {
    pub fn encode(&self) -> String {
        format!("{}.{}", self.at, self.id)
    }

    pub fn decode(text: &str) -> Option<Cursor> {
        let (at, id) = text.split_once('.')?;
        let valid_id = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        Some(Cursor {
            at: at.parse().ok()?,
            id: id.to_string(),
        })
        .filter(|_| valid_id)
    }
}

fn text_filter(
    param: &impl Fn(&str) -> Option<String>,
    field: &str,
    max: usize,
) -> Result<Option<String>, BodyError> {
    let Some(v) = param(field) else {
        return Ok(None);
    };
    let v = v.trim();
    if v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(invalid(
            field,
            &format!("must be at most {max} characters, without control characters"),
        ));
    }
    Ok((!v.is_empty()).then(|| v.to_string()))
}

/// The `mode` a history or export asks for, if any: the Worker reads it
/// before the ledger does, to check the role may read that mode.
pub fn mode_param(param: &impl Fn(&str) -> Option<String>) -> Result<Option<KeyEnv>, BodyError> {
    named(param, "mode", KeyEnv::from_name, "live, sandbox")
}

impl HistoryQuery {
    pub fn from_params(param: impl Fn(&str) -> Option<String>) -> Result<Self, BodyError> {
        let time = 0..=i64::from(u32::MAX) * 4;
        let since = number(&param, "since", time.clone())?.map(|n| n as u64);
        let until = number(&param, "until", time)?.map(|n| n as u64);
        if let (Some(s), Some(u)) = (since, until)
            && s >= u
        {
            return Err(invalid("until", "must be later than since"));
        }
        let cursor = match param("cursor") {
            None => None,
            Some(c) => Some(Cursor::decode(&c).ok_or_else(|| {
                invalid("cursor", "must be the `next` of an earlier page, unchanged")
            })?),
        };
        let max = i64::from(MAX_HISTORY_LIMIT);
        Ok(HistoryQuery {
            mode: mode_param(&param)?,
            carrier: text_filter(&param, "carrier", MAX_SEARCH_CHARS)?,
            service: text_filter(&param, "service", MAX_SEARCH_CHARS)?,
            status: named(
                &param,
                "status",
                LabelStatus::from_name,
                "bought, void_requested, voided",
            )?,
            since,
            until,
            q: text_filter(&param, "q", MAX_SEARCH_CHARS)?.map(|q| q.to_lowercase()),
            cursor,
            limit: number(&param, "limit", 1..=max)?.map_or(DEFAULT_HISTORY_LIMIT, |n| n as u32),
        })
    }

    /// The query string (without `?`), each value percent-encoded.
    pub fn to_query(&self) -> String {
        let mut pairs: Vec<(&str, String)> = vec![];
        if let Some(m) = self.mode {
            pairs.push(("mode", m.as_str().into()));
        }
        let mut text = |name, value: &Option<String>| {
            if let Some(v) = value {
                pairs.push((name, v.clone()));
            }
        };
        text("carrier", &self.carrier);
        text("service", &self.service);
        text("q", &self.q);
        if let Some(s) = self.status {
            pairs.push(("status", s.as_str().into()));
        }
        if let Some(s) = self.since {
            pairs.push(("since", s.to_string()));
        }
        if let Some(u) = self.until {
            pairs.push(("until", u.to_string()));
        }
        if let Some(c) = &self.cursor {
            pairs.push(("cursor", c.encode()));
        }
        if self.limit != DEFAULT_HISTORY_LIMIT {
            pairs.push(("limit", self.limit.to_string()));
        }
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={}", encode(&v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One label of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryRow {
    pub id: String,
    /// Unix seconds the label was made (the service's time when it says).
    pub at: u64,
    pub carrier: String,
    pub service: String,
    pub tracking_number: String,
    pub price_cents: i64,
    pub refund_cents: i64,
    #[serde(default)]
    pub carbon_grams: Option<i64>,
    pub status: LabelStatus,
    /// Who bought it here; `None`: only announced by its webhook.
    #[serde(default)]
    pub bought_by: Option<String>,
    /// The batch job that bought it.
    #[serde(default)]
    pub job: Option<String>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub recipient: Option<String>,
    /// Signed `label.created` deliveries received for it (0: none yet).
    #[serde(default)]
    pub deliveries: u32,
}

/// One label as its organization's ledger holds it: its history row and,
/// for a label bought here (on the Ship page, through the API or in a
/// batch), the addresses and the parcel its rate was quoted for, as
/// written. `None`: not known (a label bought elsewhere, or before the
/// ledger kept them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelRecord {
    pub row: HistoryRow,
    #[serde(default)]
    pub from_address: Option<Address>,
    #[serde(default)]
    pub to_address: Option<Address>,
    #[serde(default)]
    pub parcel: Option<Parcel>,
}

/// The label a [`LABEL_RECORD_PATH`] read names: `id`, required.
pub fn record_id(param: impl Fn(&str) -> Option<String>) -> Result<String, BodyError> {
    text_filter(&param, "id", MAX_SEARCH_CHARS)?
        .ok_or_else(|| BodyError::Required { field: "id".into() })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPage {
    pub rows: Vec<HistoryRow>,
    /// The next page's `cursor`; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

/// Cents as dollars for the export (`-8.12`).
pub fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:02}",
        cents.unsigned_abs() / 100,
        cents.unsigned_abs() % 100
    )
}

/// The unix day (days since 1970-01-01) of a calendar date: the inverse
/// of [`iso_utc`]'s days-to-civil (Howard Hinnant's days-from-civil).
pub fn unix_day(year: i32, month: u32, day: u32) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (the export's dates are UTC).
pub fn iso_utc(at: u64) -> String {
    let days = (at / DAY) as i64;
    let secs = at % DAY;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn rate(id: &str, cents: i64, grams: i64) -> Rate {
        Rate {
            id: id.into(),
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            rate_cents: cents,
            carrier_eta: "2026-11-30".into(),
            carbon_grams: grams,
            account_type: crate::AccountType::Platform,
            expires_at: None,
        }
    }

    #[test]
    fn the_cheapest_and_the_greenest_break_ties_the_other_way() {
        let rates = [
            rate("a", 900, 400),
            rate("b", 700, 900),
            rate("c", 700, 800),
            rate("d", 1500, 300),
            rate("e", 1400, 300),
        ];
        let o = Offered::of(&rates).unwrap();
        // Equal price: less carbon; equal carbon: cheaper.
        assert_eq!((o.cheapest_cents, o.cheapest_carbon_grams), (700, 800));
        assert_eq!((o.greenest_cents, o.greenest_carbon_grams), (1400, 300));
        assert_eq!(Offered::of(&[]), None);
    }

    fn params(query: &str) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect();
        move |name| map.get(name).cloned()
    }

    fn field(e: BodyError) -> String {
        e.field().to_string()
    }

    #[test]
    fn insights_queries_default_and_refuse_with_the_field() {
        assert_eq!(
            InsightsQuery::from_params(params("")).unwrap(),
            InsightsQuery::default()
        );
        let q = InsightsQuery::from_params(params("period=90d&group=week&tz=-300")).unwrap();
        assert_eq!(
            (q.period, q.group, q.tz_offset_minutes),
            (Period::Days90, Grouping::Week, -300)
        );
        assert_eq!(
            InsightsQuery::from_params(params(&q.to_query())).unwrap(),
            q
        );
        for (query, name) in [
            ("period=1y", "period"),
            ("group=month", "group"),
            ("tz=841", "tz"),
            ("tz=x", "tz"),
        ] {
            assert_eq!(
                field(InsightsQuery::from_params(params(query)).unwrap_err()),
                name
            );
        }
    }

    #[test]
    fn a_label_record_read_names_one_label() {
        assert_eq!(record_id(params("id=lbl_1&mode=live")).unwrap(), "lbl_1");
        for query in ["", "id=", "mode=live"] {
            assert!(matches!(
                record_id(params(query)),
                Err(BodyError::Required { field }) if field == "id"
            ));
        }
        assert_eq!(
            field(record_id(params(&format!("id={}", "x".repeat(101)))).unwrap_err()),
            "id"
        );
    }

    #[test]
    fn unix_days_invert_iso_dates() {
        assert_eq!(unix_day(1970, 1, 1), 0);
        for (y, m, d) in [(2026, 11, 25), (2024, 2, 29), (2000, 3, 1), (1999, 12, 31)] {
            let at = unix_day(y, m, d) as u64 * DAY;
            assert_eq!(iso_utc(at), format!("{y:04}-{m:02}-{d:02}T00:00:00Z"));
        }
    }

    #[test]
    fn days_and_weeks_start_at_local_midnight_and_monday() {
        // 2026-11-25T06:00:00Z is a Wednesday.
        let at = 1_795_586_400;
        assert_eq!(iso_utc(at), "2026-11-25T06:00:00Z");
        let utc = InsightsQuery::default();
        assert_eq!(iso_utc(utc.bucket_start(at)), "2026-11-25T00:00:00Z");
        // New York (UTC−5): still the 24th there; its midnight is 05:00Z.
        let ny = InsightsQuery {
            tz_offset_minutes: -300,
            ..utc
        };
        assert_eq!(
            iso_utc(ny.bucket_start(at - 3600 * 2)),
            "2026-11-24T05:00:00Z"
        );
        let week = InsightsQuery {
            group: Grouping::Week,
            ..utc
        };
        assert_eq!(iso_utc(week.bucket_start(at)), "2026-11-23T00:00:00Z");
        // Seven days: today and the six before.
        let seven = InsightsQuery {
            period: Period::Days7,
            ..utc
        };
        assert_eq!(iso_utc(seven.since(at)), "2026-11-19T00:00:00Z");
    }

    #[test]
    fn history_queries_round_trip_and_refuse_bad_values() {
        let q = HistoryQuery {
            mode: Some(KeyEnv::Sandbox),
            carrier: Some("Pacific Post".into()),
            service: None,
            status: Some(LabelStatus::Voided),
            since: Some(10),
            until: Some(20),
            q: Some("1z&9".into()),
            cursor: Some(Cursor {
                at: 15,
                id: "lbl_9".into(),
            }),
            limit: 200,
        };
        let text = q.to_query();
        assert!(text.contains("carrier=Pacific%20Post"), "{text}");
        let decode = |s: &str| {
            let mut out = vec![];
            let b = s.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'%' {
                    out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                    i += 3;
                } else {
                    out.push(b[i]);
                    i += 1;
                }
            }
            String::from_utf8(out).unwrap()
        };
        let map: HashMap<String, String> = text
            .split('&')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k.to_string(), decode(v))
            })
            .collect();
        assert_eq!(
            HistoryQuery::from_params(|n| map.get(n).cloned()).unwrap(),
            q
        );
        assert_eq!(
            HistoryQuery::from_params(params("")).unwrap(),
            HistoryQuery::default()
        );
        for (query, name) in [
            ("status=lost", "status"),
            ("mode=test", "mode"),
            ("limit=0", "limit"),
            ("limit=201", "limit"),
            ("since=20&until=10", "until"),
            ("cursor=abc", "cursor"),
            ("cursor=1.a%20b", "cursor"),
        ] {
            assert_eq!(
                field(HistoryQuery::from_params(params(query)).unwrap_err()),
                name,
                "{query}"
            );
        }
        let long = format!("q={}", "x".repeat(101));
        assert_eq!(
            field(HistoryQuery::from_params(params(&long)).unwrap_err()),
            "q"
        );
    }

    #[test]
    fn totals_and_choices_say_what_a_person_reads() {
        let t = Totals {
            labels: 3,
            spend_cents: 1000,
            voided: 1,
            refunded_cents: 250,
            carbon_grams: 1001,
            carbon_labels: 2,
        };
        assert_eq!(t.net_cents(), 750);
        assert_eq!(t.average_cents(), Some(333));
        assert_eq!(t.carbon_per_label_grams(), Some(501));
        assert_eq!(Totals::default().average_cents(), None);
        let c = Choices {
            labels: 2,
            chosen_cents: 1500,
            chosen_carbon_grams: 900,
            cheapest_cents: 1200,
            cheapest_carbon_grams: 1100,
            greenest_cents: 1800,
            greenest_carbon_grams: 500,
        };
        assert_eq!(
            (c.greenest_extra_cents(), c.greenest_saved_grams()),
            (300, 400)
        );
        assert_eq!(
            (c.cheapest_saved_cents(), c.cheapest_extra_grams()),
            (300, 200)
        );
        assert_eq!(dollars(-812), "-8.12");
        assert_eq!(dollars(5), "0.05");
    }
}
