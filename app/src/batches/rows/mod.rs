//! An import's rows before anything is sent: each row's fields as text
//! (`Draft`), read from the file (`reading`: weights and sizes with their
//! unit; countries and US and Canadian regions read as codes,
//! `api::places`), every problem by row and column with the `api` rules
//! (`checks`), fixes one at a time or in bulk (`fixes`), and the rows in
//! and out of a spreadsheet (`spreadsheet`: the template, the rows with
//! problems as a CSV to fix elsewhere, that file merged back by reference).

pub mod checks;
pub mod fixes;
pub mod reading;
pub mod spreadsheet;

use super::columns::field::{FIELD_COUNT, Field};

/// One shipment as imported: its fields as the merchant typed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    /// Its row in the merchant's file (the header is row 1).
    pub line: u32,
    pub values: [String; FIELD_COUNT],
}

impl Draft {
    pub fn get(&self, field: Field) -> &str {
        &self.values[field.index()]
    }

    fn set(&mut self, field: Field, value: String) {
        self.values[field.index()] = value;
    }

    fn reference(&self) -> &str {
        self.get(Field::Reference).trim()
    }

    /// Sets `field` as the merchant typed it, then reads it as the import
    /// does (a country or a state named, not coded, becomes its code).
    pub fn fix(&mut self, field: Field, value: &str) {
        self.set(field, value.trim().to_string());
        self.read();
    }
}

/// One problem of one row, in words that say what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: Field,
    pub text: String,
}

/// `1 line`, `5,000 lines`: the file's, before an order's items merge.
pub fn count_lines(n: usize) -> String {
    format!("{} line{}", group(n), if n == 1 { "" } else { "s" })
}

/// `1 row`, `5,000 rows`.
pub fn count_rows(n: usize) -> String {
    format!("{} row{}", group(n), if n == 1 { "" } else { "s" })
}

/// `5000` → `5,000`.
pub fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn nonempty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests;
