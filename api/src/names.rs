//! Enums whose variants travel as plain strings (`"in_batch"`, `"live"`).
//! `names!` states each variant's wire name once and gives the enum
//! `as_str`, `from_name`, `ALL` and its serde impls. Why not serde's
//! derive: the derive builds a visitor per enum and per format (string,
//! bytes, index and map forms), about 1.3 KiB of wasm each, in both the
//! dashboard and the Worker; these read one `String` (one copy per format
//! for all of them) and look the name up.

/// Declares a string-named enum: `Variant = "wire_name"` per variant.
#[macro_export]
macro_rules! names {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($wire),+].len()] = [$($name::$variant),+];

            /// The wire names, in declaration order: the one table that
            /// `as_str`, `from_name` and an unknown name's error read (a
            /// `match` on the names would link each table twice).
            pub const NAMES: [&'static str; [$($wire),+].len()] = [$($wire),+];

            /// Its name on the wire.
            pub const fn as_str(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// The variant with this wire name.
            pub fn from_name(name: &str) -> Option<Self> {
                let i = Self::NAMES.iter().position(|n| *n == name)?;
                Some(Self::ALL[i])
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <::std::string::String as ::serde::Deserialize>::deserialize(d)?;
                $name::from_name(&name).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::unknown_variant(&name, &Self::NAMES)
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    names! {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Light {
            Red = "red",
            /// Documented variants keep their docs.
            AmberFlashing = "amber_flashing",
        }
    }

    #[test]
    fn round_trips_and_names_the_expected_on_an_unknown_name() {
        assert_eq!(Light::ALL, [Light::Red, Light::AmberFlashing]);
        for light in Light::ALL {
            let json = serde_json::to_string(&light).unwrap();
            assert_eq!(json, format!("\"{}\"", light.as_str()));
            assert_eq!(serde_json::from_str::<Light>(&json).unwrap(), light);
        }
        let err = serde_json::from_str::<Light>("\"green\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown variant `green`, expected `red` or `amber_flashing`"),
            "{err}"
        );
        assert!(serde_json::from_str::<Light>("1").is_err());
        // Escaped and owned strings (a parsed Value) read the same.
        assert_eq!(
            serde_json::from_str::<Light>("\"r\\u0065d\"").unwrap(),
            Light::Red
        );
        assert_eq!(
            serde_json::from_value::<Light>(serde_json::json!("red")).unwrap(),
            Light::Red
        );
    }
}
