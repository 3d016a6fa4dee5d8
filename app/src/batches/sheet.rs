//! Reading an uploaded or pasted file: CSV or TSV (the delimiter is found
//! from the header line), with the `csv` crate, in one pass.

/// A file as read: its header names and its records, blank lines left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    pub headers: Vec<String>,
    pub records: Vec<Vec<String>>,
    /// Each record's row in a spreadsheet: the header is row 1, blank
    /// lines are left out (a cell may span lines, so file lines would not do).
    pub lines: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing but blanks.
    Empty,
    /// A header line and no rows under it.
    NoRows,
    /// The CSV itself is broken (an unclosed quote, bytes that are not text).
    Malformed { row: u64, message: String },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Empty => write!(
                f,
                "The file is empty. Choose a CSV or TSV file with a header row and one row per shipment."
            ),
            ReadError::NoRows => write!(f, "The file has a header row but no shipments under it."),
            ReadError::Malformed { row, message } => write!(
                f,
                "Row {row} cannot be read ({message}). Save the file again as CSV (UTF-8) and retry."
            ),
        }
    }
}

/// Tab if the header line has one, else whichever of `,` and `;` it has more of.
fn delimiter(header_line: &str) -> u8 {
    let count = |c: char| header_line.matches(c).count();
    if count('\t') > 0 {
        b'\t'
    } else if count(';') > count(',') {
        b';'
    } else {
        b','
    }
}

pub fn read(text: &str) -> Result<Sheet, ReadError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(ReadError::Empty);
    }
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter(first_line))
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let malformed = |e: csv::Error| ReadError::Malformed {
        row: e.position().map_or(1, |p| p.line()),
        message: match e.kind() {
            csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
            _ => e.to_string(),
        },
    };
    let headers: Vec<String> = reader
        .headers()
        .map_err(malformed)?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut records = Vec::new();
    let mut lines = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                if record.iter().all(|cell| cell.trim().is_empty()) {
                    continue;
                }
                lines.push(records.len() as u32 + 2);
                records.push(record.iter().map(str::to_string).collect());
            }
            Err(e) => return Err(malformed(e)),
        }
    }
    if records.is_empty() {
        return Err(ReadError::NoRows);
    }
    Ok(Sheet {
        headers,
        records,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_tsv_and_semicolons_with_quotes_and_blank_lines() {
        let csv = read("\u{feff}reference,name\n#1,\"Lovelace, Ada\"\n\n#2,\"Say \"\"hi\"\"\"\n")
            .unwrap();
        assert_eq!(csv.headers, ["reference", "name"]);
        assert_eq!(csv.records[0], ["#1", "Lovelace, Ada"]);
        assert_eq!(csv.records[1], ["#2", "Say \"hi\""]);
        assert_eq!(csv.lines, [2, 3]);
        let tsv = read("order-id\trecipient-name\n111-1\tAda, Lady\n").unwrap();
        assert_eq!(tsv.records[0], ["111-1", "Ada, Lady"]);
        let semi = read("ref;weight\nA;1,5\n").unwrap();
        assert_eq!(semi.records[0], ["A", "1,5"]);
        // A short row is read, its missing cells are blank for the mapping.
        assert_eq!(read("a,b,c\n1\n").unwrap().records[0], ["1"]);
    }

    #[test]
    fn empty_headless_and_broken_files_say_what_to_do() {
        assert_eq!(read(" \n"), Err(ReadError::Empty));
        assert_eq!(read("reference,name\n\n"), Err(ReadError::NoRows));
        let broken = read("a,b\n1,2\n\"3,4\n").unwrap();
        // An unclosed quote runs to the end: the csv crate reads it as one
        // field, which the row checks then report; nothing is lost silently.
        assert_eq!(broken.records.len(), 2);
        assert!(ReadError::NoRows.to_string().contains("no shipments"));
    }
}
