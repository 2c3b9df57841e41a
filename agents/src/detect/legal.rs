//! The legal table the compliance detectors apply: direct-purchase (dispensa) value limits per
//! year and law, the amendment caps, and how a contract's modality and legal basis are read.
//!
//! Sources:
//! - Lei 14.133/2021, art. 75, I and II: dispensa "em razão do valor" up to R$ 100.000,00 for
//!   obras e serviços de engenharia or vehicle maintenance (I) and R$ 50.000,00 for other
//!   services and purchases (II). Art. 182: the values are updated every 1 January by decree
//!   (IPCA-E).
//! - Decreto 11.317/2022 (DOU 30/12/2022), in force in 2023: R$ 114.416,65 (I) and
//!   R$ 57.208,33 (II).
//! - Decreto 11.871/2023 (DOU 29/12/2023), in force in 2024: R$ 119.812,02 (I) and
//!   R$ 59.906,02 (II).
//! - Decreto 12.343/2024 (DOU 31/12/2024), in force in 2025: R$ 125.451,15 (I) and
//!   R$ 62.725,59 (II).
//! - Lei 8.666/1993, art. 24, I and II, with Decreto 9.412/2018 (in force from 19/07/2018 until
//!   the law's revocation on 30/12/2023): R$ 33.000,00 (engenharia) and R$ 17.600,00 (others).
//!   Contracts whose `fundamentoLegal` cites Lei 8.666 are held to these.
//! - Lei 14.133/2021, art. 125: quantitative amendments up to 25% of the initial value, 50% for
//!   the renovation (reforma) of a building or equipment.
//! - Lei 14.133/2021, art. 193, II (as amended by Lei Complementar 198/2023): Lei 8.666 and
//!   its modalities convite and tomada de preços were revoked on 30/12/2023; art. 28 lists the
//!   modalities left (pregão, concorrência, concurso, leilão, diálogo competitivo).
//! - Lei 14.133/2021, art. 74: inexigibilidade needs a reason among its incisos (exclusive
//!   supplier, artist, notória especialização, credenciamento, property).

use chrono::{Datelike, NaiveDate};

use crate::text::fold;

/// One year's direct-purchase limits, with the act that set them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispensaLimits {
    /// First year the limits apply to.
    pub from_year: i32,
    /// Last year they apply to.
    pub to_year: i32,
    /// Obras e serviços de engenharia (art. 75, I).
    pub engineering: f64,
    /// Other services and purchases (art. 75, II).
    pub other: f64,
    /// The act that set them.
    pub act: &'static str,
}

/// Lei 14.133/2021 limits per year (see the module doc for sources).
pub const LIMITS_14133: &[DispensaLimits] = &[
    DispensaLimits {
        from_year: 2021,
        to_year: 2022,
        engineering: 100_000.00,
        other: 50_000.00,
        act: "Lei 14.133/2021, art. 75, I e II",
    },
    DispensaLimits {
        from_year: 2023,
        to_year: 2023,
        engineering: 114_416.65,
        other: 57_208.33,
        act: "Decreto 11.317/2022",
    },
    DispensaLimits {
        from_year: 2024,
        to_year: 2024,
        engineering: 119_812.02,
        other: 59_906.02,
        act: "Decreto 11.871/2023",
    },
    DispensaLimits {
        from_year: 2025,
        to_year: 2025,
        engineering: 125_451.15,
        other: 62_725.59,
        act: "Decreto 12.343/2024",
    },
];

/// Lei 8.666/1993 limits (Decreto 9.412/2018), for contracts that cite that law.
pub const LIMITS_8666: DispensaLimits = DispensaLimits {
    from_year: 2018,
    to_year: 2023,
    engineering: 33_000.00,
    other: 17_600.00,
    act: "Lei 8.666/1993, art. 24, I e II (Decreto 9.412/2018)",
};

/// Quantitative amendments may add at most this fraction of the initial value (art. 125).
pub const AMENDMENT_CAP: f64 = 0.25;
/// ... or this fraction for the renovation of a building or equipment.
pub const AMENDMENT_CAP_RENOVATION: f64 = 0.50;

