//! CNPJ (company registry number) helpers: digits, check digits, validation and formatting;
//! and what kind of document a supplier's id is ([`DocumentKind`]): a CNPJ, a CPF (also when
//! the Portal writes it zero-padded to 14 digits, or masked as `***.123.456-**`), a UG code of
//! a public body (Contratos.gov.br fornecedor tipo "UG"), a foreign or generic id, the secret
//! code `-11`, or nothing.

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

/// What a supplier's document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// A CNPJ with valid check digits.
    Cnpj,
    /// A CPF with valid check digits, as 11 digits or zero-padded to 14.
    Cpf,
    /// A CPF masked by the Portal (`***.123.456-**`): valid as published.
    MaskedCpf,
    /// 14 digits that are neither a valid CNPJ nor a zero-padded valid CPF.
    InvalidCnpj,
    /// 11 digits with wrong CPF check digits.
    InvalidCpf,
    /// A 6-digit UG code (a public body of SIAFI).
    UgCode,
    /// Anything else: foreign ids (`EX...`, `ESTRANGEIRO_...`), generic ids, the secret-contract
    /// code `-11`.
    Other,
    /// No document.
    Empty,
}

impl DocumentKind {
    /// Whether the document is a well-formed id whose check digits fail.
    pub fn is_invalid(self) -> bool {
        matches!(self, DocumentKind::InvalidCnpj | DocumentKind::InvalidCpf)
    }
}

/// CPF check digits (weights 10..2 and 11..2, `11 - sum mod 11`, 0 when that is 10 or 11) of
/// 11 digits; a repeated digit is invalid.
pub fn cpf_is_valid(doc: &str) -> bool {
    let d: Vec<u32> = doc.bytes().filter(u8::is_ascii_digit).map(|b| u32::from(b - b'0')).collect();
    if d.len() != 11 || d.iter().all(|x| *x == d[0]) {
        return false;
    }
    let check = |len: usize| {
        let s: u32 = d[..len].iter().enumerate().map(|(i, x)| x * (len as u32 + 1 - i as u32)).sum();
        let r = 11 - s % 11;
        if r >= 10 { 0 } else { r }
    };
    check(9) == d[9] && check(10) == d[10]
}

/// The kind of a supplier's document as the sources write it (see the module doc).
pub fn document_kind(doc: &str) -> DocumentKind {
    let doc = doc.trim();
    if doc.is_empty() {
        return DocumentKind::Empty;
    }
    if doc.contains('*') {
        let digits = doc.bytes().filter(u8::is_ascii_digit).count();
        return if (3..=11).contains(&digits) { DocumentKind::MaskedCpf } else { DocumentKind::Other };
    }
    let plain = doc.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'-'));
    if !plain || doc.starts_with('-') {
        return DocumentKind::Other;
    }
    let digits = digits_only(doc);
    match digits.len() {
        14 if cnpj_is_valid(&digits) => DocumentKind::Cnpj,
        // The Portal writes an individual's CPF zero-padded to 14 digits.
        14 if digits.starts_with("000") && cpf_is_valid(&digits[3..]) => DocumentKind::Cpf,
        14 => DocumentKind::InvalidCnpj,
        11 if cpf_is_valid(&digits) => DocumentKind::Cpf,
        11 => DocumentKind::InvalidCpf,
        6 if digits == doc => DocumentKind::UgCode,
        _ => DocumentKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_told_apart_by_kind() {
        use DocumentKind::*;
        assert_eq!(document_kind("00000000000191"), Cnpj);
        assert_eq!(document_kind("00.000.000/0001-91"), Cnpj);
        assert_eq!(document_kind("52998224725"), Cpf);
        assert_eq!(document_kind("529.982.247-25"), Cpf);
        // An individual's CPF zero-padded to 14 digits, as the Portal's Compras file writes it.
        assert_eq!(document_kind("00052998224725"), Cpf);
        assert_eq!(document_kind("***.982.247-**"), MaskedCpf);
        assert_eq!(document_kind("12345678000100"), InvalidCnpj);
        assert_eq!(document_kind("52998224724"), InvalidCpf);
        assert_eq!(document_kind("806030"), UgCode);
        assert_eq!(document_kind("-11"), Other);
        assert_eq!(document_kind("EX1234567"), Other);
        assert_eq!(document_kind("ESTRANGEIRO_US_ARMY_CORPS_OF_ENGINEERS"), Other);
        assert_eq!(document_kind("  "), Empty);
        assert!(InvalidCnpj.is_invalid() && !Cpf.is_invalid() && !UgCode.is_invalid());
    }

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
