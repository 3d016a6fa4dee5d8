//! The inbox's reads: the dashboards' insights, history pages, shipments
//! (`trackers`) and CSV export (`domain::webhooks::READ_URL`, their SQL and sums decided in
//! `webhooks::ledger`), and the inbox page's accepted and refused deliveries.

use api::inbox::{Inbox, LedgerEntry, PAGE_ROWS, Rejected};
use api::insights::{Choices, HistoryPage, HistoryQuery, HistoryRow, InsightsQuery, Totals};
use domain::errors::BadBody;
use serde::Deserialize;
use worker::{Response, Result, SqlStorageValue};

use super::rows::{LABEL_COLUMNS, LabelRow, RejectedRow};
use super::{WebhookInbox, internal, now};
use domain::routes::query_param;
use domain::webhooks::ReadInbox;
use domain::webhooks::ledger::{self, AggregateRow, Arg, Sql};

/// Rows per page of a CSV export: each page is read, written and let go.
const EXPORT_PAGE_ROWS: u32 = 1000;

fn values(sql: Sql) -> (String, Vec<SqlStorageValue>) {
    let args = sql
        .args
        .into_iter()
        .map(|a| match a {
            Arg::Int(n) => n.into(),
            Arg::Text(t) => t.into(),
        })
        .collect();
    (sql.text, args)
}

/// One row of `ledger::record_sql`: a history row and what it ships.
#[derive(Deserialize)]
struct RecordSqlRow {
    #[serde(flatten)]
    row: HistorySqlRow,
    from_address: Option<String>,
    to_address: Option<String>,
    parcel: Option<String>,
}

/// One row of `ledger::history_sql`; SQLite numbers arrive as JS numbers.
#[derive(Deserialize)]
struct HistorySqlRow {
    id: String,
    at: f64,
    carrier: String,
    service: String,
    tracking: String,
    price: f64,
    refund: f64,
    carbon: Option<f64>,
    status: String,
    bought_by: Option<String>,
    job: Option<String>,
    reference: Option<String>,
    recipient: Option<String>,
    deliveries: f64,
}

impl From<HistorySqlRow> for HistoryRow {
    fn from(r: HistorySqlRow) -> Self {
        HistoryRow {
            id: r.id,
            at: r.at as u64,
            carrier: r.carrier,
            service: r.service,
            tracking_number: r.tracking,
            price_cents: r.price as i64,
            refund_cents: r.refund as i64,
            carbon_grams: r.carbon.map(|c| c as i64),
            status: ledger::status(&r.status),
            bought_by: r.bought_by,
            job: r.job,
            reference: r.reference,
            recipient: r.recipient,
            deliveries: r.deliveries as u32,
        }
    }
}

#[derive(Deserialize)]
struct AggregateSqlRow {
    carrier: String,
    first: f64,
    labels: f64,
    spend: f64,
    voided: f64,
    refunded: f64,
    carbon: f64,
    carbon_labels: f64,
}

#[derive(Deserialize)]
struct ChoicesSqlRow {
    labels: f64,
    chosen_cents: f64,
    chosen_carbon: f64,
    cheapest_cents: f64,
    cheapest_carbon: f64,
    greenest_cents: f64,
    greenest_carbon: f64,
}