/// The last day convite and tomada de preços existed (Lei 8.666 revoked).
pub fn old_modalities_end() -> NaiveDate {
    NaiveDate::from_ymd_opt(2023, 12, 30).unwrap_or(NaiveDate::MIN)
}

/// The limits in force in `year` under Lei 14.133 (years after the table use its last row,
/// before it its first), or under Lei 8.666 when `old_law`.
pub fn limits_for(year: i32, old_law: bool) -> &'static DispensaLimits {
    if old_law {
        return &LIMITS_8666;
    }
    LIMITS_14133.iter().find(|l| (l.from_year..=l.to_year).contains(&year)).unwrap_or(
        if year < LIMITS_14133[0].from_year { &LIMITS_14133[0] } else { &LIMITS_14133[LIMITS_14133.len() - 1] },
    )
}

/// The limit that binds a dispensa of this object signed on `date`, or `None` when `value` is
/// within even the lower limit (so the object's nature, costlier to read, need not be judged).
pub fn limit_if_exceeded(
    date: NaiveDate,
    value: f64,
    object: &str,
    legal_basis: &str,
) -> Option<(f64, &'static DispensaLimits, bool)> {
    let old = cites_old_law(legal_basis);
    let l = limits_for(date.year(), old);
    if value <= l.other + 0.005 {
        return None;
    }
    let eng = is_engineering(object);
    let limit = if eng { l.engineering } else { l.other };
    (value > limit + 0.005).then_some((limit, l, eng))
}

/// The direct-purchase limit for a purchase signed on `date` of this nature.
pub fn dispensa_limit(date: NaiveDate, engineering: bool, old_law: bool) -> (f64, &'static DispensaLimits) {
    let l = limits_for(date.year(), old_law);
    (if engineering { l.engineering } else { l.other }, l)
}

/// Whether a legal basis cites Lei 8.666/1993.
pub fn cites_old_law(legal_basis: &str) -> bool {
    legal_basis.contains("8.666") || legal_basis.contains("8666")
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

/// The inciso of art. 75 a dispensa cites, when it cites one (`"Lei 14.133/2021, art. 75, II"`
/// -> `Some(2)`; roman numerals I to XVIII).
pub fn article_inciso(legal_basis: &str, article: &str) -> Option<u32> {
    let f = legal_basis.to_ascii_lowercase().replace("inciso ", "");
    let at = f
        .match_indices("art")
        .map(|(i, _)| i)
        .find(|&i| f[i + 3..].trim_start_matches(['.', ' ']).starts_with(article))?;
    let rest = &f[at..];
    let rest = rest.split_once(article).map_or("", |(_, r)| r);
    let token: String = rest
        .trim_start_matches([',', ' ', 'o', '.', 'º'])
        .chars()
        .take_while(|c| matches!(c, 'i' | 'v' | 'x'))
        .collect();
    roman(&token)
}

fn roman(s: &str) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    let val = |c: char| match c {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        _ => 0,
    };
    let chars: Vec<u32> = s.chars().map(val).collect();
    let mut total = 0i64;
    for (k, v) in chars.iter().enumerate() {
        if chars.get(k + 1).is_some_and(|n| n > v) {
            total -= i64::from(*v);
        } else {
            total += i64::from(*v);
        }
    }
    u32::try_from(total).ok().filter(|t| *t > 0)
}

/// Whether a dispensa is one "by value" (art. 75 I/II, or art. 24 I/II of Lei 8.666), the only
/// kind the value limits bind: it cites inciso I or II, or no inciso at all. Emergency
/// (art. 75, VIII) and other hypotheses have no value limit.
pub fn is_dispensa_by_value(legal_basis: &str) -> bool {
    let article = if cites_old_law(legal_basis) { "24" } else { "75" };
    match article_inciso(legal_basis, article) {
        None => true,
        Some(i) => i <= 2,
    }
}

