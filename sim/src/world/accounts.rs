//! Accounts: the prepaid wallet and its rules, the webhook settings and the
//! connected (BYOA) carrier accounts.

use api::{AutoReload, CardState, CarrierAccount, CarrierAccountStatus, ErrorCode, KeyEnv, Wallet};

use super::{SANDBOX_BALANCE_CENTS, World};
use crate::errors::SimError;

#[derive(Debug, Clone)]
pub struct Account {
    pub balance_cents: i64,
    pub card: CardState,
    pub auto_reload: Option<AutoReload>,
    /// (URL, secret) of `label.created` deliveries.
    pub webhook: Option<(String, String)>,
    pub carrier_accounts: Vec<CarrierAccountRecord>,
}

#[derive(Debug, Clone)]
pub struct CarrierAccountRecord {
    pub account: CarrierAccount,
    pub connected: bool,
}

/// An account as the control surface shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AccountSummary {
    pub account: String,
    pub balance_cents: i64,
    pub card: CardState,
    pub auto_reload: Option<AutoReload>,
    pub live_labels: usize,
}

pub(super) fn new_account(balance_cents: i64) -> Account {
    Account {
        balance_cents,
        card: CardState::Ok,
        auto_reload: None,
        webhook: None,
        carrier_accounts: vec![],
    }
}

impl World {
    /// The account, created empty on first use (any account id is valid).
    pub(super) fn account_mut(&mut self, id: &str) -> &mut Account {
        self.accounts
            .entry(id.to_string())
            .or_insert_with(|| new_account(0))
    }

    pub fn wallet(&mut self, account: &str, env: KeyEnv, now: u64) -> Wallet {
        self.settle_voids(now);
        let a = self.account_mut(account);
        let sandbox = env == KeyEnv::Sandbox;
        Wallet {
            balance_cents: if sandbox {
                SANDBOX_BALANCE_CENTS
            } else {
                a.balance_cents
            },
            currency: "USD".into(),
            sandbox,
            unlimited: sandbox,
            auto_reload: a.auto_reload,
            card: a.card,
        }
    }

    /// Charges a live purchase, reloading from the card when configured.
    /// Returns the balance after. Sandbox purchases are free.
    pub(super) fn charge(
        &mut self,
        account: &str,
        env: KeyEnv,
        cost: i64,
    ) -> Result<i64, SimError> {
        if env == KeyEnv::Sandbox {
            return Ok(SANDBOX_BALANCE_CENTS);
        }
        let a = self.account_mut(account);
        if a.balance_cents < cost {
            let Some(reload) = a.auto_reload else {
                return Err(SimError::new(
                    ErrorCode::WalletInsufficientBalance,
                    format!(
                        "The wallet holds {} cents; this costs {cost} cents.",
                        a.balance_cents
                    ),
                    "Add funds to the wallet or turn on auto-reload in the dashboard.",
                ));
            };
            match a.card {
                CardState::Missing => {
                    return Err(SimError::new(
                        ErrorCode::WalletPaymentMethodMissing,
                        "Auto-reload is on but there is no card on file.",
                        "Add a card in the dashboard's billing settings, then retry.",
                    ));
                }
                CardState::Declined => {
                    return Err(SimError::new(
                        ErrorCode::WalletPaymentFailed,
                        "The card on file was declined for the auto-reload.",
                        "Update the card in the dashboard's billing settings, then retry.",
                    ));
                }
                CardState::Ok => {}
            }
            let times = reload.charges_for(a.balance_cents, cost);
            a.balance_cents = a
                .balance_cents
                .saturating_add(times.saturating_mul(reload.amount_cents.max(1)));
        }
        a.balance_cents = a.balance_cents.saturating_sub(cost);
        Ok(a.balance_cents)
    }

    /// Gives `cents` back to a live wallet (a confirmed void, a failed batch
    /// item); sandbox purchases were free, so there is nothing to refund.
    pub(super) fn refund(&mut self, account: &str, env: KeyEnv, cents: i64) {
        if env == KeyEnv::Live {
            let a = self.account_mut(account);
            a.balance_cents = a.balance_cents.saturating_add(cents);
        }
    }

    pub fn set_wallet(
        &mut self,
        account: &str,
        balance_cents: i64,
        card: CardState,
        auto_reload: Option<AutoReload>,
    ) {
        let a = self.account_mut(account);
        a.balance_cents = balance_cents;
        a.card = card;
        a.auto_reload = auto_reload;
    }

    /// The account's state (settling due voids first), for the control surface.
    pub fn account_summary(&mut self, account: &str, now: u64) -> AccountSummary {
        self.settle_voids(now);
        let live_labels = self
            .labels
            .values()
            .filter(|l| l.account == account && l.env == KeyEnv::Live)
            .count();
        let a = self.account_mut(account);
        AccountSummary {
            account: account.to_string(),
            balance_cents: a.balance_cents,
            card: a.card,
            auto_reload: a.auto_reload,
            live_labels,
        }
    }

    pub fn set_webhook(&mut self, account: &str, url: String, secret: String) {
        self.account_mut(account).webhook = Some((url, secret));
    }

    /// The account's connected carrier accounts (`GET /v1/carrier-accounts`).
    pub fn carrier_accounts(&mut self, account: &str) -> Vec<CarrierAccount> {
        self.account_mut(account)
            .carrier_accounts
            .iter()
            .filter(|a| a.connected)
            .map(|a| a.account.clone())
            .collect()
    }

    pub fn connect_carrier_account(
        &mut self,
        account: &str,
        carrier: &str,
        description: Option<String>,
        invalid_credentials: bool,
        now: u64,
    ) -> CarrierAccount {
        let id = self.next_id("ca");
        let record = CarrierAccount {
            id,
            carrier: carrier.to_string(),
            description: description.unwrap_or_else(|| format!("{carrier} account")),
            status: if invalid_credentials {
                CarrierAccountStatus::InvalidCredentials
            } else {
                CarrierAccountStatus::Active
            },
            created_at: now,
        };
        self.account_mut(account)
            .carrier_accounts
            .push(CarrierAccountRecord {
                account: record.clone(),
                connected: true,
            });
        record
    }

    /// Changes a carrier account's credentials or connection; `None` if
    /// there is no such carrier account.
    pub fn update_carrier_account(
        &mut self,
        id: &str,
        invalid_credentials: Option<bool>,
        connected: Option<bool>,
    ) -> Option<&CarrierAccountRecord> {
        let record = self
            .accounts
            .values_mut()
            .flat_map(|a| a.carrier_accounts.iter_mut())
            .find(|c| c.account.id == id)?;
        if let Some(invalid) = invalid_credentials {
            record.account.status = if invalid {
                CarrierAccountStatus::InvalidCredentials
            } else {
                CarrierAccountStatus::Active
            };
        }
        if let Some(connected) = connected {
            record.connected = connected;
        }
        Some(record)
    }
}
