//! What a file's columns mean: our fields (`field`), what each column of
//! a file holds and the units of bare numbers (`Column`, `Mapping`), the
//! columns recognised by their headers (`recognition`) and the merchant's
//! own mappings (`saved`). Headers are compared normalised: lower case,
//! letters and digits only (`Shipping Address 1`, `shipping_address1` and
//! `ship-address-1` are `shippingaddress1` and `shipaddress1`).

pub mod field;
pub mod recognition;
pub mod saved;

use crate::batches::units::{LengthUnit, WeightUnit};
use field::Field;
use serde::{Deserialize, Serialize};

/// What one column of a file means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    Reference,
    Name,
    FirstName,
    LastName,
    /// The recipient's name when the file has no person's name.
    Company,
    Street1,
    Street2,
    City,
    State,
    Zip,
    Country,
    Phone,
    Email,
    Weight,
    /// `oz`, `lb`, `g` or `kg`, for the weight on the same row.
    WeightUnit,
    Length,
    Width,
    Height,
    /// `in` or `cm`, for the sizes on the same row.
    DimensionUnit,
}

impl Column {
    pub const ALL: [Column; 19] = [
        Column::Reference,
        Column::Name,
        Column::FirstName,
        Column::LastName,
        Column::Company,
        Column::Street1,
        Column::Street2,
        Column::City,
        Column::State,
        Column::Zip,
        Column::Country,
        Column::Phone,
        Column::Email,
        Column::Weight,
        Column::WeightUnit,
        Column::Length,
        Column::Width,
        Column::Height,
        Column::DimensionUnit,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Column::FirstName => "first_name",
            Column::LastName => "last_name",
            Column::Company => "company",
            Column::WeightUnit => "weight_unit",
            Column::DimensionUnit => "dimension_unit",
            other => other.field().map_or("", Field::key),
        }
    }

    pub fn parse(key: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.key() == key)
    }

    pub fn label(self) -> &'static str {
        match self {
            Column::FirstName => "First name",
            Column::LastName => "Last name",
            Column::Company => "Company (when there is no name)",
            Column::WeightUnit => "Weight unit",
            Column::DimensionUnit => "Dimension unit",
            other => other.field().map_or("", Field::label),
        }
    }

    /// The row field it fills directly.
    pub fn field(self) -> Option<Field> {
        Some(match self {
            Column::Reference => Field::Reference,
            Column::Name => Field::Name,
            Column::Street1 => Field::Street1,
            Column::Street2 => Field::Street2,
            Column::City => Field::City,
            Column::State => Field::State,
            Column::Zip => Field::Zip,
            Column::Country => Field::Country,
            Column::Phone => Field::Phone,
            Column::Email => Field::Email,
            Column::Weight => Field::Weight,
            Column::Length => Field::Length,
            Column::Width => Field::Width,
            Column::Height => Field::Height,
            _ => return None,
        })
    }
}

/// Which columns mean what, and the units of bare numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mapping {
    /// One entry per column of the file.
    pub columns: Vec<Option<Column>>,
    pub weight_unit: WeightUnit,
    pub length_unit: LengthUnit,
}

impl Mapping {
    /// The file column holding `column`, if any.
    pub fn position(&self, column: Column) -> Option<usize> {
        self.columns.iter().position(|c| *c == Some(column))
    }

    /// Required fields no column fills: every row will need them.
    pub fn missing(&self) -> Vec<Field> {
        Field::ALL
            .into_iter()
            .filter(|f| f.required())
            .filter(|f| {
                let names = [
                    Column::Name,
                    Column::FirstName,
                    Column::LastName,
                    Column::Company,
                ];
                match f {
                    Field::Name => !names.iter().any(|c| self.position(*c).is_some()),
                    _ => !self
                        .columns
                        .iter()
                        .any(|c| c.and_then(Column::field) == Some(*f)),
                }
            })
            .collect()
    }

    /// The file's header(s) a field comes from, to name in its problems.
    pub fn source_of(&self, field: Field, headers: &[String]) -> Option<String> {
        let named = |c: Column| self.position(c).and_then(|i| headers.get(i).cloned());
        if field == Field::Name {
            let parts: Vec<String> = [Column::Name, Column::FirstName, Column::LastName]
                .into_iter()
                .filter_map(named)
                .collect();
            return (!parts.is_empty()).then(|| parts.join(" + "));
        }
        Column::ALL
            .into_iter()
            .find(|c| c.field() == Some(field))
            .and_then(named)
    }
}

/// `Shipping Address 1` → `shippingaddress1`.
pub fn normalise(header: &str) -> String {
    header
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}
