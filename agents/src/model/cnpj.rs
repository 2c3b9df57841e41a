//! CNPJ (company registry number) helpers: digits, check digits, validation and formatting.

/// Only the ASCII digits of `s` (`"12.345.678/0001-95"` -> `"12345678000195"`).
pub fn digits_only(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// The two check digits of a CNPJ whose first twelve digits are given (each 0-9).
///
/// Weights 5,4,3,2,9,8,7,6,5,4,3,2 for the first digit and 6,5,4,3,2,9,8,7,6,5,4,3,2 for
/// the second; each digit is `11 - sum mod 11`, or 0 when that remainder is below 2.
pub fn check_digits(first12: &[u8; 12]) -> (u8, u8) {
    const W1: [u32; 12] = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const W2: [u32; 13] = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    let digit = |sum: u32| {
        let r = sum % 11;
        if r < 2 { 0 } else { (11 - r) as u8 }
    };
    let s1: u32 = first12.iter().zip(W1).map(|(d, w)| u32::from(*d) * w).sum();
    let d1 = digit(s1);
    let s2: u32 = first12.iter().chain(std::iter::once(&d1)).zip(W2).map(|(d, w)| u32::from(*d) * w).sum();
    (d1, digit(s2))
}

/// Whether `s` (formatted or digits only) is a CNPJ with 14 digits and valid check digits.
/// Sequences of one repeated digit (`00000000000000`) are rejected.
pub fn cnpj_is_valid(s: &str) -> bool {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    if digits.len() != 14 || s.chars().any(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    if digits.iter().all(|d| *d == digits[0]) {
        return false;
    }
    let mut first12 = [0u8; 12];
    first12.copy_from_slice(&digits[..12]);
    let (d1, d2) = check_digits(&first12);
    digits[12] == d1 && digits[13] == d2
}

/// Formats 14 digits as `00.000.000/0000-00`; other input is returned unchanged.
pub fn format_cnpj(digits: &str) -> String {
    if digits.len() != 14 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    format!("{}.{}.{}/{}-{}", &digits[..2], &digits[2..5], &digits[5..8], &digits[8..12], &digits[12..])
}

/// Builds a valid 14-digit CNPJ from an 8-digit company root and a 4-digit branch number.
pub fn cnpj_from_parts(root: u32, branch: u16) -> String {
    let mut first12 = [0u8; 12];
    let mut r = root % 100_000_000;
    for i in (0..8).rev() {
        first12[i] = (r % 10) as u8;
        r /= 10;
    }
    let mut b = branch % 10_000;
    for i in (8..12).rev() {
        first12[i] = (b % 10) as u8;
        b /= 10;
    }
    let (d1, d2) = check_digits(&first12);
    let mut out = String::with_capacity(14);
    for d in first12.iter().chain([d1, d2].iter()) {
        out.push(char::from(b'0' + d));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_valid_cnpj_passes_and_a_changed_digit_fails() {
        // Banco do Brasil's public CNPJ.
        assert!(cnpj_is_valid("00.000.000/0001-91"));
        assert!(cnpj_is_valid("00000000000191"));
        assert!(!cnpj_is_valid("00.000.000/0001-92"));
        assert!(!cnpj_is_valid("11111111111111"));
        assert!(!cnpj_is_valid("123"));
    }

    #[test]
    fn generated_cnpjs_have_valid_check_digits_and_format_with_punctuation() {
        for root in [1u32, 12_345_678, 99_999_999, 40_404_040] {
            let c = cnpj_from_parts(root, 1);
            assert_eq!(c.len(), 14);
            assert!(cnpj_is_valid(&c), "{c}");
        }
        assert_eq!(format_cnpj("00000000000191"), "00.000.000/0001-91");
        assert_eq!(digits_only("00.000.000/0001-91"), "00000000000191");
    }
}
