use serde::{Deserialize, Serialize};

use crate::validation::BodyError;

/// A parcel (part 2). Our choices where the interface is silent: all four
/// fields are required, dimensions are inches, every value must be > 0,
/// at most 2,400 oz and 108 in per side (the largest carrier's bounds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Parcel {
    pub weight_oz: f64,
    pub length: f64,
    pub width: f64,
    pub height: f64,
}

impl Parcel {
    pub const MAX_WEIGHT_OZ: f64 = 2400.0;
    pub const MAX_SIDE_IN: f64 = 108.0;

    /// The first field out of bounds, as `(field, reason)`.
    pub fn invalid_field(&self) -> Option<(&'static str, &'static str)> {
        let fields = [
            ("weight_oz", self.weight_oz, Self::MAX_WEIGHT_OZ),
            ("length", self.length, Self::MAX_SIDE_IN),
            ("width", self.width, Self::MAX_SIDE_IN),
            ("height", self.height, Self::MAX_SIDE_IN),
        ];
        fields.into_iter().find_map(|(name, value, max)| {
            if !value.is_finite() || value <= 0.0 {
                Some((name, "must be a number greater than 0"))
            } else if value > max {
                Some((
                    name,
                    if name == "weight_oz" {
                        "must be at most 2400 oz"
                    } else {
                        "must be at most 108 in"
                    },
                ))
            } else {
                None
            }
        })
    }

    /// The first field out of bounds as the v1 validation error, its field
    /// under `prefix` (`parcel.weight_oz`).
    pub fn check(&self, prefix: &str) -> Result<(), BodyError> {
        match self.invalid_field() {
            Some((field, reason)) => Err(BodyError::Invalid {
                field: format!("{prefix}.{field}"),
                reason: reason.to_string(),
            }),
            None => Ok(()),
        }
    }
}