impl WebhookInbox {
    /// A dashboard read (`domain::webhooks::READ_URL`): the answer, or the envelope of
    /// a bad query with the main Worker's request id.
    pub(super) fn read(
        &self,
        path: &str,
        query: Option<&str>,
        request_id: &str,
    ) -> Result<Response> {
        self.tables()?;
        let param = |name: &str| query_param(query, name);
        let (kind, mode) = path.split_once('/').unwrap_or((path, ""));
        let sandbox = mode == "sandbox";
        let answer = match kind {
            "insights" => InsightsQuery::from_params(param).map(|q| self.insights(sandbox, &q)),
            "history" => HistoryQuery::from_params(param).map(|q| self.history(sandbox, &q)),
            "shipments" => Ok(self.shipments(sandbox)),
            "label" => match api::insights::record_id(param) {
                Ok(id) => match self.record(sandbox, &id)? {
                    Some(json) => Ok(Ok(json)),
                    None => {
                        let response =
                            platform::reply::error_response(&ledger::NotInLedger, request_id, None)
                                .map_err(|_| internal("no error response"))?;
                        return Ok(response.into());
                    }
                },
                Err(e) => Err(e),
            },
            "export" => match HistoryQuery::from_params(param) {
                Ok(q) => return self.export(sandbox, q),
                Err(e) => Err(e),
            },
            _ => return Response::error("Not Found", 404),
        };
        match answer {
            Ok(json) => {
                let mut response = Response::ok(json?)?;
                response
                    .headers_mut()
                    .set("Content-Type", "application/json")?;
                Ok(response)
            }
            Err(e) => {
                let response =
                    platform::reply::error_response(&BadBody::Invalid(e), request_id, None)
                        .map_err(|_| internal("no error response"))?;
                Ok(response.into())
            }
        }
    }

    fn insights(&self, sandbox: bool, query: &InsightsQuery) -> Result<String> {
        let now = now();
        let (text, args) = values(ledger::aggregate_sql(sandbox, query, now));
        let rows: Vec<AggregateSqlRow> = self.sql().exec(&text, args)?.to_array()?;
        let rows = rows
            .into_iter()
            .map(|r| AggregateRow {
                carrier: r.carrier,
                first: r.first as u64,
                totals: Totals {
                    labels: r.labels as u32,
                    spend_cents: r.spend as i64,
                    voided: r.voided as u32,
                    refunded_cents: r.refunded as i64,
                    carbon_grams: r.carbon as i64,
                    carbon_labels: r.carbon_labels as u32,
                },
            })
            .collect();
        let (text, args) = values(ledger::choices_sql(sandbox, query.since(now)));
        let choices = self
            .sql()
            .exec(&text, args)?
            .to_array::<ChoicesSqlRow>()?
            .into_iter()
            .next()
            .map(|c| Choices {
                labels: c.labels as u32,
                chosen_cents: c.chosen_cents as i64,
                chosen_carbon_grams: c.chosen_carbon as i64,
                cheapest_cents: c.cheapest_cents as i64,
                cheapest_carbon_grams: c.cheapest_carbon as i64,
                greenest_cents: c.greenest_cents as i64,
                greenest_carbon_grams: c.greenest_carbon as i64,
            })
            .unwrap_or_default();
        serde_json::to_string(&ledger::insights(sandbox, query, now, rows, choices))
            .map_err(internal)
    }

    /// One label's record (`LabelRecord`), if the mode's ledger holds it.
    fn record(&self, sandbox: bool, id: &str) -> Result<Option<String>> {
        let (text, args) = values(ledger::record_sql(sandbox, id));
        let rows: Vec<RecordSqlRow> = self.sql().exec(&text, args)?.to_array()?;
        let Some(r) = rows.into_iter().next() else {
            return Ok(None);
        };
        let stored = [&r.from_address, &r.to_address, &r.parcel].map(|c| c.as_deref());
        let record = ledger::record(HistoryRow::from(r.row), stored);
        serde_json::to_string(&record).map(Some).map_err(internal)
    }

    fn history_rows(
        &self,
        sandbox: bool,
        query: &HistoryQuery,
        limit: u32,
    ) -> Result<Vec<HistoryRow>> {
        let (text, args) = values(ledger::history_sql(sandbox, query, limit));
        let rows: Vec<HistorySqlRow> = self.sql().exec(&text, args)?.to_array()?;
        Ok(rows.into_iter().map(HistoryRow::from).collect())
    }

    fn history(&self, sandbox: bool, query: &HistoryQuery) -> Result<String> {
        let mut rows = self.history_rows(sandbox, query, query.limit)?;
        let next = ledger::page_end(&mut rows, query.limit);
        serde_json::to_string(&HistoryPage { rows, next }).map_err(internal)
    }

