//! Random secrets (API keys, backup codes) from the operating system's generator, and the
//! SHA-256 digests the store keeps instead of them.

use sha2::{Digest, Sha256};

/// `n` random bytes.
fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    // The OS generator failing is an unrecoverable platform fault; fall back to UUID v4 bytes,
    // which also come from the OS generator, rather than hand out a predictable secret.
    if aws_lc_rs::rand::fill(&mut buf).is_err() {
        for chunk in buf.chunks_mut(16) {
            let id = uuid::Uuid::new_v4();
            chunk.copy_from_slice(&id.as_bytes()[..chunk.len()]);
        }
    }
    buf
}

/// A new service API key: `vk_` and 64 hex digits (256 bits).
pub fn new_api_key() -> String {
    format!("vk_{}", hex::encode(random_bytes::<32>()))
}

/// A new backup code: four groups of four hex digits (64 bits), e.g. `3f9a-0c12-77be-41d0`.
pub fn new_backup_code() -> String {
    let h = hex::encode(random_bytes::<8>());
    format!("{}-{}-{}-{}", &h[0..4], &h[4..8], &h[8..12], &h[12..16])
}

/// A new generated password: 24 hex digits (96 bits), shown once to whoever starts the
/// service the first time.
pub fn new_password() -> String {
    hex::encode(random_bytes::<12>())
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_their_shape_and_do_not_repeat() {
        let k = new_api_key();
        assert!(k.starts_with("vk_") && k.len() == 67);
        assert_ne!(new_api_key(), k);
        let c = new_backup_code();
        assert_eq!(c.len(), 19);
        assert_eq!(c.matches('-').count(), 3);
        assert_eq!(sha256_hex("abc").len(), 64);
    }
}
