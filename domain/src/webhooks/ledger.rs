//! The label ledger's decisions as plain Rust (the `WebhookInbox` object in
//! `inbox` runs them): what a quote's cheapest and lowest-carbon rates are,
//! the SQL of insights and of a history page with its arguments, how
//! aggregate rows become [`Insights`], and the export's CSV lines.

use crate::errors::Failure;
use crate::jobs::results::cell;
use api::insights::{
    Bucket, CSV_COLUMNS, CarrierTotals, Choices, Cursor, HistoryQuery, HistoryRow, Insights,
    InsightsQuery, LabelRecord, LabelStatus, Totals, dollars, iso_utc,
};
use api::{ErrorCode, RatesRequest};
use serde::de::DeserializeOwned;

/// A value bound to a `?N` of the ledger's SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Int(i64),
    Text(String),
}

/// One statement and its arguments, `?1` first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sql {
    pub text: String,
    pub args: Vec<Arg>,
}

impl Sql {
    fn bind(&mut self, arg: Arg) -> String {
        self.args.push(arg);
        format!("?{}", self.args.len())
    }
}

/// The columns a history row is read with (`HistoryRow`'s fields).
pub const HISTORY_COLUMNS: &str = "id, at, carrier, service, tracking, price, refund, carbon, status, bought_by, job, reference, recipient, deliveries";

/// One page of the history, newest first, plus one row to tell whether
/// another page follows.
pub fn history_sql(sandbox: bool, q: &HistoryQuery, limit: u32) -> Sql {
    let mut sql = Sql {
        text: String::new(),
        args: vec![],
    };
    let mut filters = vec![format!("sandbox = {}", sql.bind(Arg::Int(sandbox.into())))];
    if let Some(carrier) = &q.carrier {
        filters.push(format!(
            "carrier = {}",
            sql.bind(Arg::Text(carrier.clone()))
        ));
    }
    if let Some(service) = &q.service {
        filters.push(format!(
            "service = {}",
            sql.bind(Arg::Text(service.clone()))
        ));
    }
    if let Some(status) = q.status {
        filters.push(format!(
            "status = {}",
            sql.bind(Arg::Text(status.as_str().into()))
        ));
    }
    if let Some(since) = q.since {
        filters.push(format!("at >= {}", sql.bind(Arg::Int(since as i64))));
    }
    if let Some(until) = q.until {
        filters.push(format!("at < {}", sql.bind(Arg::Int(until as i64))));
    }
    if let Some(needle) = &q.q {
        // The trigram index finds a needle of three characters or more in
        // the tracking number, reference and recipient without reading
        // every label; a shorter one is looked for in each (`search` is
        // their lowercased text; instr has no wildcards to escape).
        filters.push(if needle.chars().count() >= 3 {
            format!(
                "rowid IN (SELECT rowid FROM label_search WHERE label_search MATCH {})",
                sql.bind(Arg::Text(phrase(needle)))
            )
        } else {
            format!("instr(search, {}) > 0", sql.bind(Arg::Text(needle.clone())))
        });
    }
    if let Some(Cursor { at, id }) = &q.cursor {
        let at = sql.bind(Arg::Int(*at as i64));
        let id = sql.bind(Arg::Text(id.clone()));
        filters.push(format!("(at < {at} OR (at = {at} AND id < {id}))"));
    }
    let limit = sql.bind(Arg::Int(i64::from(limit) + 1));
    sql.text = format!(
        "SELECT {HISTORY_COLUMNS} FROM labels WHERE {} ORDER BY at DESC, id DESC LIMIT {limit}",
        filters.join(" AND ")
    );
    sql
}

/// The columns a label's record reads beside its history row's: what was
/// shipped, each address and the parcel as JSON text (NULL: not known).
pub const SHIPMENT_COLUMNS: &str = "from_address, to_address, parcel";