    /// The export as a stream of pages, each read when the reader wants
    /// more: never every row at once.
    fn export(&self, sandbox: bool, query: HistoryQuery) -> Result<Response> {
        let sql = self.sql();
        let first = Some((query, true));
        let pages = futures_util::stream::try_unfold(first, move |state| {
            let sql = sql.clone();
            async move {
                let Some((mut query, header)) = state else {
                    return Ok::<_, worker::Error>(None);
                };
                if !header {
                    // A page's SQL never awaits: without a turn of the event
                    // loop between pages the runtime takes every page in one
                    // go, and the answer leaves whole (measured: headers
                    // with the last byte). The turn lets each page go out,
                    // and the reader's pace decide when the next is read.
                    worker::Delay::from(std::time::Duration::ZERO).await;
                }
                let (text, args) = values(ledger::history_sql(sandbox, &query, EXPORT_PAGE_ROWS));
                let rows: Vec<HistorySqlRow> = sql.exec(&text, args)?.to_array()?;
                let mut rows: Vec<HistoryRow> = rows.into_iter().map(HistoryRow::from).collect();
                let next = ledger::page_end(&mut rows, EXPORT_PAGE_ROWS);
                let chunk = ledger::csv_lines(&rows, header).map_err(internal)?;
                query.cursor = next.as_deref().and_then(api::insights::Cursor::decode);
                let more = query.cursor.is_some().then_some((query, false));
                Ok(Some((chunk, more)))
            }
        });
        let mut response = Response::from_stream(pages)?;
        let headers = response.headers_mut();
        headers.set("Content-Type", "text/csv; charset=utf-8")?;
        headers.set("Content-Disposition", "attachment; filename=\"labels.csv\"")?;
        Ok(response)
    }

    /// The inbox page: the labels its events announced and the refused
    /// deliveries, each if asked for, matching the needle if one is given.
    pub(super) fn inbox(&self, r: ReadInbox) -> Result<Inbox> {
        Ok(Inbox {
            accepted: if r.accepted {
                self.announced(r.sandbox, r.needle.as_deref())?
            } else {
                vec![]
            },
            rejected: if r.rejected {
                self.rejected(r.needle.as_deref())?
            } else {
                vec![]
            },
            receiving: true,
        })
    }

    /// The labels a `label.created` event announced, latest event first.
    fn announced(&self, sandbox: bool, needle: Option<&str>) -> Result<Vec<LedgerEntry>> {
        let mut query =
            format!("SELECT {LABEL_COLUMNS} FROM labels WHERE sandbox = ? AND deliveries > 0");
        let mut args: Vec<SqlStorageValue> = vec![(sandbox as i32).into()];
        if let Some(needle) = needle {
            query.push_str(
                " AND (instr(lower(id), ?2) OR instr(lower(tracking), ?2) OR instr(lower(carrier), ?2))",
            );
            args.push(needle.into());
        }
        query.push_str(" ORDER BY last_at DESC LIMIT ?");
        args.push(i64::from(PAGE_ROWS).into());
        // `?2` names the pattern; the limit then binds as the next number.
        let query = query.replace("LIMIT ?", &format!("LIMIT ?{}", args.len()));
        let rows: Vec<LabelRow> = self.sql().exec(&query, args)?.to_array()?;
        Ok(rows.into_iter().filter_map(LabelRow::entry).collect())
    }

    fn rejected(&self, needle: Option<&str>) -> Result<Vec<Rejected>> {
        let cursor = match needle {
            Some(needle) => self.sql().exec(
                "SELECT * FROM rejected WHERE instr(lower(excerpt), ?1) OR instr(source_ip, ?1) ORDER BY id DESC LIMIT ?2",
                vec![needle.into(), i64::from(PAGE_ROWS).into()],
            )?,
            None => self.sql().exec(
                "SELECT * FROM rejected ORDER BY id DESC LIMIT ?",
                vec![i64::from(PAGE_ROWS).into()],
            )?,
        };
        let rows: Vec<RejectedRow> = cursor.to_array()?;
        Ok(rows.into_iter().filter_map(RejectedRow::rejected).collect())
    }
}
