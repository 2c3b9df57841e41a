//! The procurement law as the demo generator applies it when it plants or legitimises a
//! purchase, written from the statutes themselves (never from the detectors): the direct
//! purchase value limits of Lei 8.666/1993 art. 24 I/II and of Lei 14.133/2021 art. 75 I/II
//! with the decrees that updated them, the acréscimo caps of Lei 8.666 art. 65 §1 and Lei
//! 14.133 art. 125, and the modality texts the generator writes.

use chrono::NaiveDate;

/// One period of direct purchase value limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// First day in force.
    pub from: (i32, u32, u32),
    /// Limit for engineering works and services (8.666 art. 24 I; 14.133 art. 75 I).
    pub engineering: f64,
    /// Limit for other purchases and services (8.666 art. 24 II; 14.133 art. 75 II).
    pub other: f64,
    /// The act that set the limits, cited in labels.
    pub act: &'static str,
}

/// Lei 8.666/1993 art. 24 I/II (10% of the convite limits of art. 23), in force until the law's
/// repeal on 30 December 2023 (Lei 14.133 art. 193 II, as amended by LC 198/2023).
pub static LEI_8666: &[Limits] = &[
    Limits { from: (1998, 5, 28), engineering: 15_000.0, other: 8_000.0, act: "Lei 9.648/1998" },
    Limits { from: (2018, 6, 19), engineering: 33_000.0, other: 17_600.0, act: "Decreto 9.412/2018" },
];

/// Lei 14.133/2021 art. 75 I/II, updated every January by decree (art. 182).
pub static LEI_14133: &[Limits] = &[
    Limits { from: (2021, 4, 1), engineering: 100_000.0, other: 50_000.0, act: "Lei 14.133/2021" },
    Limits { from: (2022, 1, 1), engineering: 108_040.82, other: 54_020.41, act: "Decreto 10.922/2021" },
    Limits { from: (2023, 1, 1), engineering: 114_416.65, other: 57_208.33, act: "Decreto 11.317/2022" },
    Limits { from: (2024, 1, 1), engineering: 119_812.02, other: 59_906.02, act: "Decreto 11.871/2023" },
    Limits { from: (2025, 1, 1), engineering: 125_451.15, other: 62_725.59, act: "Decreto 12.343/2024" },
];

/// The limits of a law's table in force on `day`.
pub fn limits_on(table: &'static [Limits], day: NaiveDate) -> Option<&'static Limits> {
    table.iter().rev().find(|l| NaiveDate::from_ymd_opt(l.from.0, l.from.1, l.from.2).is_some_and(|d| d <= day))
}

/// The value limit of a direct purchase by value on `day` under the law in force then, with the
/// fundamentoLegal text that cites it and the act that set it.
pub fn value_limit(day: NaiveDate, engineering: bool) -> Option<(f64, String, &'static str)> {
    // Between April 2021 and the repeal both laws stood; the generator's buyers chose the new one.
    let old = day < NaiveDate::from_ymd_opt(2021, 4, 1).unwrap_or(NaiveDate::MIN);
    let (table, law, article) =
        if old { (LEI_8666, "Lei 8.666/1993", "Art. 24") } else { (LEI_14133, "Lei 14.133/2021", "Art. 75") };
    let l = limits_on(table, day)?;
    let (limit, inciso) = if engineering { (l.engineering, "I") } else { (l.other, "II") };
    Some((limit, format!("{law}, {article}, {inciso}"), l.act))
}

/// Share of the updated initial value acréscimos may add (Lei 14.133 art. 125; 8.666 art. 65 §1).
pub const ADDITION_CAP: f64 = 0.25;
/// The same for the renovation (reforma) of a building or equipment.
pub const ADDITION_CAP_RENOVATION: f64 = 0.50;

/// Modality texts the generator writes.
pub const PREGAO: &str = "Pregão";
/// Concorrência.
pub const CONCORRENCIA: &str = "Concorrência";
/// Dispensa de licitação.
pub const DISPENSA: &str = "Dispensa de Licitação";
/// Inexigibilidade de licitação.
pub const INEXIGIBILIDADE: &str = "Inexigibilidade de Licitação";

/// Whether a modality text the generator wrote is a competitive one (pregão or concorrência).
pub fn is_competitive(modality: &str) -> bool {
    modality.starts_with(PREGAO) || modality.starts_with(CONCORRENCIA)
}

/// Whether a modality text the generator wrote is a dispensa.
pub fn is_dispensa(modality: &str) -> bool {
    modality.starts_with("Dispensa")
}

/// Whether a modality text the generator wrote is an inexigibilidade.
pub fn is_inexigibilidade(modality: &str) -> bool {
    modality.starts_with("Inexigibilidade")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap_or(NaiveDate::MIN)
    }

    #[test]
    fn a_2024_dispensa_for_goods_is_limited_by_decreto_11871() {
        let (limit, basis, act) = value_limit(day(2024, 6, 1), false).expect("in force");
        assert_eq!((limit, basis.as_str(), act), (59_906.02, "Lei 14.133/2021, Art. 75, II", "Decreto 11.871/2023"));
    }

    #[test]
    fn a_2017_dispensa_falls_under_lei_8666_before_its_2018_update() {
        let (limit, basis, _) = value_limit(day(2017, 3, 1), true).expect("in force");
        assert_eq!((limit, basis.as_str()), (15_000.0, "Lei 8.666/1993, Art. 24, I"));
        assert_eq!(value_limit(day(2019, 3, 1), false).map(|l| l.0), Some(17_600.0));
    }

    #[test]
    fn the_2025_limits_come_from_decreto_12343() {
        assert_eq!(value_limit(day(2025, 2, 1), true).map(|l| l.0), Some(125_451.15));
    }
}
