//! An import's rows before anything is sent: each row's fields as text
//! (weights and sizes with their unit; countries and US and Canadian
//! regions read as codes, `api::places`), every problem by row and column
//! with the `api` rules, fixes one at a time or in bulk, the rows with
//! problems as a CSV to fix elsewhere, and that file merged back by reference.

use super::columns::field::{FIELD_COUNT, Field};
use super::columns::{Column, Mapping};
use super::sheet::Sheet;
use super::units::{LengthUnit, MeasureError, WeightUnit, measure, round2, with_unit};
use crate::components::address_form;
use api::jobs::{JobRow, MAX_ROWS, reference_problem};
use api::{Address, FieldProblem, Parcel, places};
use std::collections::HashMap;

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

    /// Reads the country and, in the US and Canada, the state as codes
    /// (`United States` → `US`, `Florida` → `FL`), and takes a leading
    /// apostrophe off the ZIP code (a spreadsheet's "this is text" mark,
    /// which Shopify's export puts before every ZIP code). What is not read
    /// stays as it was, to be shown as a problem: nothing is guessed.
    fn read(&mut self) -> Changes {
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
struct Changes {
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
    /// One sentence per kind of change, or nothing when the file was read as it is.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.merged_lines > 0 {
            out.push(format!(
                "{} further line item{} merged into {}.",
                group(self.merged_lines),
                if self.merged_lines == 1 { "" } else { "s" },
                if self.merged_lines == 1 {
                    "its order"
                } else {
                    "their orders"
                },
            ));
        }
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

/// One problem of one row, in words that say what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: Field,
    pub text: String,
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

fn nonempty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
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

fn address_field(name: &str) -> Field {
    match name {
        "name" => Field::Name,
        "street1" => Field::Street1,
        "street2" => Field::Street2,
        "city" => Field::City,
        "state" => Field::State,
        "zip" => Field::Zip,
        "phone" => Field::Phone,
        "email" => Field::Email,
        _ => Field::Country,
    }
}

fn recipient(d: &Draft) -> Address {
    // Countries and US and Canadian states are codes in capitals already
    // (`Draft::read`), as carriers print them.
    let text = |f: Field| d.get(f).trim().to_string();
    let optional = |f: Field| nonempty(d.get(f).trim()).map(str::to_string);
    Address {
        name: text(Field::Name),
        street1: text(Field::Street1),
        street2: optional(Field::Street2),
        city: text(Field::City),
        state: text(Field::State),
        zip: text(Field::Zip),
        country: text(Field::Country),
        phone: optional(Field::Phone),
        email: optional(Field::Email),
    }
}

/// One size or the weight in the contract's unit, or what to do about it.
fn contract_value(d: &Draft, field: Field) -> Result<f64, String> {
    let noun = field.label().to_ascii_lowercase();
    let (value, unit_name, converted) = if field == Field::Weight {
        measure(d.get(field), WeightUnit::Oz, WeightUnit::parse)
            .map(|(v, u)| (v, u.as_str(), round2(u.to_oz(v))))
    } else {
        measure(d.get(field), LengthUnit::In, LengthUnit::parse)
            .map(|(v, u)| (v, u.as_str(), round2(u.to_in(v))))
    }
    .map_err(|e| match e {
        MeasureError::Missing => format!("Enter the {noun}"),
        MeasureError::NotANumber => {
            format!("Enter the {noun} as a number, such as {}", example(field))
        }
        MeasureError::UnknownUnit(u) => format!(
            "“{u}” is not a unit we know: use {}",
            if field == Field::Weight {
                "oz, lb, g or kg"
            } else {
                "in or cm"
            }
        ),
    })?;
    // The api's bounds, checked on this field alone.
    let probe = match field {
        Field::Weight => Parcel {
            weight_oz: converted,
            length: 1.0,
            width: 1.0,
            height: 1.0,
        },
        Field::Length => Parcel {
            weight_oz: 1.0,
            length: converted,
            width: 1.0,
            height: 1.0,
        },
        Field::Width => Parcel {
            weight_oz: 1.0,
            length: 1.0,
            width: converted,
            height: 1.0,
        },
        _ => Parcel {
            weight_oz: 1.0,
            length: 1.0,
            width: 1.0,
            height: converted,
        },
    };
    match probe.invalid_field() {
        None => Ok(converted),
        Some((_, reason)) if unit_name == "oz" || unit_name == "in" => Err(format!(
            "The {noun} {reason}; this row has {value} {unit_name}"
        )),
        Some((_, reason)) => Err(format!(
            "The {noun} {reason}; this row has {value} {unit_name} ({converted} {})",
            if field == Field::Weight { "oz" } else { "in" }
        )),
    }
}

fn example(field: Field) -> &'static str {
    if field == Field::Weight {
        "12 oz or 1.5 lb"
    } else {
        "10 or 25 cm"
    }
}