/// One label of the mode's ledger, by its id.
pub fn record_sql(sandbox: bool, id: &str) -> Sql {
    Sql {
        text: format!(
            "SELECT {HISTORY_COLUMNS}, {SHIPMENT_COLUMNS} FROM labels WHERE id = ?1 AND sandbox = ?2"
        ),
        args: vec![Arg::Text(id.into()), Arg::Int(sandbox.into())],
    }
}

/// What a label's [`SHIPMENT_COLUMNS`] store: each address and the parcel
/// as JSON text, all written as they came; NULLs without a shipment.
pub fn shipment_columns(shipment: Option<&RatesRequest>) -> [Option<String>; 3] {
    match shipment {
        Some(s) => [
            serde_json::to_string(&s.from_address).ok(),
            serde_json::to_string(&s.to_address).ok(),
            serde_json::to_string(&s.parcel).ok(),
        ],
        None => [None, None, None],
    }
}

/// A label's record from its history row and its [`SHIPMENT_COLUMNS`] as
/// read: a column that is NULL (a label bought elsewhere, or recorded
/// before they were kept) or unreadable is not known, never an empty address.
pub fn record(row: HistoryRow, [from, to, parcel]: [Option<&str>; 3]) -> LabelRecord {
    fn read<T: DeserializeOwned>(text: Option<&str>) -> Option<T> {
        serde_json::from_str(text?).ok()
    }
    LabelRecord {
        row,
        from_address: read(from),
        to_address: read(to),
        parcel: read(parcel),
    }
}

/// A label its organization's ledger does not hold in that mode: bought
/// elsewhere or by another organization, or pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotInLedger;

impl Failure for NotInLedger {
    fn code(&self) -> ErrorCode {
        ErrorCode::LabelNotFound
    }
    fn message(&self) -> String {
        "This organization's label history has no record of this label.".into()
    }
    fn suggestion(&self) -> String {
        "Check the label id and the mode: the history holds the labels this organization bought or was told of in the last 90 days.".into()
    }
}

/// An FTS5 string that matches `needle` as typed: one phrase, quotes
/// doubled, so no character of it is query syntax.
pub fn phrase(needle: &str) -> String {
    format!("\"{}\"", needle.replace('"', "\"\""))
}

/// Keeps `limit` rows of the `limit + 1` read; the cursor of the next page
/// if there is one.
pub fn page_end(rows: &mut Vec<HistoryRow>, limit: u32) -> Option<String> {
    if rows.len() <= limit as usize {
        return None;
    }
    rows.truncate(limit as usize);
    rows.last().map(|r| {
        Cursor {
            at: r.at,
            id: r.id.clone(),
        }
        .encode()
    })
}

/// The period's labels summed per bucket and carrier. `first` is the
/// bucket's earliest label, whose bucket start `InsightsQuery` computes.
pub fn aggregate_sql(sandbox: bool, q: &InsightsQuery, now: u64) -> Sql {
    let mut sql = Sql {
        text: String::new(),
        args: vec![],
    };
    let sandbox = sql.bind(Arg::Int(sandbox.into()));
    let since = sql.bind(Arg::Int(q.since(now) as i64));
    // Buckets are numbered by local time (weeks shifted to start on
    // Monday); each bucket's start is then `InsightsQuery::bucket_start`
    // of its first label. Bound numbers arrive as reals: cast, so `/` is
    // integer division.
    let local = sql.bind(Arg::Int(
        i64::from(q.tz_offset_minutes) * 60 - week_shift(q),
    ));
    let width = sql.bind(Arg::Int(q.bucket_seconds() as i64));
    sql.text = format!(
        "SELECT (at + CAST({local} AS INTEGER)) / CAST({width} AS INTEGER) AS b, carrier, min(at) AS first, count(*) AS labels, \
         sum(price) AS spend, sum(status = 'voided') AS voided, sum(refund) AS refunded, \
         total(carbon) AS carbon, count(carbon) AS carbon_labels \
         FROM labels WHERE sandbox = {sandbox} AND at >= {since} GROUP BY b, carrier ORDER BY b, carrier"
    );
    sql
}

