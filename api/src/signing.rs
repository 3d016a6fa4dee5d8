//! HMAC-SHA256, the one signing primitive: the webhook signature (part 6)
//! and the Worker's session cookies.

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const BLOCK: usize = 64;

/// HMAC-SHA256 of `data` under `key`, for keys of any length.
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    // RFC 2104: a key longer than the block is hashed, then zero-padded to
    // the block. Done here, so the constructor takes a block-sized key and
    // has no error case to handle.
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new(&block.into());
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// Whether `given` is the HMAC-SHA256 of `data` under `key`, in constant time.
pub fn hmac_matches(key: &[u8], data: &[u8], given: &[u8]) -> bool {
    bool::from(hmac_sha256(key, data).ct_eq(given))
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
    #[test]
    fn rfc_4231_vectors() {
        assert_eq!(
            hex::encode(hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex::encode(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn matches_only_the_same_mac() {
        let mac = hmac_sha256(b"k", b"d");
        assert!(hmac_matches(b"k", b"d", &mac));
        assert!(!hmac_matches(b"k", b"e", &mac));
        assert!(!hmac_matches(b"k", b"d", &mac[..31]));
    }
}
