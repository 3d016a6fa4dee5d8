use super::checks::{check_all, job_row};
use super::fixes::{FixGroup, fix_groups, parcel_rows, set_all, set_parcel};
use super::reading::{Readings, drafts, too_many};
use super::spreadsheet::{Merged, export_problem_rows, merge, template_csv};
use super::*;
use crate::batches::columns::recognition::recognise;
use crate::batches::sheet::read;
use api::{Address, Parcel};

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

const HEADER: &str =
    "reference,name,street1,street2,city,state,zip,country,phone,email,weight,length,width,height";

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
        "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,12,10,8,4\n,Bob,,,Queens,New York,,Untied States,,,heavy,10,8,200\n#1,Cy,2 Elm St,,Bronx,NY,10451,US,,,3 stone,10,8,4\n"
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
    assert_eq!(
        problems[1][3].text,
        "“Untied States” is not a country we know: enter its two-letter code or its name, such as US or United States"
    );
    let groups = fix_groups(&drafts, &problems);
    let rows = |field| {
        groups
            .iter()
            .find(|g| g.field == field)
            .map(|g| g.rows.clone())
    };
    assert_eq!(rows(Field::Reference), Some(vec![1, 2]));
    assert_eq!(rows(Field::Weight), Some(vec![1, 2]));
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
    let (mut drafts, readings) = drafts(&sheet, &mapping);
    assert_eq!((drafts.len(), readings.merged_lines), (2, 1));
    assert_eq!(drafts[1].line, 4);
    assert_eq!(drafts[0].get(Field::Weight), "500 g");
    let problems = check_all(&drafts);
    let groups = fix_groups(&drafts, &problems);
    assert_eq!(
        groups
            .iter()
            .map(|g| (g.field, g.rows.len()))
            .collect::<Vec<_>>(),
        [(Field::Length, 2), (Field::Width, 2), (Field::Height, 2)]
    );
    for g in &groups {
        set_all(&mut drafts, &g.rows, g.field, " 6 in ");
    }
    assert!(check_all(&drafts).iter().all(Vec::is_empty));
    let row = job_row(&drafts[0], &sender()).unwrap();
    assert_eq!(row.parcel.weight_oz, 17.64);
}

