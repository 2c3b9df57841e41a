//! The compliance rules' reading of a contract record: its modality, whether its object is an
//! engineering work or a renovation, the amendment caps, and the value limits of a dispensa
//! (kept here as the entry points the rest of the crate calls; the limits by law and date are
//! in [`super::law_limits`], the reading of the legal basis in [`super::legal_basis`] and
//! [`super::legal_grounds`]).
//!
//! Sources:
//! - Lei 14.133/2021, art. 125: quantitative amendments (acréscimos) up to 25% of the updated
//!   initial value, 50% for the renovation (reforma) of a building or equipment; Lei 8.666/1993,
//!   art. 65, §1, the same.
//! - Lei 14.133/2021, art. 193, II (as amended by Lei Complementar 198/2023): Lei 8.666 and
//!   its modalities convite and tomada de preços were revoked on 30/12/2023; art. 28 lists the
//!   modalities left (pregão, concorrência, concurso, leilão, diálogo competitivo).

use chrono::NaiveDate;

use super::law_limits::{self, DispensaLimits};
use super::legal_basis::Law;
use crate::text::fold;

use super::law_limits::LIMITS_8666;

/// Quantitative amendments may add at most this fraction of the initial value (art. 125).
pub const AMENDMENT_CAP: f64 = 0.25;
/// ... or this fraction for the renovation of a building or equipment.
pub const AMENDMENT_CAP_RENOVATION: f64 = 0.50;

/// The last day convite and tomada de preços existed (Lei 8.666 revoked).
pub fn old_modalities_end() -> NaiveDate {
    law_limits::law_8666_end()
}

/// The direct-purchase limit for a purchase signed on `date` of this nature: Lei 8.666's of
/// that date when `old_law`, else the limits of the law in force on that date.
pub fn dispensa_limit(date: NaiveDate, engineering: bool, old_law: bool) -> (f64, &'static DispensaLimits) {
    let law = if old_law { Law::L8666 } else { law_limits::law_in_force(date) };
    let l = law_limits::limits(&law, date).unwrap_or(&LIMITS_8666);
    (if engineering { l.engineering } else { l.other }, l)
}

/// Whether `hay` contains `needle` (lower-case ASCII) ignoring ASCII case, without allocating.
pub fn contains_ascii_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return false;
    }
    // Upper-case text (as the upstream writes objects) needs only an exact search.
    if !h.iter().any(u8::is_ascii_lowercase) {
        return std::str::from_utf8(&n.to_ascii_uppercase()).is_ok_and(|up| hay.contains(up));
    }
    let (lo, up) = (n[0].to_ascii_lowercase(), n[0].to_ascii_uppercase());
    (0..=h.len() - n.len()).any(|i| (h[i] == lo || h[i] == up) && h[i + 1..i + n.len()].eq_ignore_ascii_case(&n[1..]))
}

/// Whether the object is engineering (obras e serviços de engenharia, art. 75 I): its
/// category is works, or it names engineering or vehicle maintenance.
pub fn is_engineering(object: &str) -> bool {
    const WORKS: [&str; 5] = ["engenharia", "reforma", "constru", "ampliac", "pavimenta"];
    if WORKS.iter().any(|w| contains_ascii_ci(object, w)) {
        return true;
    }
    if contains_ascii_ci(object, "obra") {
        // "Mão de obra" (labour hire) is not a work of engineering.
        let labour = ["MÃO DE OBRA", "MÃO-DE-OBRA", "mão de obra", "mão-de-obra"].iter().any(|w| object.contains(w))
            || contains_ascii_ci(object, "mao de obra")
            || contains_ascii_ci(object, "mao-de-obra");
        if !labour {
            return true;
        }
    }
    contains_ascii_ci(object, "manuten") && fold(object).contains("manutencao de veiculos")
}

/// Whether the object is the renovation of a building or equipment (art. 125, 50% cap).
pub fn is_renovation(object: &str) -> bool {
    contains_ascii_ci(object, "reforma")
}

/// The modalities a contract record can name, as the compliance rules read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modality {
    /// Dispensa de licitação.
    Dispensa,
    /// Inexigibilidade de licitação.
    Inexigibilidade,
    /// Convite (Lei 8.666 only).
    Convite,
    /// Tomada de preços (Lei 8.666 only).
    TomadaDePrecos,
    /// Pregão.
    Pregao,
    /// Concorrência.
    Concorrencia,
    /// Anything else.
    Other,
}

/// Reads a `modalidadeCompra`.
pub fn modality(s: &str) -> Modality {
    // Fast paths for the upstream's usual spellings (no allocation).
    match s.as_bytes().first() {
        Some(b'P') if s.starts_with("Pregão") => return Modality::Pregao,
        Some(b'C') if s.starts_with("Concorrência") => return Modality::Concorrencia,
        Some(b'D') if s.starts_with("Dispensa") => return Modality::Dispensa,
        Some(b'I') if s.starts_with("Inexigibilidade") => return Modality::Inexigibilidade,
        _ => {}
    }
    let f = fold(s);
    if f.contains("dispensa") {
        Modality::Dispensa
    } else if f.contains("inexigib") {
        Modality::Inexigibilidade
    } else if f.contains("convite") {
        Modality::Convite
    } else if f.contains("tomada de preco") {
        Modality::TomadaDePrecos
    } else if f.contains("pregao") {
        Modality::Pregao
    } else if f.contains("concorrencia") {
        Modality::Concorrencia
    } else {
        Modality::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn the_limit_is_that_of_the_law_in_force_at_signing() {
        assert_eq!(dispensa_limit(d(2019, 6, 1), false, false).0, 17_600.00);
        assert_eq!(dispensa_limit(d(2017, 6, 1), false, false).0, 8_000.00);
        assert_eq!(dispensa_limit(d(2021, 6, 1), true, false).0, 100_000.00);
        assert_eq!(dispensa_limit(d(2022, 6, 1), true, false).0, 108_040.82);
        assert_eq!(dispensa_limit(d(2024, 7, 1), false, false).0, 59_906.02);
        assert_eq!(dispensa_limit(d(2025, 3, 1), false, false).1.act, "Decreto 12.343/2024");
        assert_eq!(dispensa_limit(d(2023, 3, 1), false, true).0, 17_600.00);
    }

    #[test]
    fn engineering_and_modalities_are_read_from_the_record() {
        assert_eq!(modality("Tomada de Preços"), Modality::TomadaDePrecos);
        assert_eq!(modality("Dispensa de Licitação"), Modality::Dispensa);
        assert_eq!(modality("Dispensa"), Modality::Dispensa);
        assert!(is_engineering("EXECUÇÃO DE OBRA DE REFORMA DO EDIFÍCIO"));
        assert!(is_engineering("CONTRATAÇÃO DE EMPRESA DE ENGENHARIA PARA CONSTRUÇÃO"));
        assert!(!is_engineering("LOCAÇÃO DE MÃO DE OBRA PARA LIMPEZA E CONSERVAÇÃO"));
        assert!(!is_engineering("AQUISIÇÃO DE MEDICAMENTOS"));
    }
}
