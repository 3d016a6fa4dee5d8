//! Fixing many rows at once: the groups of rows one value fixes (a
//! field's problem, or one wrong country or state), setting them, and a
//! package preset's weight and sizes for the rows that lack them.

use super::{Draft, Problem};
use crate::batches::columns::field::Field;
use api::Parcel;
use std::collections::HashMap;

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
