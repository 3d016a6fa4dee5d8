use api::Parcel;
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

    /// The contract's parcel (weight in ounces), or the first problem as
    /// `(field label, reason)`; bounds come from `api::Parcel`.
    pub fn to_parcel(&self) -> Result<Parcel, (&'static str, String)> {
        let num = |label: &'static str, s: &str| -> Result<f64, (&'static str, String)> {
            s.trim()
                .parse::<f64>()
                .map_err(|_| (label, "enter a number".to_string()))
        };
        let weight = num("Weight", &self.weight)?;
        let parcel = Parcel {
            weight_oz: match self.unit {
                WeightUnit::Oz => weight,
                WeightUnit::Lb => weight * 16.0,
            },
            length: num("Length", &self.length)?,
            width: num("Width", &self.width)?,
            height: num("Height", &self.height)?,
        };
        match parcel.invalid_field() {
            None => Ok(parcel),
            Some((field, reason)) => {
                let label = match field {
                    "weight_oz" => "Weight",
                    "length" => "Length",
                    "width" => "Width",
                    _ => "Height",
                };
                let reason = if field == "weight_oz" && reason.contains("2400") {
                    "must be at most 2400 oz (150 lb)".to_string()
                } else {
                    reason.to_string()
                };
                Err((label, reason))
            }
        }
    }
}

/// Weight (oz or lb), dimensions (in) and presets.
#[component]
pub fn ParcelForm(parcel: RwSignal<ParcelDraft>, on_edit: Callback<()>) -> impl IntoView {
    let dim = move |id: &'static str,
                    label: &'static str,
                    get: fn(&ParcelDraft) -> String,
                    set: fn(&mut ParcelDraft, String)| {
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
                    prop:value=move || parcel.with(get)
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        parcel.update(|p| set(p, v));
                        on_edit.run(());
                    }
                />
            </div>
        }
    };
    let problem = move || parcel.with(|p| p.to_parcel().err());
    view! {
        <fieldset class="parcel-form">
            <legend>"Parcel"</legend>
            <div class="field">
                <label for="parcel-preset">"Preset"</label>
                <select
                    id="parcel-preset"
                    on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>()
                            && let Some(p) = PRESETS.get(i)
                        {
                            parcel.set(ParcelDraft::from_preset(p));
                            on_edit.run(());
                        }
                    }
                >
                    <option value="">"Custom size"</option>
                    {PRESETS.iter().enumerate().map(|(i, p)| view! { <option value=i.to_string()>{p.name}</option> }).collect_view()}
                </select>
            </div>
            <div class="parcel-grid">
                <div class="field">
                    <label for="parcel-weight">"Weight"</label>
                    <input
                        id="parcel-weight"
                        type="number"
                        inputmode="decimal"
                        min="0"
                        step="any"
                        required
                        prop:value=move || parcel.with(|p| p.weight.clone())
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            parcel.update(|p| p.weight = v);
                            on_edit.run(());
                        }
                    />
                </div>
                <div class="field">
                    <label for="parcel-unit">"Weight unit"</label>
                    <select
                        id="parcel-unit"
                        prop:value=move || if parcel.with(|p| p.unit) == WeightUnit::Lb { "lb" } else { "oz" }
                        on:change=move |ev| {
                            let unit = if event_target_value(&ev) == "lb" { WeightUnit::Lb } else { WeightUnit::Oz };
                            parcel.update(|p| p.unit = unit);
                            on_edit.run(());
                        }
                    >
                        <option value="oz">"oz"</option>
                        <option value="lb">"lb"</option>
                    </select>
                </div>
                {dim("parcel-length", "Length (in)", |p| p.length.clone(), |p, v| p.length = v)}
                {dim("parcel-width", "Width (in)", |p| p.width.clone(), |p, v| p.width = v)}
                {dim("parcel-height", "Height (in)", |p| p.height.clone(), |p, v| p.height = v)}
            </div>
            {move || problem().map(|(field, reason)| view! {
                <p class="field-problem" id="parcel-problem">{format!("{field} {reason}.")}</p>
            })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pounds_become_ounces_and_bounds_apply() {
        let mut d = ParcelDraft::from_preset(&PRESETS[1]);
        assert_eq!(d.to_parcel().unwrap().weight_oz, 32.0);
        d.unit = WeightUnit::Oz;
        assert_eq!(d.to_parcel().unwrap().weight_oz, 2.0);
        d.weight = "200".into();
        d.unit = WeightUnit::Lb;
        assert_eq!(d.to_parcel().unwrap_err().0, "Weight");
        d.weight = "1".into();
        d.height = "0".into();
        assert_eq!(
            d.to_parcel().unwrap_err(),
            ("Height", "must be a number greater than 0".into())
        );
        d.height = "x".into();
        assert_eq!(d.to_parcel().unwrap_err().1, "enter a number");
    }
}
