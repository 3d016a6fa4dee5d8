//! Random bytes from the runtime's generator, for secrets (invitation and
//! access tokens, password salts, passkey challenges).

use crate::error::AccountsError;
use domain::errors::Internal;

pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], AccountsError> {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes).map_err(|_| Internal {
        what: "draw random bytes",
    })?;
    Ok(bytes)
}
