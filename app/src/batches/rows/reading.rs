//! Reading a file's records into rows: names from their parts, units
//! with every weight and size, an order's further line items merged into
//! it, countries and states read as codes, and what that changed, for the
//! merchant to see.

use super::{Draft, count_lines, count_rows, group, nonempty};
use crate::batches::columns::field::Field;
use crate::batches::columns::{Column, Mapping};
use crate::batches::sheet::Sheet;
use crate::batches::units::with_unit;
use api::jobs::MAX_ROWS;
use api::places;
use std::collections::HashMap;

impl Draft {
    /// Reads the country and, in the US and Canada, the state as codes
    /// (`United States` → `US`, `Florida` → `FL`), and takes a leading
    /// apostrophe off the ZIP code (a spreadsheet's "this is text" mark,
    /// which Shopify's export puts before every ZIP code). What is not read
    /// stays as it was, to be shown as a problem: nothing is guessed.
    pub(super) fn read(&mut self) -> Changes {
        let mut changes = Changes::default();
        let typed = self.get(Field::Country).trim().to_string();
        if let Some(code) = places::country_code(&typed) {
            if !typed.eq_ignore_ascii_case(code) {
                changes.country = Some((typed, code.to_string()));
            }
            self.set(Field::Country, code.to_string());
        }
        let country = self.get(Field::Country).to_string();
        let typed = self.get(Field::State).trim().to_string();
        if let Some(code) = places::region_code(&country, &typed) {
            if !typed.eq_ignore_ascii_case(code) {
                changes.region = Some((typed, code.to_string()));
            }
            self.set(Field::State, code.to_string());
        }
        let zip = self.get(Field::Zip);
        if let Some(bare) = zip.strip_prefix('\'') {
            let bare = bare.trim().to_string();
            changes.zip = Some((zip.to_string(), bare.clone()));
            self.set(Field::Zip, bare);
        }
        changes
    }
}

/// What reading one row changed, each as (before, after): a country and a
/// state read from their names, a ZIP code's apostrophe taken off.
#[derive(Default)]
pub(super) struct Changes {
    country: Option<(String, String)>,
    region: Option<(String, String)>,
    zip: Option<(String, String)>,
}

/// How many values of one kind the import changed, and the first as an
/// example (`Florida` → `FL`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Read {
    pub count: usize,
    pub example: Option<(String, String)>,
}

impl Read {
    fn add(&mut self, change: Option<(String, String)>) {
        if let Some(change) = change {
            self.count += 1;
            self.example.get_or_insert(change);
        }
    }

    fn describe(&self, noun: &str) -> Option<String> {
        let (name, code) = self.example.as_ref()?;
        Some(format!(
            "{} {noun} name{} as code{} (such as {name} → {code})",
            group(self.count),
            if self.count == 1 { "" } else { "s" },
            if self.count == 1 { "" } else { "s" },
        ))
    }
}

/// What the import did to the file's values on their way to the rows, for
/// the merchant to see.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Readings {
    /// Further lines of an order (its other line items) merged into its first.
    pub merged_lines: usize,
    pub countries: Read,
    pub regions: Read,
    /// ZIP codes whose leading apostrophe was taken off.
    pub zip_apostrophes: Read,
}

impl Readings {
    /// How the file's `lines` became the `rows` checked: a store export's
    /// order of several items is several lines but one row.
    pub fn lines_into_rows(&self, rows: usize) -> String {
        let lines = count_lines(rows + self.merged_lines);
        match self.merged_lines {
            0 => format!("{lines} read, one row each"),
            1 => format!(
                "{lines} read into {}: 1 further line item merged into its order",
                count_rows(rows)
            ),
            n => format!(
                "{lines} read into {}: {} further line items merged into their orders",
                count_rows(rows),
                group(n)
            ),
        }
    }

    /// One sentence per kind of change to the values, or nothing when the
    /// file was read as it is.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        let read: Vec<String> = [
            self.regions.describe("state"),
            self.countries.describe("country"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !read.is_empty() {
            out.push(format!("Read {}.", read.join(" and ")));
        }
        if let Some((zip, _)) = &self.zip_apostrophes.example {
            let n = self.zip_apostrophes.count;
            out.push(format!(
                "{} ZIP code{} began with a spreadsheet's apostrophe (such as {zip}): taken off.",
                group(n),
                if n == 1 { "" } else { "s" },
            ));
        }
        out
    }
}

/// The file's shipments under `mapping`, their countries, states and ZIP
/// codes read (`Draft::read`). A later line of an order (same reference)
/// that adds nothing, every field empty or as on its first line (a store
/// export's further line items), is merged into it; what was merged and
/// read comes back second.
pub fn drafts(sheet: &Sheet, mapping: &Mapping) -> (Vec<Draft>, Readings) {
    fn cell<'a>(mapping: &Mapping, record: &'a [String], column: Column) -> &'a str {
        mapping
            .position(column)
            .and_then(|i| record.get(i))
            .map_or("", |v| v.trim())
    }
    let cell = |record, column| cell(mapping, record, column);
    let mut out: Vec<Draft> = Vec::with_capacity(sheet.records.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut readings = Readings::default();
    for (record, line) in sheet.records.iter().zip(&sheet.lines) {
        let mut draft = Draft {
            line: *line,
            values: Default::default(),
        };
        for column in Column::ALL {
            if let Some(field) = column.field() {
                draft.set(field, cell(record, column).to_string());
            }
        }
        if draft.get(Field::Name).is_empty() {
            let full = [
                cell(record, Column::FirstName),
                cell(record, Column::LastName),
            ]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
            let name = if full.is_empty() {
                cell(record, Column::Company).to_string()
            } else {
                full
            };
            draft.set(Field::Name, name);
        }
        // A unit column's unit travels with the number; a bare number takes
        // the mapping's unit. Either way the row says its unit from now on.
        let weight_unit =
            nonempty(cell(record, Column::WeightUnit)).unwrap_or(mapping.weight_unit.as_str());
        let length_unit =
            nonempty(cell(record, Column::DimensionUnit)).unwrap_or(mapping.length_unit.as_str());
        draft.set(
            Field::Weight,
            with_unit(draft.get(Field::Weight), weight_unit),
        );
        for f in [Field::Length, Field::Width, Field::Height] {
            draft.set(f, with_unit(draft.get(f), length_unit));
        }
        let changes = draft.read();
        let reference = draft.reference().to_string();
        let first = (!reference.is_empty())
            .then(|| seen.get(&reference))
            .flatten()
            .and_then(|&i| out.get(i));
        if first.is_some_and(|first| {
            Field::ALL
                .into_iter()
                .all(|f| draft.get(f).is_empty() || draft.get(f) == first.get(f))
        }) {
            readings.merged_lines += 1;
            continue;
        }
        readings.countries.add(changes.country);
        readings.regions.add(changes.region);
        readings.zip_apostrophes.add(changes.zip);
        seen.entry(reference).or_insert(out.len());
        out.push(draft);
    }
    (out, readings)
}

/// Refused before anything is sent: more rows than a job takes.
pub fn too_many(rows: usize) -> Option<String> {
    (rows > MAX_ROWS).then(|| {
        format!(
            "This file has {} rows. A batch takes at most {}: split the file and import each part.",
            group(rows),
            group(MAX_ROWS)
        )
    })
}
