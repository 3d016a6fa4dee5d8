//! Weights and sizes as merchants type them: a number, then maybe a unit
//! (`12`, `12 oz`, `1.5lb`, `500 g`, `25 cm`, `1,5 kg`). The contract wants
//! ounces and inches.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightUnit {
    Oz,
    Lb,
    G,
    Kg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LengthUnit {
    In,
    Cm,
}

/// Grams in an avoirdupois ounce.
const GRAMS_PER_OZ: f64 = 28.349523125;

impl WeightUnit {
    pub const ALL: [WeightUnit; 4] = [
        WeightUnit::Oz,
        WeightUnit::Lb,
        WeightUnit::G,
        WeightUnit::Kg,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WeightUnit::Oz => "oz",
            WeightUnit::Lb => "lb",
            WeightUnit::G => "g",
            WeightUnit::Kg => "kg",
        }
    }

    pub fn parse(text: &str) -> Option<WeightUnit> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "oz" | "ounce" | "ounces" => WeightUnit::Oz,
            "lb" | "lbs" | "pound" | "pounds" => WeightUnit::Lb,
            "g" | "gr" | "gram" | "grams" => WeightUnit::G,
            "kg" | "kgs" | "kilo" | "kilos" | "kilogram" | "kilograms" => WeightUnit::Kg,
            _ => return None,
        })
    }

    pub fn to_oz(self, value: f64) -> f64 {
        match self {
            WeightUnit::Oz => value,
            WeightUnit::Lb => value * 16.0,
            WeightUnit::G => value / GRAMS_PER_OZ,
            WeightUnit::Kg => value * 1000.0 / GRAMS_PER_OZ,
        }
    }
}

impl LengthUnit {
    pub const ALL: [LengthUnit; 2] = [LengthUnit::In, LengthUnit::Cm];

    pub fn as_str(self) -> &'static str {
        match self {
            LengthUnit::In => "in",
            LengthUnit::Cm => "cm",
        }
    }

    pub fn parse(text: &str) -> Option<LengthUnit> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "in" | "inch" | "inches" | "\"" => LengthUnit::In,
            "cm" | "centimeter" | "centimeters" | "centimetre" | "centimetres" => LengthUnit::Cm,
            _ => return None,
        })
    }

    pub fn to_in(self, value: f64) -> f64 {
        match self {
            LengthUnit::In => value,
            LengthUnit::Cm => value / 2.54,
        }
    }
}

/// Why a typed measure cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeasureError {
    Missing,
    NotANumber,
    /// The text after the number, which is no unit we know.
    UnknownUnit(String),
}

/// The number at the start of `text` and what follows it, trimmed. A
/// single comma without a dot is a decimal comma (`1,5`, `0,250`) unless
/// three digits follow it (`1,250` is a thousand and a quarter).
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+')))
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    let decimal_comma = match number.split_once(',') {
        Some((whole, fraction)) if !number.contains('.') && !fraction.contains(',') => {
            fraction.len() != 3
                || whole
                    .trim_start_matches(['-', '+'])
                    .trim_start_matches('0')
                    .is_empty()
        }
        _ => false,
    };
    let number = if decimal_comma {
        number.replace(',', ".")
    } else {
        number.replace(',', "")
    };
    let value = number.parse::<f64>().ok().filter(|v| v.is_finite())?;
    Some((value, rest.trim()))
}

/// A typed measure, its unit from the text or else `default`.
pub fn measure<U: Copy>(
    text: &str,
    default: U,
    parse_unit: fn(&str) -> Option<U>,
) -> Result<(f64, U), MeasureError> {
    if text.trim().is_empty() {
        return Err(MeasureError::Missing);
    }
    let (value, rest) = split_number(text).ok_or(MeasureError::NotANumber)?;
    if rest.is_empty() {
        return Ok((value, default));
    }
    parse_unit(rest)
        .map(|unit| (value, unit))
        .ok_or_else(|| MeasureError::UnknownUnit(rest.to_string()))
}

/// The measure's unit written out when `text` is a bare number (so a
/// row carries its own unit whatever file it came from).
pub fn with_unit(text: &str, unit: &str) -> String {
    match split_number(text) {
        Some((_, "")) => format!("{} {unit}", text.trim()),
        _ => text.trim().to_string(),
    }
}

/// Two decimals: what carriers rate on, and what the merchant sees back.
pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_in_any_unit_become_ounces() {
        let oz = |t: &str| {
            measure(t, WeightUnit::Oz, WeightUnit::parse).map(|(v, u)| round2(u.to_oz(v)))
        };
        assert_eq!(oz("12"), Ok(12.0));
        assert_eq!(oz("1.5 lb"), Ok(24.0));
        assert_eq!(oz("2LBS"), Ok(32.0));
        assert_eq!(oz("500 g"), Ok(17.64));
        assert_eq!(oz("1,5 kg"), Ok(52.91));
        assert_eq!(oz("1,250 g"), Ok(44.09));
        assert_eq!(oz("0,250 kg"), Ok(8.82));
        assert_eq!(oz(" "), Err(MeasureError::Missing));
        assert_eq!(oz("heavy"), Err(MeasureError::NotANumber));
        assert_eq!(
            oz("3 stone"),
            Err(MeasureError::UnknownUnit("stone".into()))
        );
        let grams = measure("500", WeightUnit::G, WeightUnit::parse).unwrap();
        assert_eq!(round2(grams.1.to_oz(grams.0)), 17.64);
    }

    #[test]
    fn sizes_in_cm_become_inches() {
        let inches = |t: &str| {
            measure(t, LengthUnit::In, LengthUnit::parse).map(|(v, u)| round2(u.to_in(v)))
        };
        assert_eq!(inches("10"), Ok(10.0));
        assert_eq!(inches("25.4 cm"), Ok(10.0));
        assert_eq!(inches("8\""), Ok(8.0));
        assert_eq!(
            measure("30", LengthUnit::Cm, LengthUnit::parse).map(|(v, u)| round2(u.to_in(v))),
            Ok(11.81)
        );
    }

    #[test]
    fn bare_numbers_get_their_unit_written_out() {
        assert_eq!(with_unit("500", "g"), "500 g");
        assert_eq!(with_unit(" 2 lb ", "g"), "2 lb");
        assert_eq!(with_unit("", "g"), "");
        assert_eq!(with_unit("n/a", "g"), "n/a");
    }
}
