use crate::components::field::{advice, advice_id};
use api::Parcel;
use api::presets::PackagePreset;
use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightUnit {
    Oz,
    Lb,
}

/// The parcel as typed: weight in the chosen unit, dimensions in inches.
#[derive(Clone, Debug, PartialEq)]
pub struct ParcelDraft {
    pub weight: String,
    pub unit: WeightUnit,
    pub length: String,
    pub width: String,
    pub height: String,
}

pub struct Preset {
    pub name: &'static str,
    pub weight: &'static str,
    pub unit: WeightUnit,
    pub dims: [&'static str; 3],
}

pub const PRESETS: [Preset; 4] = [
    Preset {
        name: "Padded envelope (12 × 9 × 1 in, 8 oz)",
        weight: "8",
        unit: WeightUnit::Oz,
        dims: ["12", "9", "1"],
    },
    Preset {
        name: "Small box (8 × 6 × 4 in, 2 lb)",
        weight: "2",
        unit: WeightUnit::Lb,
        dims: ["8", "6", "4"],
    },
    Preset {
        name: "Medium box (12 × 10 × 8 in, 5 lb)",
        weight: "5",
        unit: WeightUnit::Lb,
        dims: ["12", "10", "8"],
    },
    Preset {
        name: "Large box (18 × 14 × 12 in, 15 lb)",
        weight: "15",
        unit: WeightUnit::Lb,
        dims: ["18", "14", "12"],
    },
];

/// The four numbers of a parcel, in the form's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParcelField {
    Weight,
    Length,
    Width,
    Height,
}

impl ParcelField {
    pub const ALL: [ParcelField; 4] = [
        ParcelField::Weight,
        ParcelField::Length,
        ParcelField::Width,
        ParcelField::Height,
    ];

    /// The input's id.
    pub fn id(self) -> &'static str {
        match self {
            ParcelField::Weight => "parcel-weight",
            ParcelField::Length => "parcel-length",
            ParcelField::Width => "parcel-width",
            ParcelField::Height => "parcel-height",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            ParcelField::Weight => "weight",
            ParcelField::Length => "length",
            ParcelField::Width => "width",
            ParcelField::Height => "height",
        }
    }
}

impl ParcelDraft {
    pub fn from_preset(p: &Preset) -> ParcelDraft {
        ParcelDraft {
            weight: p.weight.into(),
            unit: p.unit,
            length: p.dims[0].into(),
            width: p.dims[1].into(),
            height: p.dims[2].into(),
        }
    }

    /// A parcel as the form shows it: ounces, inches.
    pub fn from_parcel(p: &Parcel) -> ParcelDraft {
        ParcelDraft {
            weight: p.weight_oz.to_string(),
            unit: WeightUnit::Oz,
            length: p.length.to_string(),
            width: p.width.to_string(),
            height: p.height.to_string(),
        }
    }

    fn typed(&self, field: ParcelField) -> &str {
        match field {
            ParcelField::Weight => &self.weight,
            ParcelField::Length => &self.length,
            ParcelField::Width => &self.width,
            ParcelField::Height => &self.height,
        }
    }

    /// One field in the contract's unit (ounces, inches), or what to do
    /// about it in plain words. The bounds are `api::Parcel`'s.
    fn value(&self, field: ParcelField) -> Result<f64, String> {
        let noun = field.noun();
        let typed = self.typed(field).trim().parse::<f64>();
        let number = typed
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("Enter the {noun} as a number"))?;
        let (value, max, at_most) = match field {
            ParcelField::Weight => (
                match self.unit {
                    WeightUnit::Oz => number,
                    WeightUnit::Lb => number * 16.0,
                },
                Parcel::MAX_WEIGHT_OZ,
                format!(
                    "{} lb ({} oz)",
                    Parcel::MAX_WEIGHT_OZ / 16.0,
                    Parcel::MAX_WEIGHT_OZ
                ),
            ),
            _ => (
                number,
                Parcel::MAX_SIDE_IN,
                format!("{} in", Parcel::MAX_SIDE_IN),
            ),
        };
        if value <= 0.0 {
            Err(format!("Enter a {noun} greater than 0"))
        } else if value > max {
            Err(format!("Enter a {noun} of at most {at_most}"))
        } else {
            Ok(value)
        }
    }

    /// Every field's problem, in the form's order.
    pub fn problems(&self) -> Vec<(ParcelField, String)> {
        ParcelField::ALL
            .into_iter()
            .filter_map(|f| self.value(f).err().map(|advice| (f, advice)))
            .collect()
    }

    /// The contract's parcel (weight in ounces), if every field is right.
    pub fn to_parcel(&self) -> Option<Parcel> {
        let [weight_oz, length, width, height] = ParcelField::ALL.map(|f| self.value(f).ok());
        Some(Parcel {
            weight_oz: weight_oz?,
            length: length?,
            width: width?,
            height: height?,
        })
    }
}

/// How a package preset is named in pickers: `Small box (9 × 6 × 3 in, 14 oz)`.
pub fn describe_package(p: &PackagePreset) -> String {
    format!("{} ({})", p.name, describe_parcel(&p.parcel))
}

/// A parcel's size and weight, as presets name them: `9 × 6 × 3 in, 14 oz`.
pub fn describe_parcel(x: &Parcel) -> String {
    format!(
        "{} × {} × {} in, {} oz",
        x.length, x.width, x.height, x.weight_oz
    )
}

