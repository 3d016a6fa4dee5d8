//! An import's rows before anything is sent: each row's fields as text
//! (weights and sizes with their unit), every problem by row and column
//! with the `api` rules, fixes one at a time or in bulk, the rows with
//! problems as a CSV to fix elsewhere, and that file merged back by reference.

use super::columns::{Column, FIELD_COUNT, Field, Mapping};
use super::sheet::Sheet;
use super::units::{LengthUnit, MeasureError, WeightUnit, measure, round2, with_unit};
use crate::components::address_form;
use api::jobs::{JobRow, MAX_ROWS, reference_problem};
use api::{Address, FieldProblem, Parcel};
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

    pub fn set(&mut self, field: Field, value: String) {
        self.values[field.index()] = value;
    }

    fn reference(&self) -> &str {
        self.get(Field::Reference).trim()
    }
}

/// One problem of one row, in words that say what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: Field,
    pub text: String,
}

/// The file's shipments under `mapping`. Lines of one order that carry
/// nothing but its reference (a Shopify export's further line items) are
/// merged into it; their count comes back second.
pub fn drafts(sheet: &Sheet, mapping: &Mapping) -> (Vec<Draft>, usize) {
    fn cell<'a>(mapping: &Mapping, record: &'a [String], column: Column) -> &'a str {
        mapping
            .position(column)
            .and_then(|i| record.get(i))
            .map_or("", |v| v.trim())
    }
    let cell = |record, column| cell(mapping, record, column);
    let mut out: Vec<Draft> = Vec::with_capacity(sheet.records.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut merged = 0;
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
        let reference = draft.reference().to_string();
        let only_reference = Field::ALL
            .into_iter()
            .filter(|f| !matches!(f, Field::Reference | Field::Email | Field::Phone))
            .all(|f| draft.get(f).is_empty());
        if !reference.is_empty() && only_reference && seen.contains_key(&reference) {
            merged += 1;
            continue;
        }
        seen.entry(reference).or_insert(out.len());
        out.push(draft);
    }
    (out, merged)
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
        "city" => Field::City,
        "state" => Field::State,
        "zip" => Field::Zip,
        _ => Field::Country,
    }
}

fn recipient(d: &Draft) -> Address {
    let optional = |f: Field| nonempty(d.get(f).trim()).map(str::to_string);
    let country = d.get(Field::Country).trim().to_ascii_uppercase();
    let state = d.get(Field::State).trim();
    Address {
        name: d.get(Field::Name).trim().to_string(),
        street1: d.get(Field::Street1).trim().to_string(),
        street2: optional(Field::Street2),
        city: d.get(Field::City).trim().to_string(),
        // Codes in capitals, as carriers print them.
        state: if country == "US" {
            state.to_ascii_uppercase()
        } else {
            state.to_string()
        },
        zip: d.get(Field::Zip).trim().to_string(),
        country,
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
        Some(FieldProblem::Invalid(reason)) => problems.push(Problem {
            field: Field::Reference,
            text: format!("The reference {reason}"),
        }),
        None => {}
    }
    let to = recipient(d);
    problems.extend(
        address_form::problems(&to)
            .into_iter()
            .map(|(name, text)| Problem {
                field: address_field(name),
                text,
            }),
    );
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

/// The rows with a problem in each field, fields in the template's order:
/// what one bulk fix can set at once.
pub fn by_field(problems: &[Vec<Problem>]) -> Vec<(Field, Vec<usize>)> {
    let mut groups: Vec<(Field, Vec<usize>)> = Vec::new();
    for (i, row) in problems.iter().enumerate() {
        for p in row {
            match groups.iter_mut().find(|(f, _)| *f == p.field) {
                Some((_, rows)) if rows.last() != Some(&i) => rows.push(i),
                Some(_) => {}
                None => groups.push((p.field, vec![i])),
            }
        }
    }
    groups.sort_by_key(|(f, _)| *f);
    groups
}

/// Sets `field` to `value` on the rows at `indices` (a bulk fix).
pub fn set_all(drafts: &mut [Draft], indices: &[usize], field: Field, value: &str) {
    for &i in indices {
        if let Some(d) = drafts.get_mut(i) {
            d.set(field, value.trim().to_string());
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
    use crate::batches::columns::recognise;
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
            "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,12,10,8,4\n,Bob,,,Queens,New York,,USA,,,heavy,10,8,200\n#1,Cy,2 Elm St,,Bronx,NY,10451,US,,,3 stone,10,8,4\n"
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
        let groups = by_field(&problems);
        assert_eq!(groups[0], (Field::Reference, vec![1, 2]));
        assert!(groups.contains(&(Field::Weight, vec![1, 2])));
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
        let (mut drafts, merged) = drafts(&sheet, &mapping);
        assert_eq!((drafts.len(), merged), (2, 1));
        assert_eq!(drafts[1].line, 4);
        assert_eq!(drafts[0].get(Field::Weight), "500 g");
        let problems = check_all(&drafts);
        let groups = by_field(&problems);
        assert_eq!(
            groups
                .iter()
                .map(|(f, rows)| (*f, rows.len()))
                .collect::<Vec<_>>(),
            [(Field::Length, 2), (Field::Width, 2), (Field::Height, 2)]
        );
        for (field, rows) in &groups {
            set_all(&mut drafts, rows, *field, " 6 in ");
        }
        assert!(check_all(&drafts).iter().all(Vec::is_empty));
        let row = job_row(&drafts[0], &sender()).unwrap();
        assert_eq!(row.parcel.weight_oz, 17.64);
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
}