/// Words of an object or legal basis that state why competition is impossible (art. 74).
const SINGLE_SUPPLIER: &[&str] = &[
    "exclusiv",
    "notoria especializacao",
    "fornecedor unico",
    "representante comercial exclusivo",
    "credenciamento",
    "artista",
    "singular",
    "inviabilidade de competicao",
];

/// Whether an inexigibilidade states its reason: an inciso of art. 74 (or art. 25 of Lei
/// 8.666) in the legal basis, or a single-supplier phrase in the object or the basis.
pub fn inexigibility_justified(object: &str, legal_basis: &str) -> bool {
    let article = if cites_old_law(legal_basis) { "25" } else { "74" };
    if article_inciso(legal_basis, article).is_some() {
        return true;
    }
    let text = fold(&format!("{object} {legal_basis}"));
    SINGLE_SUPPLIER.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn each_year_has_its_decree_limits() {
        assert_eq!(dispensa_limit(d(2022, 6, 1), true, false).0, 100_000.00);
        assert_eq!(dispensa_limit(d(2022, 6, 1), false, false).0, 50_000.00);
        assert_eq!(dispensa_limit(d(2023, 1, 1), true, false).0, 114_416.65);
        assert_eq!(dispensa_limit(d(2023, 12, 31), false, false).0, 57_208.33);
        assert_eq!(dispensa_limit(d(2024, 1, 1), true, false).0, 119_812.02);
        assert_eq!(dispensa_limit(d(2024, 7, 1), false, false).0, 59_906.02);
        assert_eq!(dispensa_limit(d(2025, 3, 1), true, false).0, 125_451.15);
        assert_eq!(dispensa_limit(d(2025, 3, 1), false, false).0, 62_725.59);
        assert_eq!(dispensa_limit(d(2025, 3, 1), false, false).1.act, "Decreto 12.343/2024");
        assert_eq!(dispensa_limit(d(2023, 3, 1), false, true).0, 17_600.00);
        assert_eq!(dispensa_limit(d(2026, 1, 1), false, false).0, 62_725.59);
    }

    #[test]
    fn legal_bases_are_read_for_incisos_and_laws() {
        assert_eq!(article_inciso("Lei 14.133/2021, art. 75, II", "75"), Some(2));
        assert_eq!(article_inciso("Lei 14.133/2021, art. 75, VIII", "75"), Some(8));
        assert_eq!(article_inciso("Lei 14.133/2021, art. 74", "74"), None);
        assert_eq!(article_inciso("Lei 14.133/2021, art. 74, III, c", "74"), Some(3));
        assert!(is_dispensa_by_value("Lei 14.133/2021, art. 75, II"));
        assert!(is_dispensa_by_value(""));
        assert!(!is_dispensa_by_value("Lei 14.133/2021, art. 75, VIII"));
        assert!(cites_old_law("Lei 8.666/1993, art. 24, II"));
        assert!(is_dispensa_by_value("Lei 8.666/1993, art. 24, II"));
        assert!(inexigibility_justified("AQUISIÇÃO DE SOFTWARE", "Lei 14.133/2021, art. 74, I"));
        assert!(inexigibility_justified("SOFTWARE DE FORNECEDOR EXCLUSIVO", "Lei 14.133/2021, art. 74"));
        assert!(!inexigibility_justified("AQUISIÇÃO DE SOFTWARE", "Lei 14.133/2021, art. 74"));
        assert_eq!(modality("Tomada de Preços"), Modality::TomadaDePrecos);
        assert_eq!(modality("Dispensa de Licitação"), Modality::Dispensa);
        assert!(is_engineering("EXECUÇÃO DE OBRA DE REFORMA DO EDIFÍCIO"));
        assert!(is_engineering("CONTRATAÇÃO DE EMPRESA DE ENGENHARIA PARA CONSTRUÇÃO"));
        assert!(!is_engineering("LOCAÇÃO DE MÃO DE OBRA PARA LIMPEZA E CONSERVAÇÃO"));
        assert!(!is_engineering("AQUISIÇÃO DE MEDICAMENTOS"));
    }
}