fn week_shift(q: &InsightsQuery) -> i64 {
    match q.group {
        api::insights::Grouping::Day => 0,
        api::insights::Grouping::Week => 4 * 86_400,
    }
}

/// "What the choices cost" over the period: labels bought here whose quote
/// the Worker saw.
pub fn choices_sql(sandbox: bool, since: u64) -> Sql {
    let mut sql = Sql {
        text: String::new(),
        args: vec![],
    };
    let sandbox = sql.bind(Arg::Int(sandbox.into()));
    let since = sql.bind(Arg::Int(since as i64));
    sql.text = format!(
        "SELECT count(*) AS labels, total(price) AS chosen_cents, total(carbon) AS chosen_carbon, \
         total(cheapest_cents) AS cheapest_cents, total(cheapest_carbon) AS cheapest_carbon, \
         total(greenest_cents) AS greenest_cents, total(greenest_carbon) AS greenest_carbon \
         FROM labels WHERE sandbox = {sandbox} AND at >= {since} AND greenest_cents IS NOT NULL AND carbon IS NOT NULL"
    );
    sql
}

/// One row of [`aggregate_sql`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregateRow {
    pub carrier: String,
    pub first: u64,
    pub totals: Totals,
}

fn add(sum: &mut Totals, t: &Totals) {
    sum.labels += t.labels;
    sum.spend_cents += t.spend_cents;
    sum.voided += t.voided;
    sum.refunded_cents += t.refunded_cents;
    sum.carbon_grams += t.carbon_grams;
    sum.carbon_labels += t.carbon_labels;
}

pub fn insights(
    sandbox: bool,
    q: &InsightsQuery,
    now: u64,
    rows: Vec<AggregateRow>,
    choices: Choices,
) -> Insights {
    let mut totals = Totals::default();
    let mut carriers: Vec<CarrierTotals> = vec![];
    let mut buckets = Vec::with_capacity(rows.len());
    for row in rows {
        add(&mut totals, &row.totals);
        match carriers.iter_mut().find(|c| c.carrier == row.carrier) {
            Some(c) => add(&mut c.totals, &row.totals),
            None => carriers.push(CarrierTotals {
                carrier: row.carrier.clone(),
                totals: row.totals,
            }),
        }
        buckets.push(Bucket {
            start: q.bucket_start(row.first),
            carrier: row.carrier,
            totals: row.totals,
        });
    }
    carriers.sort_by(|a, b| {
        b.totals
            .spend_cents
            .cmp(&a.totals.spend_cents)
            .then_with(|| a.carrier.cmp(&b.carrier))
    });
    Insights {
        sandbox,
        period: q.period,
        group: q.group,
        tz_offset_minutes: q.tz_offset_minutes,
        since: q.since(now),
        until: now,
        buckets,
        carriers,
        totals,
        choices,
    }
}

