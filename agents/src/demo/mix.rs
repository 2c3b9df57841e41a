//! How the demo data is mixed: organ weights and each organ's leaning towards categories,
//! monthly seasonality, contract durations, the reference price ceiling and the purchase
//! modality a contract of a given category and value gets.

use super::catalog::Category;

/// Weight of each organ (by its position in [`crate::organs::ORGANS`]) in the data.
pub static ORGAN_WEIGHTS: &[f64] = &[0.06, 0.07, 0.16, 0.08, 0.06, 0.05, 0.18, 0.07, 0.14, 0.07, 0.06];

/// Multiplier of a category's weight in an organ (by organ code).
pub fn organ_affinity(organ: &str, c: Category) -> f64 {
    use Category::*;
    match (organ, c) {
        ("36000", Medicamentos | EquipamentosHospitalares) => 3.0,
        ("26000", Alimentacao) => 2.0,
        ("26000", Obras) => 1.5,
        ("26000", Ti) => 1.3,
        ("52000", Combustiveis) => 3.0,
        ("52000", Veiculos) => 2.0,
        ("52000", Alimentacao) => 1.5,
        ("30000", Veiculos) => 2.0,
        ("30000", Vigilancia | Ti) => 1.4,
        ("53000" | "56000", Obras) => 3.0,
        ("53000" | "56000", Consultoria) => 1.5,
        ("46000", Ti) => 2.5,
        ("46000", Consultoria) => 1.5,
        ("25000", Ti) => 2.0,
        ("24000", Ti) => 1.5,
        ("32000", Consultoria) => 2.0,
        ("33000", Ti) => 1.5,
        ("33000", Limpeza) => 1.3,
        _ => 1.0,
    }
}

/// Share of contracts signed in each month (January first) outside December.
static MONTH_SHAPE: [f64; 11] = [0.05, 0.07, 0.085, 0.085, 0.085, 0.085, 0.085, 0.085, 0.09, 0.09, 0.09];

/// Range of the December share of an organ's signatures: the federal budget cycle makes
/// December large in every organ, each with its own habit.
pub const DECEMBER_SHARE: std::ops::Range<f64> = 0.14..0.26;

/// Month weights of an organ whose December holds `december` of its signatures.
pub fn month_weights(december: f64) -> [f64; 12] {
    let rest: f64 = MONTH_SHAPE.iter().sum();
    let mut out = [december; 12];
    for (k, w) in MONTH_SHAPE.iter().enumerate() {
        out[k] = w / rest * (1.0 - december);
    }
    out
}

/// Contract durations in months.
pub static DURATIONS: &[u32] = &[6, 12, 12, 12, 12, 24, 24, 30, 36];

/// Clean values are drawn from the log-normal below `CEILING_Z` standard deviations: a bid's
/// reference price caps what a clean contract may cost.
pub const CEILING_Z: f64 = 2.0;

/// Purchase modalities with their legal basis, indexed by [`modality`]'s result.
pub static MODALITIES: [(&str, &str); 4] = [
    ("Pregão", "Lei 14.133/2021, art. 28, I"),
    ("Concorrência", "Lei 14.133/2021, art. 28, II"),
    ("Dispensa de Licitação", "Lei 14.133/2021, art. 75, II"),
    ("Inexigibilidade de Licitação", "Lei 14.133/2021, art. 74, I"),
];

/// Index into [`MODALITIES`] for a contract of this category and value, given the direct
/// purchase limit in force and a uniform draw.
pub fn modality(c: Category, value: f64, dispensa_limit: f64, u: f64) -> usize {
    const PREGAO: usize = 0;
    const CONCORRENCIA: usize = 1;
    const DISPENSA: usize = 2;
    const INEXIGIBILIDADE: usize = 3;
    if value < dispensa_limit * 0.999 && u < 0.85 {
        DISPENSA
    } else if c == Category::Obras {
        if u < 0.8 { CONCORRENCIA } else { PREGAO }
    } else if matches!(c, Category::Ti | Category::Consultoria | Category::EquipamentosHospitalares) && u < 0.07 {
        INEXIGIBILIDADE
    } else if value > 5_000_000.0 && u < 0.3 {
        CONCORRENCIA
    } else {
        PREGAO
    }
}
