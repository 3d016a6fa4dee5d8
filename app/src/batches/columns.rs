//! What a file's columns mean: our fields, the header names of our
//! template and of common store order exports, and the merchant's own
//! mappings (saved in this browser by the file's headers).
//!
//! Headers are compared normalised: lower case, letters and digits only
//! (`Shipping Address 1`, `shipping_address1` and `ship-address-1` are
//! `shippingaddress1` and `shipaddress1`). The known exports:
//!
//! | export | reference | recipient | street | city, state, zip, country | weight |
//! |---|---|---|---|---|---|
//! | our template | `reference` | `name` | `street1`, `street2` | `city`, `state`, `zip`, `country` | `weight` (+ `weight_unit`) |
//! | Shopify orders | `Name` (#1001) | `Shipping Name` | `Shipping Address1`/`Shipping Street`, `Shipping Address2` | `Shipping City`, `Shipping Province` (a code; not `Shipping Province Name`), `Shipping Zip` (`'02134`), `Shipping Country` | `Total Weight` (grams) |
//! | WooCommerce orders (Customer/Order CSV Export) | `order_number`/`order_id` | `shipping_first_name` + `shipping_last_name` | `shipping_address_1`, `shipping_address_2` | `shipping_city`, `shipping_state_code` over `shipping_state` (a name), `shipping_postcode`, `shipping_country` | `Weight` |
//! | eBay orders report | `Order Number` | `Ship To Name` | `Ship To Address 1`, `Ship To Address 2` | `Ship To City`, `Ship To State`, `Ship To Zip`, `Ship To Country` | — |
//! | Etsy Sold Orders / Sold Order Items | `Order ID` | `Full Name` / `Ship Name` | `Street 1` / `Ship Address1`, … | `Ship City`, `Ship State`, `Ship Zipcode`, `Ship Country` (a name: `United States`) | — |
//! | Amazon unshipped orders (TSV) | `order-id` | `recipient-name` | `ship-address-1`, `ship-address-2` | `ship-city`, `ship-state`, `ship-postal-code`, `ship-country` | — |
//!
//! Where a file has a region or country both as a name and as a code, the
//! code column is taken; names are read as codes anyway (`rows`). Exports
//! without a weight or sizes leave those to the merchant: the rows then
//! show the missing field, fixed for all of them at once.

use super::units::{LengthUnit, WeightUnit};
use serde::{Deserialize, Serialize};

/// A shipment's fields as the rows hold them (the template's columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Reference,
    Name,
    Street1,
    Street2,
    City,
    State,
    Zip,
    Country,
    Phone,
    Email,
    Weight,
    Length,
    Width,
    Height,
}

pub const FIELD_COUNT: usize = 14;

impl Field {
    pub const ALL: [Field; FIELD_COUNT] = [
        Field::Reference,
        Field::Name,
        Field::Street1,
        Field::Street2,
        Field::City,
        Field::State,
        Field::Zip,
        Field::Country,
        Field::Phone,
        Field::Email,
        Field::Weight,
        Field::Length,
        Field::Width,
        Field::Height,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The template's header.
    pub fn key(self) -> &'static str {
        match self {
            Field::Reference => "reference",
            Field::Name => "name",
            Field::Street1 => "street1",
            Field::Street2 => "street2",
            Field::City => "city",
            Field::State => "state",
            Field::Zip => "zip",
            Field::Country => "country",
            Field::Phone => "phone",
            Field::Email => "email",
            Field::Weight => "weight",
            Field::Length => "length",
            Field::Width => "width",
            Field::Height => "height",
        }
    }