#[test]
fn a_package_preset_fills_the_sizes_and_weights_rows_lack() {
    // Row 1 has no sizes but a weight; row 2 neither; row 3 is ready.
    let (mut drafts, problems) = import(&format!(
        "{HEADER}\n#1,Ada,1 Elm St,,Brooklyn,NY,11201,US,,,500 g,,,\n#2,Bob,2 Elm St,,Queens,NY,11354,US,,,,,,\n#3,Cy,3 Elm St,,Queens,NY,11354,US,,,2 lb,10,8,4\n"
    ));
    let groups = fix_groups(&drafts, &problems);
    assert_eq!(parcel_rows(&groups), [0, 1]);
    let preset = Parcel {
        weight_oz: 14.0,
        length: 9.0,
        width: 6.0,
        height: 3.5,
    };
    set_parcel(&mut drafts, &groups, &preset);
    assert!(check_all(&drafts).iter().all(Vec::is_empty));
    let parcel = |i: usize| job_row(&drafts[i], &sender()).unwrap().parcel;
    assert_eq!(parcel(1), preset);
    // The weight the row had stays; only its sizes come from the preset.
    assert_eq!(
        parcel(0),
        Parcel {
            weight_oz: 17.64,
            ..preset
        }
    );
    assert_eq!(parcel(2).weight_oz, 32.0);
    assert_eq!(drafts[1].get(Field::Height), "3.5 in");
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
    let (rows, _) = super::reading::drafts(&fixed, &mapping);
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

/// Issue 19, part 4: store exports read as they are.
fn store_import(text: &str) -> (Vec<Draft>, Readings, Vec<Vec<Problem>>) {
    let sheet = read(text).unwrap();
    let (mapping, _) = recognise(&sheet.headers, &[]);
    let (drafts, readings) = drafts(&sheet, &mapping);
    let problems = check_all(&drafts);
    (drafts, readings, problems)
}

/// The address problems only: store exports carry no parcel sizes.
fn address_problems(problems: &[Vec<Problem>]) -> Vec<(usize, Field)> {
    problems
        .iter()
        .enumerate()
        .flat_map(|(i, ps)| ps.iter().map(move |p| (i, p.field)))
        .filter(|(_, f)| {
            !matches!(
                f,
                Field::Weight | Field::Length | Field::Width | Field::Height
            )
        })
        .collect()
}

const WOO: &str = "order_id,order_number,order_date,status,billing_first_name,billing_last_name,billing_email,billing_address_1,billing_postcode,billing_city,billing_state,billing_state_code,billing_country,shipping_first_name,shipping_last_name,shipping_address_1,shipping_address_2,shipping_postcode,shipping_city,shipping_state,shipping_state_code,shipping_country,shipping_company,item_name,item_quantity";

#[test]
fn woocommerce_state_codes_are_taken_over_state_names_and_item_rows_merge() {
    let text = format!(
        "{WOO}\n\
         201,201,2026-11-20,processing,Ada,L,ada@example.com,1 Bill St,33101,Miami,Florida,FL,US,Ada,L,1 Ocean Dr,,33139,Miami Beach,Florida,FL,US,,Mug,1\n\
         201,201,2026-11-20,processing,Ada,L,ada@example.com,1 Bill St,33101,Miami,Florida,FL,US,Ada,L,1 Ocean Dr,,33139,Miami Beach,Florida,FL,US,,Tea,2\n\
         202,202,2026-11-20,processing,Bo,K,bo@example.com,2 Bill St,10001,New York,New York,NY,US,Bo,K,2 Park Ave,Apt 3,10016,New York,New York,NY,US,,Mug,1\n"
    );
    let (drafts, readings, problems) = store_import(&text);
    assert_eq!(drafts.len(), 2);
    assert_eq!(readings.merged_lines, 1, "the order's second item row");
    assert_eq!(readings.regions.count, 0, "the code column was taken");
    assert_eq!(
        (drafts[0].get(Field::State), drafts[0].get(Field::Zip)),
        ("FL", "33139")
    );
    assert_eq!(drafts[1].get(Field::Name), "Bo K");
    assert_eq!(address_problems(&problems), []);
    // The same export without the code column (the extension's default
    // format): the names are read, and counted.
    let names_only = text
        .lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.remove(20);
            cells.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (drafts, readings, problems) = store_import(&names_only);
    assert_eq!(address_problems(&problems), []);
    assert_eq!(drafts[1].get(Field::State), "NY");
    assert_eq!(readings.regions.count, 2);
    assert_eq!(
        readings.describe(),
        ["Read 2 state names as codes (such as Florida → FL)."]
    );
    assert_eq!(
        readings.lines_into_rows(drafts.len()),
        "3 lines read into 2 rows: 1 further line item merged into its order"
    );
}

#[test]
fn etsy_country_names_are_read_and_only_the_impossible_is_a_problem() {
    let header = "Sale Date,Order ID,Buyer User ID,Full Name,First Name,Last Name,Number of Items,Payment Method,Date Shipped,Street 1,Street 2,Ship City,Ship State,Ship Zipcode,Ship Country,Currency,Order Value,Status,Buyer,Order Type,Payment Type,SKU";
    let text = format!(
        "{header}\n\
         11/20/26,3012345601,9001,Martha Giretti,Martha,Giretti,1,Credit Card,,57 S 3rd St,,Brooklyn,NY,11249,United States,USD,38.99,,marty,online,online_cc,BAT-1\n\
         11/20/26,3012345602,9002,Lee Chen,Lee,Chen,2,Credit Card,,88 Queen St W,,Toronto,Ontario,M5H 2M9,Canada,USD,21.00,,lee,online,online_cc,MUG-2\n\
         11/21/26,3012345603,9003,Sam Roe,Sam,Roe,1,Credit Card,,9 Elm St,,Austin,ZZ,78701,United States,USD,12.00,,sam,online,online_cc,\n\
         11/21/26,3012345604,9004,Kim Poe,Kim,Poe,1,Credit Card,,4 Oak St,,Reno,NV,89501,Untied States,USD,12.00,,kim,online,online_cc,\n"
    );
    let (drafts, readings, problems) = store_import(&text);
    assert_eq!(drafts[0].get(Field::Reference), "3012345601");
    assert_eq!(drafts[0].get(Field::Street1), "57 S 3rd St");
    assert_eq!(
        (drafts[1].get(Field::Country), drafts[1].get(Field::State)),
        ("CA", "ON")
    );
    assert_eq!(readings.countries.count, 3);
    assert_eq!(readings.regions.count, 1);
    // An impossible state, and a country nobody has: on their rows, as typed.
    assert_eq!(
        address_problems(&problems),
        [(2, Field::State), (3, Field::Country)]
    );
    assert_eq!(drafts[3].get(Field::Country), "Untied States");
    assert!(
        problems[2][0]
            .text
            .starts_with("“ZZ” is not a US state or territory")
    );
}

#[test]
fn shopify_zip_apostrophes_come_off_and_line_items_merge() {
    let header = "Name,Email,Financial Status,Paid at,Fulfillment Status,Lineitem quantity,Lineitem name,Billing Name,Billing Zip,Shipping Name,Shipping Street,Shipping Address1,Shipping Address2,Shipping Company,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Id,Shipping Province Name";
    let text = format!(
        "{header}\n\
         #1001,ada@example.com,paid,2026-11-20 10:00:00 -0500,,1,Mug,Ada L,'02134,Ada L,1 Main St,1 Main St,,,Boston,'02134,MA,US,,5550001,Massachusetts\n\
         #1001,ada@example.com,,,,2,Tea,,,,,,,,,,,,,,\n\
         #1002,bo@example.com,paid,2026-11-20 11:00:00 -0500,,1,Mug,Bo K,'07030,Bo K,5 River St,5 River St,,,Hoboken,'07030,NJ,US,,5550002,New Jersey\n"
    );
    let (drafts, readings, problems) = store_import(&text);
    assert_eq!(drafts.len(), 2);
    assert_eq!(readings.merged_lines, 1);
    assert_eq!(
        (drafts[0].get(Field::Zip), drafts[1].get(Field::Zip)),
        ("02134", "07030")
    );
    assert_eq!(
        drafts[0].get(Field::State),
        "MA",
        "the code column, not the name's"
    );
    assert_eq!(readings.zip_apostrophes.count, 2);
    assert_eq!(address_problems(&problems), []);
    assert!(
        readings.describe()[0]
            .starts_with("2 ZIP codes began with a spreadsheet's apostrophe (such as '02134)")
    );
}

#[test]
fn a_mixed_file_is_fixed_one_wrong_value_at_a_time() {
    let text = format!(
        "{HEADER}\n\
         #1,A,1 Elm,,B,NY,11201,Untied States,,,12,10,8,4\n\
         #2,B,1 Elm,,B,ON,M5H 2M9,Canda,,,12,10,8,4\n\
         #3,C,1 Elm,,B,NY,11201,Untied States,,,12,10,8,4\n\
         #4,D,1 Elm,,B,Florida,33101,,,,12,10,8,4\n\
         #5,E,1 Elm,,B,Ontario,10001,US,,,12,10,8,4\n\
         #6,F,1 Elm,,B,ON,10002,US,,,12,10,8,4\n"
    );
    let (mut drafts, problems) = import(&text);
    let groups = fix_groups(&drafts, &problems);
    let group = |field, value: &str, country: Option<&str>, rows: Vec<usize>| FixGroup {
        field,
        value: Some(value.into()),
        country: country.map(Into::into),
        rows,
    };
    assert_eq!(
        groups,
        [
            group(Field::State, "Ontario", Some("US"), vec![4]),
            group(Field::State, "ON", Some("US"), vec![5]),
            group(Field::Country, "Untied States", None, vec![0, 2]),
            group(Field::Country, "Canda", None, vec![1]),
            group(Field::Country, "", None, vec![3]),
        ]
    );
    // Three edits fix the countries; the state named "Florida" is read
    // once its row has a country.
    for (g, value) in groups[2..].iter().zip(["United States", "Canada", "US"]) {
        set_all(&mut drafts, &g.rows, g.field, value);
    }
    assert_eq!(drafts[3].get(Field::State), "FL");
    assert_eq!(drafts[1].get(Field::Country), "CA");
    let problems = check_all(&drafts);
    assert_eq!(
        address_problems(&problems),
        [(4, Field::State), (5, Field::State)]
    );
    drafts[4].fix(Field::State, "new york");
    assert_eq!(drafts[4].get(Field::State), "NY");
}