/// The export's lines for `rows`, written by the `csv` crate (quoting
/// included); text a person or the service chose goes through
/// `jobs::results::cell`, so a spreadsheet shows it and never runs it.
pub fn csv_lines(rows: &[HistoryRow], header: bool) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::with_capacity(rows.len() * 120));
    if header {
        out.write_record(CSV_COLUMNS)?;
    }
    let text = |t: &Option<String>| t.as_deref().map(cell).unwrap_or_default();
    for r in rows {
        out.write_record([
            iso_utc(r.at),
            text(&r.reference),
            cell(&r.carrier),
            cell(&r.service),
            cell(&r.tracking_number),
            dollars(r.price_cents),
            dollars(r.refund_cents),
            r.carbon_grams.map(|g| g.to_string()).unwrap_or_default(),
            text(&r.bought_by),
            text(&r.job),
            r.id.clone(),
            r.status.as_str().to_string(),
        ])?;
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// The status column's value.
pub fn status(name: &str) -> LabelStatus {
    LabelStatus::from_name(name).unwrap_or(LabelStatus::Bought)
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::insights::{Grouping, Period};

    fn row(id: &str, at: u64) -> HistoryRow {
        HistoryRow {
            id: id.into(),
            at,
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            tracking_number: "9400".into(),
            price_cents: 812,
            refund_cents: 0,
            carbon_grams: Some(640),
            status: LabelStatus::Bought,
            bought_by: Some("ada".into()),
            job: None,
            reference: None,
            recipient: None,
            deliveries: 0,
        }
    }

    #[test]
    fn a_history_page_binds_every_filter_and_reads_one_row_more() {
        let q = HistoryQuery {
            mode: None,
            carrier: Some("Pacific Post".into()),
            service: Some("Ground".into()),
            status: Some(LabelStatus::Voided),
            since: Some(100),
            until: Some(200),
            q: Some("1z9".into()),
            cursor: Some(Cursor {
                at: 150,
                id: "lbl_9".into(),
            }),
            limit: 50,
        };
        let sql = history_sql(true, &q, 50);
        assert_eq!(
            sql.text,
            format!(
                "SELECT {HISTORY_COLUMNS} FROM labels WHERE sandbox = ?1 AND carrier = ?2 AND service = ?3 \
                 AND status = ?4 AND at >= ?5 AND at < ?6 \
                 AND rowid IN (SELECT rowid FROM label_search WHERE label_search MATCH ?7) \
                 AND (at < ?8 OR (at = ?8 AND id < ?9)) ORDER BY at DESC, id DESC LIMIT ?10"
            )
        );
        assert_eq!(
            sql.args,
            vec![
                Arg::Int(1),
                Arg::Text("Pacific Post".into()),
                Arg::Text("Ground".into()),
                Arg::Text("voided".into()),
                Arg::Int(100),
                Arg::Int(200),
                Arg::Text("\"1z9\"".into()),
                Arg::Int(150),
                Arg::Text("lbl_9".into()),
                Arg::Int(51),
            ]
        );
        let plain = history_sql(false, &HistoryQuery::default(), 50);
        assert_eq!(plain.args, vec![Arg::Int(0), Arg::Int(51)]);
        // Two characters: too short for trigrams, looked for in each label.
        let short = HistoryQuery {
            q: Some("9\"".into()),
            ..HistoryQuery::default()
        };
        assert!(
            history_sql(false, &short, 50)
                .text
                .contains("instr(search, ?2) > 0")
        );
        assert_eq!(phrase("a\"b c"), "\"a\"\"b c\"");
    }

    #[test]
    fn a_record_reads_back_the_shipment_as_written_and_what_is_missing_as_not_known() {
        let sql = record_sql(true, "lbl_1");
        assert_eq!(
            sql.text,
            format!(
                "SELECT {HISTORY_COLUMNS}, {SHIPMENT_COLUMNS} FROM labels WHERE id = ?1 AND sandbox = ?2"
            )
        );
        assert_eq!(sql.args, vec![Arg::Text("lbl_1".into()), Arg::Int(1)]);
        let shipment: RatesRequest = serde_json::from_str(
            r#"{"from_address":{"name":"Ada Lovelace","street1":"12 Elm Street","city":"Springfield","state":"IL","zip":"62701","country":"US"},
                "to_address":{"name":"Acme Inc","street1":"500 Market Street","street2":"Floor 3","city":"San Francisco","state":"CA","zip":"94105","country":"US","phone":"415 555 0100","email":"ship@acme.test"},
                "parcel":{"weight_oz":20.5,"length":10,"width":8,"height":4}}"#,
        )
        .unwrap();
        let stored = shipment_columns(Some(&shipment));
        let read = record(row("lbl_1", 1), stored.each_ref().map(Option::as_deref));
        assert_eq!(read.row, row("lbl_1", 1));
        assert_eq!(read.from_address.as_ref(), Some(&shipment.from_address));
        assert_eq!(read.to_address.as_ref(), Some(&shipment.to_address));
        assert_eq!(read.parcel, Some(shipment.parcel));
        // Old rows and labels bought elsewhere: NULLs; a damaged column too.
        assert_eq!(shipment_columns(None), [None, None, None]);
        let unknown = record(row("lbl_2", 1), [None, Some("{\"name\":"), Some("null")]);
        assert_eq!(
            (unknown.from_address, unknown.to_address, unknown.parcel),
            (None, None, None)
        );
    }

    #[test]
    fn a_page_ends_with_the_cursor_of_its_last_row_only_when_more_follow() {
        let mut rows = vec![row("lbl_3", 30), row("lbl_2", 20), row("lbl_1", 20)];
        assert_eq!(page_end(&mut rows, 3), None);
        let next = page_end(&mut rows, 2).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            Cursor::decode(&next),
            Some(Cursor {
                at: 20,
                id: "lbl_2".into()
            })
        );
    }

    #[test]
    fn insights_fold_buckets_into_carriers_and_totals() {
        let q = InsightsQuery {
            period: Period::Days7,
            group: Grouping::Day,
            tz_offset_minutes: 60,
        };
        let now = 1_795_586_400; // 2026-11-25T06:00Z
        let t = |labels, spend| Totals {
            labels,
            spend_cents: spend,
            voided: 0,
            refunded_cents: 0,
            carbon_grams: 100 * i64::from(labels),
            carbon_labels: labels,
        };
        let rows = vec![
            AggregateRow {
                carrier: "Atlas Freight".into(),
                first: now - 86_400 - 3600,
                totals: t(1, 500),
            },
            AggregateRow {
                carrier: "Pacific Post".into(),
                first: now - 86_400,
                totals: t(2, 900),
            },
            AggregateRow {
                carrier: "Atlas Freight".into(),
                first: now,
                totals: t(3, 1500),
            },
        ];
        let i = insights(false, &q, now, rows, Choices::default());
        // Local midnight at UTC+1 is 23:00Z the day before.
        assert_eq!(iso_utc(i.buckets[0].start), "2026-11-23T23:00:00Z");
        assert_eq!(iso_utc(i.buckets[2].start), "2026-11-24T23:00:00Z");
        assert_eq!(iso_utc(i.since), "2026-11-18T23:00:00Z");
        assert_eq!((i.totals.labels, i.totals.spend_cents), (6, 2900));
        assert_eq!(i.carriers[0].carrier, "Atlas Freight");
        assert_eq!(i.carriers[0].totals.spend_cents, 2000);
        assert_eq!(i.carriers[1].totals.carbon_grams, 200);
    }

    #[test]
    fn the_aggregate_groups_by_local_day_or_monday_week_in_integers() {
        let q = InsightsQuery {
            period: Period::Days30,
            group: Grouping::Week,
            tz_offset_minutes: -300,
        };
        let sql = aggregate_sql(true, &q, 1_795_586_400);
        assert!(
            sql.text
                .contains("(at + CAST(?3 AS INTEGER)) / CAST(?4 AS INTEGER)")
        );
        assert_eq!(sql.args[2], Arg::Int(-300 * 60 - 4 * 86_400));
        assert_eq!(sql.args[3], Arg::Int(7 * 86_400));
    }

    #[test]
    fn the_export_quotes_cells_and_defuses_formulas() {
        let mut r = row("lbl_1", 1_795_586_400);
        r.reference = Some("=HYPERLINK(\"x\")".into());
        r.recipient = Some("Ada, Inc".into());
        r.status = LabelStatus::Voided;
        r.refund_cents = 812;
        r.job = Some("job_1".into());
        let csv = String::from_utf8(csv_lines(&[r], true).unwrap()).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(CSV_COLUMNS.join(",").as_str()));
        assert_eq!(
            lines.next(),
            Some(
                "2026-11-25T06:00:00Z,\"'=HYPERLINK(\"\"x\"\")\",Pacific Post,Ground,9400,8.12,8.12,640,ada,job_1,lbl_1,voided"
            )
        );
        assert_eq!(csv_lines(&[], false).unwrap(), b"");
    }
}
