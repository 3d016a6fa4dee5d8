//! The results CSV: one line per row, in row order, under
//! `api::jobs::RESULT_COLUMNS`, written by the `csv` crate (quoting and
//! escaping included). A cell that a spreadsheet would run as a formula
//! (`=`, `+`, `-`, `@` first) is prefixed with `'`.

use api::jobs::{RESULT_COLUMNS, RowState};

use super::engine::Row;

/// A cell a spreadsheet shows as text, never runs.
pub(crate) fn cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

pub fn csv(rows: &[Row]) -> Result<String, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(RESULT_COLUMNS)?;
    for row in rows {
        let quote = row.quote.as_ref();
        let (code, message) = match (&row.error, row.state) {
            (Some(e), RowState::Failed | RowState::NeedsDecision | RowState::Skipped) => (
                e.code.to_string(),
                format!("{} {}", e.message, e.suggestion),
            ),
            _ => (String::new(), String::new()),
        };
        let bought = row.state == RowState::Bought;
        out.write_record([
            cell(row.row.reference.trim()),
            row.state.as_str().to_string(),
            row.tracking_number.clone().unwrap_or_default(),
            row.label_id.clone().unwrap_or_default(),
            quote.map(|q| cell(&q.carrier)).unwrap_or_default(),
            quote.map(|q| cell(&q.service)).unwrap_or_default(),
            quote
                .filter(|_| bought || row.state == RowState::InBatch)
                .map(|q| q.rate_cents.to_string())
                .unwrap_or_default(),
            quote
                .map(|q| q.carbon_grams.to_string())
                .unwrap_or_default(),
            code,
            cell(&message),
        ])?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::jobs::{JobRow, RowQuote};
    use api::{Address, ApiError, ErrorCode, Parcel};

    fn row(index: u32, reference: &str) -> Row {
        let address = Address {
            name: "Ada".into(),
            street1: "1 Main St".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        };
        Row::new(
            index,
            JobRow {
                reference: reference.into(),
                from_address: address.clone(),
                to_address: address,
                parcel: Parcel {
                    weight_oz: 1.0,
                    length: 1.0,
                    width: 1.0,
                    height: 1.0,
                },
            },
        )
    }

    #[test]
    fn one_line_per_row_with_label_or_error() {
        let mut bought = row(0, "#1001, gift");
        bought.state = RowState::Bought;
        bought.label_id = Some("lbl_1".into());
        bought.tracking_number = Some("9400111".into());
        bought.quote = Some(RowQuote {
            rate_id: "rate_1".into(),
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            rate_cents: 812,
            carbon_grams: 450,
            carrier_eta: "2026-11-30".into(),
            quoted_at: 0,
            offered: None,
        });
        let mut failed = row(1, "=HYPERLINK(\"x\")");
        failed.state = RowState::Failed;
        failed.error = Some(ApiError::new(
            ErrorCode::LabelAddressUndeliverable,
            "Pacific Post cannot deliver to 1 UNDELIVERABLE Way.",
            "Correct the address.",
            "req_1",
        ));
        let text = csv(&[bought, failed]).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(reader.headers().unwrap(), RESULT_COLUMNS.as_slice());
        let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(records.len(), 2);
        assert_eq!(&records[0][0], "#1001, gift");
        assert_eq!(&records[0][2], "9400111");
        assert_eq!(&records[0][6], "812");
        assert_eq!(&records[1][0], "'=HYPERLINK(\"x\")");
        assert_eq!(&records[1][8], "LABEL.ADDRESS.UNDELIVERABLE");
        assert!(records[1][9].contains("Correct the address."));
    }
}
