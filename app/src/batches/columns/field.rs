//! Our fields: a shipment's fields as the rows hold them, which are the
//! template's columns, with their names, labels and the column guide.

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