    /// How the screens name it.
    pub fn label(self) -> &'static str {
        match self {
            Field::Reference => "Reference",
            Field::Name => "Recipient name",
            Field::Street1 => "Street address",
            Field::Street2 => "Address line 2",
            Field::City => "City",
            Field::State => "State",
            Field::Zip => "ZIP code",
            Field::Country => "Country",
            Field::Phone => "Phone",
            Field::Email => "Email",
            Field::Weight => "Weight",
            Field::Length => "Length",
            Field::Width => "Width",
            Field::Height => "Height",
        }
    }

    /// Every row needs it.
    pub fn required(self) -> bool {
        !matches!(self, Field::Street2 | Field::Phone | Field::Email)
    }

    /// What the template's column holds, for the column guide.
    pub fn guide(self) -> &'static str {
        match self {
            Field::Reference => {
                "Your order number, unique in the file (at most 100 characters). Results come back under it."
            }
            Field::Name => "The recipient's name.",
            Field::Street1 => "Street and number.",
            Field::Street2 => "Optional: apartment, suite, floor.",
            Field::City => "City.",
            Field::State => "Two-letter state code in the US (CA); the region elsewhere.",
            Field::Zip => "ZIP or postal code.",
            Field::Country => "Two-letter country code (US).",
            Field::Phone => "Optional: the recipient's phone number.",
            Field::Email => "Optional: the recipient's email.",
            Field::Weight => {
                "A number, with a unit if not weight_unit's: 12, 12 oz, 1.5 lb, 500 g, 0.5 kg."
            }
            Field::Length | Field::Width | Field::Height => {
                "A number, with a unit if not dimension_unit's: 10, 10 in, 25 cm."
            }
        }
    }

    pub fn example(self) -> &'static str {
        match self {
            Field::Reference => "#1001",
            Field::Name => "Ada Lovelace",
            Field::Street1 => "12 Elm Street",
            Field::Street2 => "Apt 4",
            Field::City => "Brooklyn",
            Field::State => "NY",
            Field::Zip => "11201",
            Field::Country => "US",
            Field::Phone => "+1 555 0100",
            Field::Email => "ada@example.com",
            Field::Weight => "1.5",
            Field::Length => "10",
            Field::Width => "8",
            Field::Height => "4",
        }
    }
}

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

/// Where a file's mapping came from, for the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Template,
    Shopify,
    WooCommerce,
    Ebay,
    Etsy,
    Amazon,
    /// Headers we know some of.
    Recognised,
    /// The merchant's mapping for exactly these headers.
    Saved,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Template => "our template",
            Source::Shopify => "a Shopify orders export",
            Source::WooCommerce => "a WooCommerce orders export",
            Source::Ebay => "an eBay orders report",
            Source::Etsy => "an Etsy orders export",
            Source::Amazon => "an Amazon orders report",
            Source::Recognised => "column names we know",
            Source::Saved => "the mapping you saved for these columns",
        }
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

/// A unit a header names (`Weight (g)`, Shopify's grams).
#[derive(Clone, Copy)]
enum Unit {
    Any,
    Weight(WeightUnit),
    Length(LengthUnit),
}

