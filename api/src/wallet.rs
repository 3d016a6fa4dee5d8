use serde::{Deserialize, Serialize};

crate::names! {
    /// The card on file that auto-reload charges.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CardState {
        Ok = "ok",
        Declined = "declined",
        Missing = "missing",
    }
}

/// When the balance cannot cover a purchase, the card is charged `amount_cents`
/// (repeatedly if needed) so that the balance stays above `threshold_cents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoReload {
    pub threshold_cents: i64,
    pub amount_cents: i64,
}

impl AutoReload {
    /// How many times the card is charged `amount_cents` for a purchase of
    /// `cost_cents` from `balance_cents`: none when the balance covers it,
    /// else as many as keep the balance at or above the threshold after it.
    /// (Our reading of "can auto-reload from a card on file"; sim/README.md.)
    pub fn charges_for(&self, balance_cents: i64, cost_cents: i64) -> i64 {
        if balance_cents >= cost_cents {
            return 0;
        }
        let step = self.amount_cents.max(1);
        let needed = self
            .threshold_cents
            .max(0)
            .saturating_add(cost_cents)
            .saturating_sub(balance_cents);
        needed.saturating_add(step - 1) / step
    }
}

/// `GET /v1/wallet` (field names are our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wallet {
    pub balance_cents: i64,
    pub currency: String,
    /// True for a sandbox key: nothing is charged.
    pub sandbox: bool,
    /// True when the wallet never runs out (sandbox).
    pub unlimited: bool,
    #[serde(default)]
    pub auto_reload: Option<AutoReload>,
    pub card: CardState,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reload_charges_keep_the_threshold() {
        let r = AutoReload {
            threshold_cents: 1_000,
            amount_cents: 2_500,
        };
        assert_eq!(r.charges_for(5_000, 4_000), 0);
        // 500 - 1,200 = -700; +2,500 = 1,800 >= 1,000: once.
        assert_eq!(r.charges_for(500, 1_200), 1);
        // 0 - 9,000: needs 10,000 to stay at 1,000: four charges.
        assert_eq!(r.charges_for(0, 9_000), 4);
        let zero = AutoReload {
            threshold_cents: -5,
            amount_cents: 0,
        };
        assert_eq!(zero.charges_for(0, 3), 3);
    }
}
