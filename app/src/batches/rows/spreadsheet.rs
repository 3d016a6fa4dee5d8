//! The rows in and out of a spreadsheet: the template (its columns, the
//! column guide, the file to download), the rows with problems as a CSV
//! to fix elsewhere, and that file merged back by reference.

use super::{Draft, Problem};
use crate::batches::columns::Column;
use std::collections::HashMap;

/// The template's columns, in order: every field, a unit column after
/// the weight and after the sizes (not the parts of a name).
fn template() -> impl Iterator<Item = Column> {
    Column::ALL
        .into_iter()
        .filter(|c| !matches!(c, Column::FirstName | Column::LastName | Column::Company))
}

/// The template's columns for the column guide: name, required, what it holds, an example.
pub fn template_guide() -> Vec<(&'static str, bool, &'static str, &'static str)> {
    template()
        .map(|c| match c.field() {
            Some(f) => (c.key(), f.required(), f.guide(), f.example()),
            None if c == Column::WeightUnit => (
                c.key(),
                false,
                "Optional: oz, lb, g or kg, for weights written without a unit (otherwise oz).",
                "lb",
            ),
            None => (
                c.key(),
                false,
                "Optional: in or cm, for sizes written without a unit (otherwise in).",
                "in",
            ),
        })
        .collect()
}

fn template_header() -> Vec<&'static str> {
    template().map(Column::key).collect()
}

/// A row in the template's columns; its weight and sizes carry their
/// units, so the unit columns stay empty.
fn template_row(d: &Draft) -> Vec<String> {
    template()
        .map(|c| c.field().map_or_else(String::new, |f| d.get(f).to_string()))
        .collect()
}

fn write_csv(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing to memory fails only on a bug; an empty file then says so.
    let _ = w.write_record(header);
    for row in rows {
        let _ = w.write_record(&row);
    }
    w.into_inner()
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default()
}

/// The downloadable template: the header and one example row.
pub fn template_csv() -> String {
    let example = template_guide().iter().map(|g| g.3.to_string()).collect();
    write_csv(&template_header(), std::iter::once(example))
}

/// The rows with problems in the template's columns (each weight and size
/// with its unit) and a last `problems` column, to fix in a spreadsheet
/// and import again: they merge back by reference.
pub fn export_problem_rows(drafts: &[Draft], problems: &[Vec<Problem>]) -> String {
    let mut header = template_header();
    header.push("problems");
    let rows = drafts
        .iter()
        .zip(problems)
        .filter(|(_, p)| !p.is_empty())
        .map(|(d, p)| {
            let mut row = template_row(d);
            row.push(
                p.iter()
                    .map(|p| format!("{}: {}", p.field.key(), p.text))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
            row
        });
    write_csv(&header, rows)
}

/// What merging a file of fixed rows did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    pub replaced: usize,
    /// Rows of the fixed file whose reference is not in the import: left out.
    pub unknown: Vec<(u32, String)>,
}

/// Replaces each row whose reference a fixed row names (the row keeps its
/// place and its row number); a fixed row without a match is reported.
/// A fixed row without a reference cannot be matched either.
pub fn merge(drafts: &mut [Draft], fixed: Vec<Draft>) -> Merged {
    let at: HashMap<String, usize> = drafts
        .iter()
        .enumerate()
        .rev()
        .map(|(i, d)| (d.reference().to_string(), i))
        .collect();
    let mut merged = Merged::default();
    for row in fixed {
        match at
            .get(row.reference())
            .filter(|_| !row.reference().is_empty())
        {
            Some(&i) => {
                let line = drafts[i].line;
                drafts[i] = Draft { line, ..row };
                merged.replaced += 1;
            }
            None => merged.unknown.push((row.line, row.reference().to_string())),
        }
    }
    merged
}
