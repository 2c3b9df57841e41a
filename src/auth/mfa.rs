//! TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s steps, one step of clock skew) and
//! single-use backup codes. A TOTP step is accepted once: a code from the last accepted step
//! or an earlier one is refused, so a code seen by someone else cannot be replayed.

use totp_rs::{Builder, Secret, Totp};

use super::AuthError;
use super::secret::{new_backup_code, sha256_hex};

/// Backup codes issued at setup.
pub const BACKUP_CODES: usize = 10;

/// What setup hands out once, and what the store keeps.
pub struct Enrolment {
    /// The TOTP secret, base32 (shown once; also stored).
    pub secret_base32: String,
    /// `data:image/png;base64,...` QR code of the `otpauth://` URL.
    pub qr_data_uri: String,
    /// The backup codes in clear (shown once, never stored).
    pub backup_codes: Vec<String>,
    /// Their SHA-256 digests (stored).
    pub backup_code_hashes: Vec<String>,
}

fn totp(secret: Secret, account: &str, issuer: &str) -> Result<Totp, AuthError> {
    // The otpauth label separates issuer and account with ':', so neither may contain one.
    Builder::new()
        .with_secret(secret)
        .with_account_name(account.replace(':', "_"))
        .with_issuer(Some(issuer.replace(':', "_")))
        .build()
        .map_err(|e| AuthError::Totp(e.to_string()))
}

/// A fresh secret, its QR code and backup codes for `account`.
pub fn enrol(account: &str, issuer: &str) -> Result<Enrolment, AuthError> {
    let t = totp(Secret::generate(), account, issuer)?;
    let qr = t.to_qr_base64().map_err(|e| AuthError::Totp(e.to_string()))?;
    let backup_codes: Vec<String> = (0..BACKUP_CODES).map(|_| new_backup_code()).collect();
    Ok(Enrolment {
        secret_base32: t.secret().to_base32(),
        qr_data_uri: format!("data:image/png;base64,{qr}"),
        backup_code_hashes: backup_codes.iter().map(|c| sha256_hex(&normalise_backup(c))).collect(),
        backup_codes,
    })
}

/// Whether `code` looks like a TOTP code (six digits) rather than a backup code.
pub fn is_totp_code(code: &str) -> bool {
    let c: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    c.len() == 6 && c.chars().all(|c| c.is_ascii_digit())
}

/// Checks a TOTP code at `now_secs`; the accepted step when it is valid and newer than
/// `last_step`.
pub fn check_totp(secret_base32: &str, code: &str, last_step: Option<u64>, now_secs: u64) -> Option<u64> {
    let secret = Secret::try_from_base32(secret_base32).ok()?;
    let t = totp(secret, "account", "issuer").ok()?;
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let step = t.check(&code, now_secs)?;
    last_step.is_none_or(|last| step > last).then_some(step)
}

fn normalise_backup(code: &str) -> String {
    code.chars().filter(|c| c.is_ascii_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Spends a backup code: removes its digest and returns `true` when it was unused.
pub fn spend_backup_code(hashes: &mut Vec<String>, code: &str) -> bool {
    let digest = sha256_hex(&normalise_backup(code));
    match hashes.iter().position(|h| *h == digest) {
        Some(i) => {
            hashes.swap_remove(i);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_at(secret: &str, secs: u64) -> String {
        totp(Secret::try_from_base32(secret).unwrap(), "a", "b").unwrap().generate(secs).to_string()
    }

    #[test]
    fn a_totp_step_is_accepted_once_and_later_steps_still_work() {
        let e = enrol("ana@example.org", "vigia").unwrap();
        assert!(e.qr_data_uri.starts_with("data:image/png;base64,iVBOR"));
        let now = 1_700_000_000;
        let step = check_totp(&e.secret_base32, &code_at(&e.secret_base32, now), None, now).unwrap();
        assert_eq!(check_totp(&e.secret_base32, &code_at(&e.secret_base32, now), Some(step), now), None);
        assert!(check_totp(&e.secret_base32, &code_at(&e.secret_base32, now + 30), Some(step), now).is_some());
    }

    #[test]
    fn backup_codes_work_once_in_any_case_or_grouping() {
        let mut e = enrol("ana@example.org", "vigia").unwrap();
        assert_eq!(e.backup_codes.len(), BACKUP_CODES);
        let code = e.backup_codes[3].to_uppercase().replace('-', " ");
        assert!(!is_totp_code(&code));
        assert!(spend_backup_code(&mut e.backup_code_hashes, &code));
        assert!(!spend_backup_code(&mut e.backup_code_hashes, &e.backup_codes[3]));
        assert_eq!(e.backup_code_hashes.len(), BACKUP_CODES - 1);
    }
}
