//! Password hashing with Argon2id (argon2's defaults: 19 MiB, 2 passes). Hashing is CPU-bound
//! (tens of milliseconds), so callers run these on the blocking pool.

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use super::AuthError;

/// Shortest accepted password.
pub const MIN_LEN: usize = 8;
/// Longest accepted password (bounds the hashing work a request can cause).
pub const MAX_LEN: usize = 128;

/// Whether a new password meets the length rule; the reason otherwise.
pub fn check_policy(password: &str) -> Result<(), String> {
    let n = password.chars().count();
    if n < MIN_LEN {
        Err(format!("must have at least {MIN_LEN} characters"))
    } else if n > MAX_LEN {
        Err(format!("must have at most {MAX_LEN} characters"))
    } else {
        Ok(())
    }
}

/// Hashes a password into a PHC string (salt included).
pub fn hash(password: &str) -> Result<String, AuthError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| AuthError::Hash(e.to_string()))
}

/// Whether `password` matches the PHC string; a malformed hash never matches.
pub fn verify(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// Verifies against a fixed hash of a random password, so a login for an unknown e-mail costs
/// the same time as one with a wrong password and does not reveal which e-mails exist.
pub fn verify_dummy(password: &str) {
    static DUMMY: OnceLock<String> = OnceLock::new();
    let phc = DUMMY.get_or_init(|| hash(&uuid::Uuid::new_v4().to_string()).unwrap_or_default());
    let _ = verify(password, phc);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_and_nothing_else() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
        assert!(!verify("correct horse", "not a phc string"));
    }

    #[test]
    fn the_length_policy_bounds_both_ends() {
        assert!(check_policy("short").is_err());
        assert!(check_policy("long enough").is_ok());
        assert!(check_policy(&"x".repeat(MAX_LEN + 1)).is_err());
    }
}
