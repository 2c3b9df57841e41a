//! The value limits of a dispensa "em razão do valor", by law and by date, with the act that
//! set each, and the law in force on a date.
//!
//! Sources:
//! - Lei 8.666/1993, art. 24, I and II: 10% of the convite limits of art. 23, I, a and II, a.
//!   With the values of Lei 9.648/1998: R$ 15.000,00 (obras e serviços de engenharia) and
//!   R$ 8.000,00 (other services and purchases). Decreto 9.412/2018 (DOU 19/06/2018, in force
//!   thirty days after publication, art. 3: 19/07/2018) raised them to R$ 33.000,00 and
//!   R$ 17.600,00. Lei 8.666 was revoked on 30/12/2023 (Lei 14.133, art. 193, II, as amended by
//!   Lei Complementar 198/2023); a purchase opened under it before then stays under it.
//! - Lei 14.133/2021 (in force from 01/04/2021, art. 194), art. 75, I and II: R$ 100.000,00
//!   (obras e serviços de engenharia, vehicle maintenance) and R$ 50.000,00 (others), updated
//!   every 1 January by decree (art. 182, IPCA-E): Decreto 11.317/2022 for 2023
//!   (R$ 114.416,65 / R$ 57.208,33), Decreto 11.871/2023 for 2024 (R$ 119.812,02 /
//!   R$ 59.906,02), Decreto 12.343/2024 for 2025 (R$ 125.451,15 / R$ 62.725,59). Later years use
//!   the last update listed here, which the evidence names, so a later decree only raises the
//!   bar an excess must clear.
//! - Lei 13.303/2016 (state companies), art. 29, I and II: R$ 100.000,00 and R$ 50.000,00;
//!   §3 lets each company's board update them, so a finding under it is less certain.

use chrono::{Datelike, NaiveDate};

use super::legal_basis::Law;

/// One period's direct-purchase limits, with the act that set them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispensaLimits {
    /// First year the limits apply to.
    pub from_year: i32,
    /// Last year they apply to.
    pub to_year: i32,
    /// Obras e serviços de engenharia (inciso I).
    pub engineering: f64,
    /// Other services and purchases (inciso II).
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

/// Lei 8.666/1993 limits from Decreto 9.412/2018 on.
pub const LIMITS_8666: DispensaLimits = DispensaLimits {
    from_year: 2018,
    to_year: 2023,
    engineering: 33_000.00,
    other: 17_600.00,
    act: "Lei 8.666/1993, art. 24, I e II (Decreto 9.412/2018)",
};

/// Lei 8.666/1993 limits before Decreto 9.412/2018 (Lei 9.648/1998 values).
pub const LIMITS_8666_1998: DispensaLimits = DispensaLimits {
    from_year: 1998,
    to_year: 2018,
    engineering: 15_000.00,
    other: 8_000.00,
    act: "Lei 8.666/1993, art. 24, I e II (redação da Lei 9.648/1998)",
};

/// Lei 13.303/2016 limits (art. 29, I and II).
pub const LIMITS_13303: DispensaLimits = DispensaLimits {
    from_year: 2016,
    to_year: 9999,
    engineering: 100_000.00,
    other: 50_000.00,
    act: "Lei 13.303/2016, art. 29, I e II",
};

fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or(NaiveDate::MIN)
}

/// The day Decreto 9.412/2018 came into force.
pub fn decree_9412_start() -> NaiveDate {
    ymd(2018, 7, 19)
}

/// The day Lei 14.133/2021 came into force.
pub fn law_14133_start() -> NaiveDate {
    ymd(2021, 4, 1)
}

/// The last day of Lei 8.666/1993 (and of convite and tomada de preços).
pub fn law_8666_end() -> NaiveDate {
    ymd(2023, 12, 30)
}

/// Lei 14.133 limits in force in `year` (years after the table use its last row).
pub fn limits_14133(year: i32) -> &'static DispensaLimits {
    LIMITS_14133.iter().find(|l| (l.from_year..=l.to_year).contains(&year)).unwrap_or(
        if year < LIMITS_14133[0].from_year { &LIMITS_14133[0] } else { &LIMITS_14133[LIMITS_14133.len() - 1] },
    )
}

/// Lei 8.666 limits in force on `date`.
pub fn limits_8666(date: NaiveDate) -> &'static DispensaLimits {
    if date < decree_9412_start() { &LIMITS_8666_1998 } else { &LIMITS_8666 }
}

/// The value limits `law` set for a purchase signed on `date`, or `None` when the law has no
/// value limits or was not in force on that date (Lei 14.133 before 01/04/2021).
pub fn limits(law: &Law, date: NaiveDate) -> Option<&'static DispensaLimits> {
    match law {
        Law::L8666 => Some(limits_8666(date)),
        Law::L14133 => (date >= law_14133_start()).then(|| limits_14133(date.year())),
        Law::L13303 => Some(&LIMITS_13303),
        _ => None,
    }
}

/// The general procurement law a purchase signed on `date` with no law cited was most likely
/// made under, for its value limits: Lei 8.666 before 01/04/2021, Lei 14.133 after. In the
/// transition (01/04/2021 to 30/12/2023) either could apply; Lei 14.133, whose limits are
/// higher, is taken so that the doubt favours the buyer.
pub fn law_in_force(date: NaiveDate) -> Law {
    if date < law_14133_start() { Law::L8666 } else { Law::L14133 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_law_has_the_limits_of_its_date() {
        let l = |law: Law, y, m, d| limits(&law, ymd(y, m, d)).map(|x| (x.engineering, x.other));
        assert_eq!(l(Law::L8666, 2017, 5, 1), Some((15_000.0, 8_000.0)));
        assert_eq!(l(Law::L8666, 2018, 7, 18), Some((15_000.0, 8_000.0)));
        assert_eq!(l(Law::L8666, 2018, 7, 19), Some((33_000.0, 17_600.0)));
        assert_eq!(l(Law::L8666, 2024, 2, 1), Some((33_000.0, 17_600.0)));
        assert_eq!(l(Law::L14133, 2021, 3, 31), None);
        assert_eq!(l(Law::L14133, 2021, 4, 1), Some((100_000.0, 50_000.0)));
        assert_eq!(l(Law::L14133, 2023, 12, 31), Some((114_416.65, 57_208.33)));
        assert_eq!(l(Law::L14133, 2024, 1, 1), Some((119_812.02, 59_906.02)));
        assert_eq!(l(Law::L14133, 2025, 6, 1), Some((125_451.15, 62_725.59)));
        assert_eq!(l(Law::L14133, 2026, 6, 1), Some((125_451.15, 62_725.59)));
        assert_eq!(l(Law::L13303, 2024, 6, 1), Some((100_000.0, 50_000.0)));
        assert_eq!(l(Law::L10520, 2024, 6, 1), None);
        assert_eq!(law_in_force(ymd(2020, 1, 1)), Law::L8666);
        assert_eq!(law_in_force(ymd(2022, 1, 1)), Law::L14133);
    }
}