/// Each column's header names, best first: a file with both Shopify's
/// `Shipping Address1` and `Shipping Street` takes the first for street1.
/// Billing columns are never taken.
const ALIASES: &[(Column, &[(&str, Unit)])] = {
    use LengthUnit::*;
    use Unit::*;
    use WeightUnit::*;
    &[
        (
            Column::Reference,
            &[
                ("reference", Any),
                ("ref", Any),
                ("orderreference", Any),
                ("ordernumber", Any),
                ("orderno", Any),
                ("ordername", Any),
                ("orderid", Any),
                ("order", Any),
            ],
        ),
        (
            Column::Name,
            &[
                ("shippingname", Any),
                ("shiptoname", Any),
                ("shipname", Any),
                ("recipientname", Any),
                ("recipient", Any),
                ("shippingfullname", Any),
                ("fullname", Any),
            ],
        ),
        (
            Column::FirstName,
            &[("shippingfirstname", Any), ("firstname", Any)],
        ),
        (
            Column::LastName,
            &[("shippinglastname", Any), ("lastname", Any)],
        ),
        (
            Column::Company,
            &[
                ("shippingcompany", Any),
                ("shiptocompany", Any),
                ("company", Any),
            ],
        ),
        (
            Column::Street1,
            &[
                ("street1", Any),
                ("shippingaddress1", Any),
                ("shippingaddressline1", Any),
                ("shiptoaddress1", Any),
                ("shipaddress1", Any),
                ("address1", Any),
                ("addressline1", Any),
                ("shippingstreet", Any),
                ("street", Any),
                ("address", Any),
            ],
        ),
        (
            Column::Street2,
            &[
                ("street2", Any),
                ("shippingaddress2", Any),
                ("shippingaddressline2", Any),
                ("shiptoaddress2", Any),
                ("shipaddress2", Any),
                ("address2", Any),
                ("addressline2", Any),
            ],
        ),
        (
            Column::City,
            &[
                ("city", Any),
                ("shippingcity", Any),
                ("shiptocity", Any),
                ("shipcity", Any),
                ("town", Any),
            ],
        ),
        (
            Column::State,
            // Codes before names: WooCommerce exports `shipping_state`
            // ("Florida") beside `shipping_state_code` ("FL").
            &[
                ("statecode", Any),
                ("shippingstatecode", Any),
                ("shippingprovincecode", Any),
                ("shiptostatecode", Any),
                ("provincecode", Any),
                ("regioncode", Any),
                ("state", Any),
                ("shippingprovince", Any),
                ("shippingstate", Any),
                ("shiptostate", Any),
                ("shipstate", Any),
                ("province", Any),
                ("region", Any),
            ],
        ),
        (
            Column::Zip,
            &[
                ("zip", Any),
                ("shippingzip", Any),
                ("shippingpostcode", Any),
                ("shippingpostalcode", Any),
                ("shiptozip", Any),
                ("shipzipcode", Any),
                ("shipzip", Any),
                ("shippostalcode", Any),
                ("zipcode", Any),
                ("postcode", Any),
                ("postalcode", Any),
            ],
        ),
        (
            Column::Country,
            &[
                ("countrycode", Any),
                ("shippingcountrycode", Any),
                ("shiptocountrycode", Any),
                ("country", Any),
                ("shippingcountry", Any),
                ("shiptocountry", Any),
                ("shipcountry", Any),
            ],
        ),
        (
            Column::Phone,
            &[
                ("shippingphone", Any),
                ("shiptophone", Any),
                ("shipphonenumber", Any),
                ("phone", Any),
                ("phonenumber", Any),
            ],
        ),
        (
            Column::Email,
            &[
                ("email", Any),
                ("customeremail", Any),
                ("buyeremail", Any),
                ("billingemail", Any),
            ],
        ),
        (
            Column::Weight,
            &[
                ("weight", Any),
                ("weightoz", Weight(Oz)),
                ("weightounces", Weight(Oz)),
                ("weightlb", Weight(Lb)),
                ("weightlbs", Weight(Lb)),
                ("weightpounds", Weight(Lb)),
                ("weightg", Weight(G)),
                ("weightgrams", Weight(G)),
                ("weightkg", Weight(Kg)),
                // Shopify's orders export: the order's weight in grams.
                ("totalweight", Weight(G)),
                ("shippingweight", Any),
                ("packageweight", Any),
            ],
        ),
        (
            Column::WeightUnit,
            &[("weightunit", Any), ("weightuom", Any)],
        ),
        (
            Column::Length,
            &[
                ("length", Any),
                ("lengthin", Length(In)),
                ("lengthcm", Length(Cm)),
                ("packagelength", Any),
            ],
        ),
        (
            Column::Width,
            &[
                ("width", Any),
                ("widthin", Length(In)),
                ("widthcm", Length(Cm)),
                ("packagewidth", Any),
            ],
        ),
        (
            Column::Height,
            &[
                ("height", Any),
                ("heightin", Length(In)),
                ("heightcm", Length(Cm)),
                ("packageheight", Any),
            ],
        ),
        (
            Column::DimensionUnit,
            &[
                ("dimensionunit", Any),
                ("dimensionsunit", Any),
                ("lengthunit", Any),
                ("dimensionuom", Any),
            ],
        ),
    ]
};

/// Which known export the headers are (for the screen only).
fn export_of(headers: &[String]) -> Option<Source> {
    let has = |h: &str| headers.iter().any(|x| x == h);
    if has("reference") && has("street1") {
        Some(Source::Template)
    } else if has("shippingaddress1") && (has("lineitemname") || has("financialstatus")) {
        Some(Source::Shopify)
    } else if has("shippingfirstname") && has("shippingpostcode") {
        Some(Source::WooCommerce)
    } else if has("shiptoname") && has("shiptoaddress1") {
        Some(Source::Ebay)
    } else if has("shipzipcode") && (has("shipname") || has("fullname")) {
        Some(Source::Etsy)
    } else if has("recipientname") && has("shippostalcode") {
        Some(Source::Amazon)
    } else {
        None
    }
}

/// The mapping the headers suggest, and where it came from (`None`: we
/// know none of them).
pub fn recognise(headers: &[String], saved: &[SavedMapping]) -> (Mapping, Option<Source>) {
    let sig = signature(headers);
    if let Some(s) = saved.iter().find(|s| s.signature == sig) {
        return (s.mapping.clone(), Some(Source::Saved));
    }
    let normal: Vec<String> = headers.iter().map(|h| normalise(h)).collect();
    // In a store's export a bare `Name` is the order's name (Shopify's
    // #1001); in our template it is the recipient's.
    let store = normal
        .iter()
        .any(|h| h.starts_with("shipping") || h.starts_with("ship"));
    let mut mapping = Mapping {
        columns: vec![None; headers.len()],
        weight_unit: WeightUnit::Oz,
        length_unit: LengthUnit::In,
    };
    let extra_name: &[(&str, Unit)] = &[("name", Unit::Any)];
    for (column, aliases) in ALIASES {
        let bare_name = match column {
            Column::Reference if store => extra_name,
            Column::Name if !store => extra_name,
            _ => &[],
        };
        let found = aliases.iter().chain(bare_name).find_map(|(alias, unit)| {
            normal
                .iter()
                .enumerate()
                .find(|(i, h)| h == alias && mapping.columns[*i].is_none())
                .map(|(i, _)| (i, *unit))
        });
        if let Some((i, unit)) = found {
            mapping.columns[i] = Some(*column);
            match unit {
                Unit::Weight(u) => mapping.weight_unit = u,
                Unit::Length(u) => mapping.length_unit = u,
                Unit::Any => {}
            }
        }
    }
    let known = mapping.columns.iter().any(Option::is_some);
    let source = export_of(&normal).or(known.then_some(Source::Recognised));
    (mapping, source)
}