/// The row's recipient and parcel in the contract's terms, or every
/// problem it has.
fn parts(d: &Draft) -> Result<(Address, Parcel), Vec<Problem>> {
    let mut problems = Vec::new();
    match reference_problem(d.get(Field::Reference)) {
        Some(FieldProblem::Missing) => problems.push(Problem {
            field: Field::Reference,
            text: "Enter a reference (your order number) for this row".into(),
        }),
        Some(problem) => problems.push(Problem {
            field: Field::Reference,
            text: format!("The reference {}", problem.reason()),
        }),
        None => {}
    }
    let to = recipient(d);
    problems.extend(to.problems().into_iter().map(|(name, problem)| {
        let field = address_field(name);
        let value = d.get(field).trim();
        // A country or state the import could not read, named with what it takes.
        let text = match (field, problem) {
            (Field::Country, FieldProblem::Invalid(_)) => format!(
                "“{value}” is not a country we know: enter its two-letter code or its name, such as US or United States"
            ),
            (Field::State, FieldProblem::Invalid(_)) if to.country == "CA" => format!(
                "“{value}” is not a Canadian province or territory: enter its two-letter code or its name, such as ON or Ontario"
            ),
            (Field::State, FieldProblem::Invalid(_)) => format!(
                "“{value}” is not a US state or territory: enter its two-letter code or its name, such as CA or California"
            ),
            _ => address_form::advice_text(&to, name, problem),
        };
        Problem { field, text }
    }));
    let mut sizes = [0.0; 4];
    for (slot, field) in
        sizes
            .iter_mut()
            .zip([Field::Weight, Field::Length, Field::Width, Field::Height])
    {
        match contract_value(d, field) {
            Ok(v) => *slot = v,
            Err(text) => problems.push(Problem { field, text }),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let [weight_oz, length, width, height] = sizes;
    Ok((
        to,
        Parcel {
            weight_oz,
            length,
            width,
            height,
        },
    ))
}

/// The row as the job takes it, from `sender`, or every problem it has.
pub fn job_row(d: &Draft, sender: &Address) -> Result<JobRow, Vec<Problem>> {
    let (to_address, parcel) = parts(d)?;
    Ok(JobRow {
        reference: d.reference().to_string(),
        from_address: sender.clone(),
        to_address,
        parcel,
    })
}

/// Every row's problems, in one pass: its own, and a reference another row has.
pub fn check_all(drafts: &[Draft]) -> Vec<Vec<Problem>> {
    let mut first: HashMap<&str, u32> = HashMap::with_capacity(drafts.len());
    drafts
        .iter()
        .map(|d| {
            let mut problems = parts(d).err().unwrap_or_default();
            let reference = d.reference();
            if !reference.is_empty() {
                match first.get(reference) {
                    Some(line) => problems.insert(
                        0,
                        Problem {
                            field: Field::Reference,
                            text: format!(
                                "Reference {reference} is also on row {line}: give each shipment its own reference"
                            ),
                        },
                    ),
                    None => {
                        first.insert(reference, d.line);
                    }
                }
            }
            problems
        })
        .collect()
}

/// Rows one bulk fix sets at once: the rows with a problem in `field`
/// or, for a country or a state, the rows with a problem and the same
/// value there (`value`; a state's also in the same `country`): a file of
/// many countries is fixed one wrong value at a time, never with one
/// value for all.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FixGroup {
    pub field: Field,
    /// The rows' shared value, for a country or a state ("" when missing).
    pub value: Option<String>,
    /// A state group's country.
    pub country: Option<String>,
    pub rows: Vec<usize>,
}

/// What one bulk fix can set at once, fields in the template's order,
/// values in the order the rows first have them.
pub fn fix_groups(drafts: &[Draft], problems: &[Vec<Problem>]) -> Vec<FixGroup> {
    let mut groups: Vec<FixGroup> = Vec::new();
    // A file of 5,000 different wrong values is 5,000 groups: found by key.
    let mut at: HashMap<(Field, Option<String>, Option<String>), usize> = HashMap::new();
    for (i, (d, row)) in drafts.iter().zip(problems).enumerate() {
        for p in row {
            let value = matches!(p.field, Field::Country | Field::State)
                .then(|| d.get(p.field).trim().to_string());
            let country =
                (p.field == Field::State).then(|| d.get(Field::Country).trim().to_string());
            let key = (p.field, value, country);
            match at.get(&key).and_then(|&g| groups.get_mut(g)) {
                Some(g) if g.rows.last() != Some(&i) => g.rows.push(i),
                Some(_) => {}
                None => {
                    at.insert(key.clone(), groups.len());
                    let (field, value, country) = key;
                    groups.push(FixGroup {
                        field,
                        value,
                        country,
                        rows: vec![i],
                    });
                }
            }
        }
    }
    groups.sort_by_key(|g| g.field);
    groups
}

/// Sets `field` to `value` on the rows at `indices` (a bulk fix), read as
/// the import reads it.
pub fn set_all(drafts: &mut [Draft], indices: &[usize], field: Field, value: &str) {
    for &i in indices {
        if let Some(d) = drafts.get_mut(i) {
            d.fix(field, value);
        }
    }
}

/// A package preset's cell for a parcel field (written with its unit,
/// whatever the file's), or `None` for another field.
fn preset_cell(parcel: &Parcel, field: Field) -> Option<String> {
    Some(match field {
        Field::Weight => format!("{} oz", parcel.weight_oz),
        Field::Length => format!("{} in", parcel.length),
        Field::Width => format!("{} in", parcel.width),
        Field::Height => format!("{} in", parcel.height),
        _ => None?,
    })
}

/// The rows a package preset fixes: those with a weight or size problem,
/// each once, in order.
pub fn parcel_rows(groups: &[FixGroup]) -> Vec<usize> {
    let mut rows: Vec<usize> = groups
        .iter()
        .filter(|g| {
            matches!(
                g.field,
                Field::Weight | Field::Length | Field::Width | Field::Height
            )
        })
        .flat_map(|g| g.rows.iter().copied())
        .collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// Fills what the preset knows into the rows that lack it: each weight or
/// size with a problem takes the preset's; a row's valid weight stays (a
/// store's export has weights and no sizes).
pub fn set_parcel(drafts: &mut [Draft], groups: &[FixGroup], parcel: &Parcel) {
    for g in groups {
        if let Some(value) = preset_cell(parcel, g.field) {
            set_all(drafts, &g.rows, g.field, &value);
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batches::columns::recognition::recognise;
    use crate::batches::sheet::read;

    fn sender() -> Address {
        Address {
            name: "Ada Shop".into(),
            street1: "500 Market St".into(),
            street2: None,
            city: "San Francisco".into(),
            state: "CA".into(),
            zip: "94105".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    fn import(text: &str) -> (Vec<Draft>, Vec<Vec<Problem>>) {
        let sheet = read(text).unwrap();
        let (mapping, _) = recognise(&sheet.headers, &[]);
        let (drafts, _) = drafts(&sheet, &mapping);
        let problems = check_all(&drafts);
        (drafts, problems)
    }

    const HEADER: &str = "reference,name,street1,street2,city,state,zip,country,phone,email,weight,length,width,height";

    #[test]
    fn good_rows_become_job_rows_in_ounces_and_inches() {
        let text = format!(
            "{HEADER},dimension_unit\n#1,Ada,1 Elm St,,Brooklyn,ny,11201,us,,,1.5 lb,25.4,20.32,10.16,cm\n"
        );
        let (drafts, problems) = import(&text);
        assert_eq!(problems, [vec![]]);
        let row = job_row(&drafts[0], &sender()).unwrap();
        assert_eq!(row.reference, "#1");
        assert_eq!(
            (
                row.to_address.state.as_str(),
                row.to_address.country.as_str()
            ),
            ("NY", "US")
        );
        assert_eq!(row.to_address.street2, None);
        assert_eq!(
            row.parcel,
            Parcel {
                weight_oz: 24.0,
                length: 10.0,
                width: 8.0,
                height: 4.0
            }
        );
        assert_eq!(row.from_address, sender());
        assert_eq!(
            drafts[0].get(Field::Length),
            "25.4 cm",
            "the unit travels with the row"
        );
        // What the Worker will check, it passes.
        assert_eq!(row.check(0), Ok(()));
    }

    #[test]
    fn every_problem_names_its_row_and_field() {
        let text = format!(
            "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,12,10,8,4\n,Bob,,,Queens,New York,,Untied States,,,heavy,10,8,200\n#1,Cy,2 Elm St,,Bronx,NY,10451,US,,,3 stone,10,8,4\n"
        );
        let (drafts, problems) = import(&text);
        assert!(problems[0].is_empty());
        let fields: Vec<Field> = problems[1].iter().map(|p| p.field).collect();
        assert_eq!(
            fields,
            [
                Field::Reference,
                Field::Street1,
                Field::Zip,
                Field::Country,
                Field::Weight,
                Field::Height
            ]
        );
        assert_eq!(drafts[1].line, 3);
        assert!(problems[1][4].text.contains("as a number"));
        assert_eq!(
            problems[1][5].text,
            "The height must be at most 108 in; this row has 200 in"
        );
        assert_eq!(
            problems[2][0].text,
            "Reference #1 is also on row 2: give each shipment its own reference"
        );
        assert_eq!(
            problems[2][1].text,
            "“stone” is not a unit we know: use oz, lb, g or kg"
        );
        assert_eq!(
            problems[1][3].text,
            "“Untied States” is not a country we know: enter its two-letter code or its name, such as US or United States"
        );
        let groups = fix_groups(&drafts, &problems);
        let rows = |field| {
            groups
                .iter()
                .find(|g| g.field == field)
                .map(|g| g.rows.clone())
        };
        assert_eq!(rows(Field::Reference), Some(vec![1, 2]));
        assert_eq!(rows(Field::Weight), Some(vec![1, 2]));
    }

    #[test]
    fn bounds_in_the_merchants_unit() {
        let (_, problems) = import(&format!(
            "{HEADER}\n#1,Ada,1 Elm,,B,NY,11201,US,,,70 kg,10,8,4\n"
        ));
        assert_eq!(
            problems[0][0].text,
            "The weight must be at most 2400 oz; this row has 70 kg (2469.18 oz)"
        );
    }

    #[test]
    fn a_bulk_fix_sets_a_field_for_every_row_that_lacks_it() {
        // Shopify: no sizes, grams, further line items carry only the order name.
        let text = "Name,Lineitem name,Financial Status,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Total Weight\n#1001,Mug,paid,Ada,1 Elm St,Brooklyn,11201,NY,US,500\n#1001,Spoon,,,,,,,,\n#1002,Tea,paid,Bob,2 Elm St,Queens,11354,NY,US,1200\n";
        let sheet = read(text).unwrap();
        let (mapping, _) = recognise(&sheet.headers, &[]);
        let (mut drafts, readings) = drafts(&sheet, &mapping);
        assert_eq!((drafts.len(), readings.merged_lines), (2, 1));
        assert_eq!(drafts[1].line, 4);
        assert_eq!(drafts[0].get(Field::Weight), "500 g");
        let problems = check_all(&drafts);
        let groups = fix_groups(&drafts, &problems);
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.field, g.rows.len()))
                .collect::<Vec<_>>(),
            [(Field::Length, 2), (Field::Width, 2), (Field::Height, 2)]
        );
        for g in &groups {
            set_all(&mut drafts, &g.rows, g.field, " 6 in ");
        }
        assert!(check_all(&drafts).iter().all(Vec::is_empty));
        let row = job_row(&drafts[0], &sender()).unwrap();
        assert_eq!(row.parcel.weight_oz, 17.64);
    }

    #[test]
    fn a_package_preset_fills_the_sizes_and_weights_rows_lack() {
        // Row 1 has no sizes but a weight; row 2 neither; row 3 is ready.
        let (mut drafts, problems) = import(&format!(
            "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,500 g,,,\n#2,Bob,2 Elm St,,Queens,NY,11354,US,,,,,,\n#3,Cy,3 Elm St,,Queens,NY,11354,US,,,2 lb,10,8,4\n"
        ));
        let groups = fix_groups(&drafts, &problems);
        assert_eq!(parcel_rows(&groups), [0, 1]);
        let preset = Parcel {
            weight_oz: 14.0,
            length: 9.0,
            width: 6.0,
            height: 3.5,
        };
        set_parcel(&mut drafts, &groups, &preset);
        assert!(check_all(&drafts).iter().all(Vec::is_empty));
        let parcel = |i: usize| job_row(&drafts[i], &sender()).unwrap().parcel;
        assert_eq!(parcel(1), preset);
        // The weight the row had stays; only its sizes come from the preset.
        assert_eq!(
            parcel(0),
            Parcel {
                weight_oz: 17.64,
                ..preset
            }
        );
        assert_eq!(parcel(2).weight_oz, 32.0);
        assert_eq!(drafts[1].get(Field::Height), "3.5 in");
    }

    #[test]
    fn the_rows_with_problems_go_out_and_come_back_by_reference() {
        let text = format!(
            "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,12,10,8,4\n#2,\"Bob, Jr\",2 Elm St,,Queens,NY,,US,,,12,10,8,4\n#3,Cy,3 Elm St,,Bronx,NY,10451,US,,,,10,8,4\n"
        );
        let (mut drafts, problems) = import(&text);
        let out = export_problem_rows(&drafts, &problems);
        let back = read(&out).unwrap();
        assert_eq!(back.headers.last().map(String::as_str), Some("problems"));
        assert_eq!(back.records.len(), 2);
        assert_eq!(back.records[0][1], "Bob, Jr");
        assert_eq!(back.records[0][16], "zip: Enter the ZIP code");
        assert_eq!(back.records[1][10], "");
        // Fixed in a spreadsheet (the problems column left as it was), plus a stray row.
        let mut fixed = back.clone();
        fixed.records[0][6] = "11354".into();
        fixed.records[1][10] = "2".into();
        fixed.records[1][11] = "lb".into();
        fixed.records.push(fixed.records[0].clone());
        fixed.records[2][0] = "#9".into();
        fixed.lines.push(4);
        let (mapping, _) = recognise(&fixed.headers, &[]);
        let (rows, _) = super::drafts(&fixed, &mapping);
        let merged = merge(&mut drafts, rows);
        assert_eq!(
            merged,
            Merged {
                replaced: 2,
                unknown: vec![(4, "#9".into())]
            }
        );
        assert_eq!(drafts.len(), 3);
        assert_eq!(drafts[1].line, 3, "a merged row keeps its row number");
        assert!(check_all(&drafts).iter().all(Vec::is_empty));
    }

    #[test]
    fn more_than_5000_rows_are_refused_with_the_count() {
        assert_eq!(too_many(5000), None);
        assert_eq!(
            too_many(5001).as_deref(),
            Some(
                "This file has 5,001 rows. A batch takes at most 5,000: split the file and import each part."
            )
        );
        assert_eq!(group(1234567), "1,234,567");
    }

    #[test]
    fn the_template_reads_back_as_a_valid_row() {
        let (drafts, problems) = import(&template_csv());
        assert_eq!(drafts.len(), 1);
        assert_eq!(problems, [vec![]]);
        assert_eq!(drafts[0].get(Field::Weight), "1.5 lb");
        assert_eq!(drafts[0].get(Field::Height), "4 in");
    }

    /// Issue 19, part 4: store exports read as they are.
    fn store_import(text: &str) -> (Vec<Draft>, Readings, Vec<Vec<Problem>>) {
        let sheet = read(text).unwrap();
        let (mapping, _) = recognise(&sheet.headers, &[]);
        let (drafts, readings) = drafts(&sheet, &mapping);
        let problems = check_all(&drafts);
        (drafts, readings, problems)
    }

    /// The address problems only: store exports carry no parcel sizes.
    fn address_problems(problems: &[Vec<Problem>]) -> Vec<(usize, Field)> {
        problems
            .iter()
            .enumerate()
            .flat_map(|(i, ps)| ps.iter().map(move |p| (i, p.field)))
            .filter(|(_, f)| {
                !matches!(
                    f,
                    Field::Weight | Field::Length | Field::Width | Field::Height
                )
            })
            .collect()
    }

    const WOO: &str = "order_id,order_number,order_date,status,billing_first_name,billing_last_name,billing_email,billing_address_1,billing_postcode,billing_city,billing_state,billing_state_code,billing_country,shipping_first_name,shipping_last_name,shipping_address_1,shipping_address_2,shipping_postcode,shipping_city,shipping_state,shipping_state_code,shipping_country,shipping_company,item_name,item_quantity";

    #[test]
    fn woocommerce_state_codes_are_taken_over_state_names_and_item_rows_merge() {
        let text = format!(
            "{WOO}\n\
             201,201,2026-11-20,processing,Ada,L,ada@example.com,1 Bill St,33101,Miami,Florida,FL,US,Ada,L,1 Ocean Dr,,33139,Miami Beach,Florida,FL,US,,Mug,1\n\
             201,201,2026-11-20,processing,Ada,L,ada@example.com,1 Bill St,33101,Miami,Florida,FL,US,Ada,L,1 Ocean Dr,,33139,Miami Beach,Florida,FL,US,,Tea,2\n\
             202,202,2026-11-20,processing,Bo,K,bo@example.com,2 Bill St,10001,New York,New York,NY,US,Bo,K,2 Park Ave,Apt 3,10016,New York,New York,NY,US,,Mug,1\n"
        );
        let (drafts, readings, problems) = store_import(&text);
        assert_eq!(drafts.len(), 2);
        assert_eq!(readings.merged_lines, 1, "the order's second item row");
        assert_eq!(readings.regions.count, 0, "the code column was taken");
        assert_eq!(
            (drafts[0].get(Field::State), drafts[0].get(Field::Zip)),
            ("FL", "33139")
        );
        assert_eq!(drafts[1].get(Field::Name), "Bo K");
        assert_eq!(address_problems(&problems), []);
        // The same export without the code column (the extension's default
        // format): the names are read, and counted.
        let names_only = text
            .lines()
            .map(|l| {
                let mut cells: Vec<&str> = l.split(',').collect();
                cells.remove(20);
                cells.join(",")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let (drafts, readings, problems) = store_import(&names_only);
        assert_eq!(address_problems(&problems), []);
        assert_eq!(drafts[1].get(Field::State), "NY");
        assert_eq!(readings.regions.count, 2);
        assert_eq!(
            readings.describe(),
            [
                "1 further line item merged into its order.",
                "Read 2 state names as codes (such as Florida → FL)."
            ]
        );
    }

    #[test]
    fn etsy_country_names_are_read_and_only_the_impossible_is_a_problem() {
        let header = "Sale Date,Order ID,Buyer User ID,Full Name,First Name,Last Name,Number of Items,Payment Method,Date Shipped,Street 1,Street 2,Ship City,Ship State,Ship Zipcode,Ship Country,Currency,Order Value,Status,Buyer,Order Type,Payment Type,SKU";
        let text = format!(
            "{header}\n\
             11/20/26,3012345601,9001,Martha Giretti,Martha,Giretti,1,Credit Card,,57 S 3rd St,,Brooklyn,NY,11249,United States,USD,38.99,,marty,online,online_cc,BAT-1\n\
             11/20/26,3012345602,9002,Lee Chen,Lee,Chen,2,Credit Card,,88 Queen St W,,Toronto,Ontario,M5H 2M9,Canada,USD,21.00,,lee,online,online_cc,MUG-2\n\
             11/21/26,3012345603,9003,Sam Roe,Sam,Roe,1,Credit Card,,9 Elm St,,Austin,ZZ,78701,United States,USD,12.00,,sam,online,online_cc,\n\
             11/21/26,3012345604,9004,Kim Poe,Kim,Poe,1,Credit Card,,4 Oak St,,Reno,NV,89501,Untied States,USD,12.00,,kim,online,online_cc,\n"
        );
        let (drafts, readings, problems) = store_import(&text);
        assert_eq!(drafts[0].get(Field::Reference), "3012345601");
        assert_eq!(drafts[0].get(Field::Street1), "57 S 3rd St");
        assert_eq!(
            (drafts[1].get(Field::Country), drafts[1].get(Field::State)),
            ("CA", "ON")
        );
        assert_eq!(readings.countries.count, 3);
        assert_eq!(readings.regions.count, 1);
        // An impossible state, and a country nobody has: on their rows, as typed.
        assert_eq!(
            address_problems(&problems),
            [(2, Field::State), (3, Field::Country)]
        );
        assert_eq!(drafts[3].get(Field::Country), "Untied States");
        assert!(
            problems[2][0]
                .text
                .starts_with("“ZZ” is not a US state or territory")
        );
    }

    #[test]
    fn shopify_zip_apostrophes_come_off_and_line_items_merge() {
        let header = "Name,Email,Financial Status,Paid at,Fulfillment Status,Lineitem quantity,Lineitem name,Billing Name,Billing Zip,Shipping Name,Shipping Street,Shipping Address1,Shipping Address2,Shipping Company,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Id,Shipping Province Name";
        let text = format!(
            "{header}\n\
             #1001,ada@example.com,paid,2026-11-20 10:00:00 -0500,,1,Mug,Ada L,'02134,Ada L,1 Main St,1 Main St,,,Boston,'02134,MA,US,,5550001,Massachusetts\n\
             #1001,ada@example.com,,,,2,Tea,,,,,,,,,,,,,,\n\
             #1002,bo@example.com,paid,2026-11-20 11:00:00 -0500,,1,Mug,Bo K,'07030,Bo K,5 River St,5 River St,,,Hoboken,'07030,NJ,US,,5550002,New Jersey\n"
        );
        let (drafts, readings, problems) = store_import(&text);
        assert_eq!(drafts.len(), 2);
        assert_eq!(readings.merged_lines, 1);
        assert_eq!(
            (drafts[0].get(Field::Zip), drafts[1].get(Field::Zip)),
            ("02134", "07030")
        );
        assert_eq!(
            drafts[0].get(Field::State),
            "MA",
            "the code column, not the name's"
        );
        assert_eq!(readings.zip_apostrophes.count, 2);
        assert_eq!(address_problems(&problems), []);
        assert!(
            readings.describe()[1]
                .starts_with("2 ZIP codes began with a spreadsheet's apostrophe (such as '02134)")
        );
    }

    #[test]
    fn a_mixed_file_is_fixed_one_wrong_value_at_a_time() {
        let text = format!(
            "{HEADER}\n\
             #1,A,1 Elm,,B,NY,11201,Untied States,,,12,10,8,4\n\
             #2,B,1 Elm,,B,ON,M5H 2M9,Canda,,,12,10,8,4\n\
             #3,C,1 Elm,,B,NY,11201,Untied States,,,12,10,8,4\n\
             #4,D,1 Elm,,B,Florida,33101,,,,12,10,8,4\n\
             #5,E,1 Elm,,B,Ontario,10001,US,,,12,10,8,4\n\
             #6,F,1 Elm,,B,ON,10002,US,,,12,10,8,4\n"
        );
        let (mut drafts, problems) = import(&text);
        let groups = fix_groups(&drafts, &problems);
        let group = |field, value: &str, country: Option<&str>, rows: Vec<usize>| FixGroup {
            field,
            value: Some(value.into()),
            country: country.map(Into::into),
            rows,
        };
        assert_eq!(
            groups,
            [
                group(Field::State, "Ontario", Some("US"), vec![4]),
                group(Field::State, "ON", Some("US"), vec![5]),
                group(Field::Country, "Untied States", None, vec![0, 2]),
                group(Field::Country, "Canda", None, vec![1]),
                group(Field::Country, "", None, vec![3]),
            ]
        );
        // Three edits fix the countries; the state named "Florida" is read
        // once its row has a country.
        for (g, value) in groups[2..].iter().zip(["United States", "Canada", "US"]) {
            set_all(&mut drafts, &g.rows, g.field, value);
        }
        assert_eq!(drafts[3].get(Field::State), "FL");
        assert_eq!(drafts[1].get(Field::Country), "CA");
        let problems = check_all(&drafts);
        assert_eq!(
            address_problems(&problems),
            [(4, Field::State), (5, Field::State)]
        );
        drafts[4].fix(Field::State, "new york");
        assert_eq!(drafts[4].get(Field::State), "NY");
    }
}
