//! An import as the screen holds it: a file read and waiting for its
//! columns (`Pending`), then its rows and what is known of them (`Imported`).

use crate::batches::columns::Mapping;
use crate::batches::columns::field::Field;
use crate::batches::columns::recognition::Source;
use crate::batches::rows::checks::check_all;
use crate::batches::rows::reading::Readings;
use crate::batches::rows::{Draft, Problem};
use crate::batches::sheet::Sheet;

/// The rows of an import and what is known of them.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The file's name: the job's name.
    pub name: String,
    pub headers: Vec<String>,
    pub mapping: Mapping,
    pub drafts: Vec<Draft>,
    pub problems: Vec<Vec<Problem>>,
    /// Line items merged, names read as codes, apostrophes taken off.
    pub readings: Readings,
    /// Reading, mapping and checking took this long.
    pub ms: f64,
}

impl Imported {
    pub fn bad_rows(&self) -> usize {
        self.problems.iter().filter(|p| !p.is_empty()).count()
    }

    pub fn recheck(&mut self) {
        self.problems = check_all(&self.drafts);
    }

    /// The file's column(s) a field came from, for its problems.
    pub fn column_name(&self, field: Field) -> String {
        self.mapping
            .source_of(field, &self.headers)
            .map_or("no column".into(), |h| format!("column “{h}”"))
    }
}

/// A file as read, waiting for its columns.
#[derive(Clone, Debug)]
pub struct Pending {
    pub name: String,
    pub sheet: Sheet,
    pub mapping: Mapping,
    pub source: Option<Source>,
    pub started_ms: f64,
}