/// A mapping the merchant confirmed, for files with the same headers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMapping {
    pub signature: String,
    pub mapping: Mapping,
}

/// The headers, normalised, in order: a file from the same export has the same.
pub fn signature(headers: &[String]) -> String {
    headers
        .iter()
        .map(|h| normalise(h))
        .collect::<Vec<_>>()
        .join(",")
}

/// At most this many mappings are kept; the oldest is dropped.
pub const MAX_SAVED: usize = 20;

/// `saved` with `mapping` for `headers` first.
pub fn remember(
    mut saved: Vec<SavedMapping>,
    headers: &[String],
    mapping: Mapping,
) -> Vec<SavedMapping> {
    let signature = signature(headers);
    saved.retain(|s| s.signature != signature);
    saved.insert(0, SavedMapping { signature, mapping });
    saved.truncate(MAX_SAVED);
    saved
}

const SAVED_KEY: &str = "parcel.batch-mappings";

pub fn load_saved() -> Vec<SavedMapping> {
    crate::state::stored::load(SAVED_KEY)
}

pub fn store_saved(saved: &[SavedMapping]) {
    crate::state::stored::store(SAVED_KEY, saved);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(line: &str) -> Vec<String> {
        line.split(',').map(str::to_string).collect()
    }

    fn mapped(line: &str) -> Vec<(String, Column)> {
        let h = headers(line);
        let (m, _) = recognise(&h, &[]);
        h.into_iter()
            .zip(m.columns)
            .filter_map(|(h, c)| c.map(|c| (h, c)))
            .collect()
    }

    #[test]
    fn our_template_maps_every_column() {
        let line = "reference,name,street1,street2,city,state,zip,country,phone,email,weight,weight_unit,length,width,height,dimension_unit";
        let (m, source) = recognise(&headers(line), &[]);
        assert_eq!(source, Some(Source::Template));
        assert!(m.columns.iter().all(Option::is_some));
        assert!(m.missing().is_empty());
        assert_eq!(m.position(Column::Name), Some(1));
    }

    #[test]
    fn shopify_name_is_the_order_and_grams_are_the_weight_unit() {
        let line = "Name,Email,Financial Status,Lineitem name,Billing Name,Billing Street,Billing City,Shipping Name,Shipping Street,Shipping Address1,Shipping Address2,Shipping Company,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Total Weight";
        let (m, source) = recognise(&headers(line), &[]);
        assert_eq!(source, Some(Source::Shopify));
        let got = mapped(line);
        assert!(got.contains(&("Name".into(), Column::Reference)));
        assert!(got.contains(&("Shipping Name".into(), Column::Name)));
        assert!(got.contains(&("Shipping Address1".into(), Column::Street1)));
        assert!(got.contains(&("Shipping Province".into(), Column::State)));
        assert!(got.contains(&("Total Weight".into(), Column::Weight)));
        assert!(!got.iter().any(|(h, _)| h.starts_with("Billing")));
        assert!(
            !got.iter().any(|(h, _)| h == "Shipping Street"),
            "Address1 wins"
        );
        assert_eq!(m.weight_unit, WeightUnit::G);
        assert_eq!(m.missing(), [Field::Length, Field::Width, Field::Height]);
        assert_eq!(
            m.source_of(Field::Zip, &headers(line)).as_deref(),
            Some("Shipping Zip")
        );
    }

    #[test]
    fn woocommerce_ebay_etsy_and_amazon() {
        let woo = "Order Number,Order Status,Shipping First Name,Shipping Last Name,Shipping Company,Shipping Address 1,Shipping Address 2,Shipping City,Shipping State,Shipping Postcode,Shipping Country";
        let (m, source) = recognise(&headers(woo), &[]);
        assert_eq!(source, Some(Source::WooCommerce));
        assert_eq!(m.position(Column::Reference), Some(0));
        assert_eq!(m.position(Column::FirstName), Some(2));
        assert_eq!(m.position(Column::Zip), Some(9));
        assert_eq!(
            m.source_of(Field::Name, &headers(woo)).as_deref(),
            Some("Shipping First Name + Shipping Last Name")
        );
        let ebay = "Sales Record Number,Order Number,Ship To Name,Ship To Address 1,Ship To City,Ship To State,Ship To Zip,Ship To Country";
        assert_eq!(recognise(&headers(ebay), &[]).1, Some(Source::Ebay));
        assert!(mapped(ebay).contains(&("Order Number".into(), Column::Reference)));
        let etsy =
            "Order ID,Ship Name,Ship Address1,Ship City,Ship State,Ship Zipcode,Ship Country";
        assert_eq!(recognise(&headers(etsy), &[]).1, Some(Source::Etsy));
        let amazon = "order-id,recipient-name,ship-address-1,ship-city,ship-state,ship-postal-code,ship-country";
        let (m, source) = recognise(&headers(amazon), &[]);
        assert_eq!(source, Some(Source::Amazon));
        assert_eq!(m.position(Column::Street1), Some(2));
    }

    #[test]
    fn code_columns_are_taken_over_name_columns() {
        let woo = "order_id,order_number,billing_state,billing_state_code,billing_country,shipping_first_name,shipping_last_name,shipping_address_1,shipping_postcode,shipping_city,shipping_state,shipping_state_code,shipping_country";
        let (m, source) = recognise(&headers(woo), &[]);
        assert_eq!(source, Some(Source::WooCommerce));
        assert!(mapped(woo).contains(&("shipping_state_code".into(), Column::State)));
        assert!(mapped(woo).contains(&("shipping_country".into(), Column::Country)));
        assert_eq!(m.position(Column::Reference), Some(1), "order_number");
        let shopify = "Name,Financial Status,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Phone,Shipping Phone,Shipping Province Name";
        let got = mapped(shopify);
        assert!(got.contains(&("Shipping Province".into(), Column::State)));
        assert!(got.contains(&("Shipping Phone".into(), Column::Phone)));
        assert!(!got.iter().any(|(h, _)| h == "Shipping Province Name"));
        let etsy = "Sale Date,Order ID,Buyer User ID,Full Name,First Name,Last Name,Street 1,Street 2,Ship City,Ship State,Ship Zipcode,Ship Country";
        let (m, source) = recognise(&headers(etsy), &[]);
        assert_eq!(source, Some(Source::Etsy), "Etsy's Sold Orders");
        assert_eq!(m.position(Column::Name), Some(3));
        assert_eq!(m.position(Column::Street1), Some(6));
        assert!(m.missing().iter().all(|f| matches!(
            f,
            Field::Weight | Field::Length | Field::Width | Field::Height
        )));
    }

    #[test]
    fn unknown_headers_map_to_nothing_until_saved() {
        let own = headers("Auftrag,Empfänger,Strasse,Ort,Land,PLZ,Bundesland,Gewicht (kg),L,B,H");
        let (m, source) = recognise(&own, &[]);
        assert_eq!(source, None);
        assert!(m.columns.iter().all(Option::is_none));
        let mut fixed = m.clone();
        for (i, c) in [
            Column::Reference,
            Column::Name,
            Column::Street1,
            Column::City,
            Column::Country,
            Column::Zip,
            Column::State,
            Column::Weight,
            Column::Length,
            Column::Width,
            Column::Height,
        ]
        .into_iter()
        .enumerate()
        {
            fixed.columns[i] = Some(c);
        }
        fixed.weight_unit = WeightUnit::Kg;
        let saved = remember(vec![], &own, fixed.clone());
        // The same export next week, headers spelled the same: remembered.
        let again = headers("auftrag,empfänger,strasse,ort,land,plz,bundesland,gewicht kg,l,b,h");
        assert_eq!(signature(&again), signature(&own));
        assert_eq!(
            recognise(&again, &saved),
            (fixed.clone(), Some(Source::Saved))
        );
        let saved = remember(saved, &own, fixed);
        assert_eq!(saved.len(), 1, "one mapping per set of headers");
    }

    #[test]
    fn units_named_in_headers() {
        let (m, _) = recognise(&headers("reference,name,weight (lb),length (cm)"), &[]);
        assert_eq!(m.weight_unit, WeightUnit::Lb);
        assert_eq!(m.length_unit, LengthUnit::Cm);
        assert_eq!(Column::parse("weight_unit"), Some(Column::WeightUnit));
        assert!(
            Column::ALL
                .iter()
                .all(|c| Column::parse(c.key()) == Some(*c))
        );
    }
}