/// Weight (oz or lb), dimensions (in) and presets: the organization's own
/// (`saved`, each named) first, then common sizes. Once `show_problems` is set, every
/// field's problem shows under it.
#[component]
pub fn ParcelForm(
    parcel: RwSignal<ParcelDraft>,
    #[prop(optional)] show_problems: Option<RwSignal<bool>>,
    #[prop(optional)] saved: Option<RwSignal<Vec<(String, Parcel)>>>,
) -> impl IntoView {
    let saved = move || saved.map(|s| s.get()).unwrap_or_default();
    let number =
        move |field: ParcelField, label: &'static str, set: fn(&mut ParcelDraft, String)| {
            let id = field.id();
            let problem = move || {
                show_problems
                    .is_some_and(|shown| shown.get())
                    .then(|| parcel.with(|p| p.value(field).err()))
                    .flatten()
            };
            view! {
                <div class="field">
                    <label for=id>{label}</label>
                    <input
                        id=id
                        type="number"
                        inputmode="decimal"
                        min="0"
                        step="any"
                        required
                        aria-invalid=move || problem().map(|_| "true")
                        aria-describedby=move || problem().map(|_| advice_id(id))
                        prop:value=move || parcel.with(|p| p.typed(field).to_string())
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            parcel.update(|p| set(p, v));
                        }
                    />
                    {advice(id.to_string(), problem)}
                </div>
            }
        };
    view! {
        <fieldset class="parcel-form">
            <legend>"Parcel"</legend>
            <div class="field">
                <label for="parcel-preset">"Preset"</label>
                <select
                    id="parcel-preset"
                    on:change=move |ev| {
                        let value = event_target_value(&ev);
                        // `s3`: the organization's fourth preset; `2`: the third common size.
                        let draft = match value.strip_prefix('s') {
                            Some(i) => i.parse::<usize>().ok().and_then(|i| saved().get(i).map(|(_, p)| ParcelDraft::from_parcel(p))),
                            None => value.parse::<usize>().ok().and_then(|i| PRESETS.get(i)).map(ParcelDraft::from_preset),
                        };
                        if let Some(draft) = draft {
                            parcel.set(draft);
                        }
                    }
                >
                    <option value="">"Custom size"</option>
                    {move || {
                        let own = saved();
                        (!own.is_empty()).then(|| view! {
                            <optgroup label="Your presets">
                                {own.into_iter().enumerate().map(|(i, (name, _))| view! { <option value=format!("s{i}")>{name}</option> }).collect_view()}
                            </optgroup>
                        })
                    }}
                    {PRESETS.iter().enumerate().map(|(i, p)| view! { <option value=i.to_string()>{p.name}</option> }).collect_view()}
                </select>
            </div>
            <div class="parcel-grid">
                {number(ParcelField::Weight, "Weight", |p, v| p.weight = v)}
                <div class="field">
                    <label for="parcel-unit">"Weight unit"</label>
                    <select
                        id="parcel-unit"
                        prop:value=move || if parcel.with(|p| p.unit) == WeightUnit::Lb { "lb" } else { "oz" }
                        on:change=move |ev| {
                            let unit = if event_target_value(&ev) == "lb" { WeightUnit::Lb } else { WeightUnit::Oz };
                            parcel.update(|p| p.unit = unit);
                        }
                    >
                        <option value="oz">"oz"</option>
                        <option value="lb">"lb"</option>
                    </select>
                </div>
                {number(ParcelField::Length, "Length (in)", |p, v| p.length = v)}
                {number(ParcelField::Width, "Width (in)", |p, v| p.width = v)}
                {number(ParcelField::Height, "Height (in)", |p, v| p.height = v)}
            </div>
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(weight: &str, unit: WeightUnit, dims: [&str; 3]) -> ParcelDraft {
        ParcelDraft {
            weight: weight.into(),
            unit,
            length: dims[0].into(),
            width: dims[1].into(),
            height: dims[2].into(),
        }
    }

    #[test]
    fn pounds_become_ounces() {
        let mut d = ParcelDraft::from_preset(&PRESETS[1]);
        assert_eq!(d.to_parcel().unwrap().weight_oz, 32.0);
        d.unit = WeightUnit::Oz;
        assert_eq!(d.to_parcel().unwrap().weight_oz, 2.0);
    }

    #[test]
    fn every_problem_at_once_in_plain_words() {
        let d = draft("", WeightUnit::Oz, ["0", "200", "4"]);
        assert_eq!(
            d.problems(),
            [
                (
                    ParcelField::Weight,
                    "Enter the weight as a number".to_string()
                ),
                (ParcelField::Length, "Enter a length greater than 0".into()),
                (ParcelField::Width, "Enter a width of at most 108 in".into()),
            ]
        );
        assert_eq!(d.to_parcel(), None);
        let heavy = draft("151", WeightUnit::Lb, ["1", "1", "1"]);
        assert_eq!(
            heavy.problems(),
            [(
                ParcelField::Weight,
                "Enter a weight of at most 150 lb (2400 oz)".to_string()
            )]
        );
    }

    #[test]
    fn the_bounds_are_the_contracts() {
        // At, just past and below each bound: the form agrees with api::Parcel.
        for (weight, unit) in [
            ("2400", WeightUnit::Oz),
            ("2400.5", WeightUnit::Oz),
            ("150", WeightUnit::Lb),
            ("150.1", WeightUnit::Lb),
            ("-1", WeightUnit::Oz),
        ] {
            for side in ["108", "108.5", "0", "0.1"] {
                let d = draft(weight, unit, [side, "1", side]);
                let contract = Parcel {
                    weight_oz: weight.parse::<f64>().unwrap()
                        * if unit == WeightUnit::Lb { 16.0 } else { 1.0 },
                    length: side.parse().unwrap(),
                    width: 1.0,
                    height: side.parse().unwrap(),
                };
                assert_eq!(
                    d.to_parcel().is_some(),
                    contract.invalid_field().is_none(),
                    "{weight} {unit:?} {side}"
                );
            }
        }
    }
}
