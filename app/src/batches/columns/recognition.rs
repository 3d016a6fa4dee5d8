//! Recognising a file's columns by their headers: the header names of our
//! template and of common store order exports, and the merchant's own
//! mappings (`saved`), which come first.
//!
//! Headers are compared normalised (`super::normalise`). The known exports:
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

use super::saved::{SavedMapping, signature};
use super::{Column, Mapping, normalise};
use crate::batches::units::{LengthUnit, WeightUnit};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batches::columns::field::Field;
    use crate::batches::columns::saved::remember;

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
