use std::fmt;
use std::str::FromStr;

crate::names! {
    /// The nine key scopes of part 5.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Scope {
        RatesRead = "rates:read",
        LabelsWrite = "labels:write",
        LabelsRead = "labels:read",
        TrackingRead = "tracking:read",
        AddressesRead = "addresses:read",
        CarrierAccountsRead = "carrier-accounts:read",
        BatchesWrite = "batches:write",
        BatchesRead = "batches:read",
        WalletRead = "wallet:read",
    }
}

impl Scope {
    /// True for the `*:read` scopes, which spend no money and change nothing.
    pub fn is_read(self) -> bool {
        self.as_str().ends_with(":read")
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scope::from_name(s).ok_or_else(|| format!("unknown scope {s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for scope in Scope::ALL {
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{}\"", scope.as_str()));
            assert_eq!(serde_json::from_str::<Scope>(&json).unwrap(), scope);
            assert_eq!(scope.as_str().parse::<Scope>().unwrap(), scope);
        }
        assert!("labels:delete".parse::<Scope>().is_err());
    }

    #[test]
    fn write_scopes_are_not_reads() {
        let writes: Vec<_> = Scope::ALL.into_iter().filter(|s| !s.is_read()).collect();
        assert_eq!(writes, vec![Scope::LabelsWrite, Scope::BatchesWrite]);
    }
}
