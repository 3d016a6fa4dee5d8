//! Every problem of a row, by field, with the `api` rules (the address's,
//! the parcel's bounds in the merchant's unit, the reference), and the
//! row as the job takes it once it has none.

use super::{Draft, Problem, nonempty};
use crate::batches::columns::field::Field;
use crate::batches::units::{LengthUnit, MeasureError, WeightUnit, measure, round2};
use crate::components::address_form;
use api::jobs::{JobRow, reference_problem};
use api::{Address, FieldProblem, Parcel};
use std::collections::HashMap;

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
            _ => address_form::advice_text(name, problem),
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
