//! Object texts of the demo contracts: templates compiled once into literal and slot segments,
//! then filled per contract (items, unit, city, quantities, references, process number) with
//! cheap integer formatting.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::catalog::{BOILERPLATE, Profile};
use crate::organs::UnitInfo;

/// One piece of a compiled template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// Literal text.
    Text(&'static str),
    /// `{B}`: the service boilerplate.
    Boilerplate,
    /// `{ITENS}`: three items of the category.
    Items,
    /// `{UG}`: the unit's name.
    Unit,
    /// `{CIDADE}`: the unit's city.
    City,
    /// `{QTD}`: a quantity.
    Quantity,
    /// `{MESES}`: the duration in months.
    Months,
    /// `{REF}`: a reference document number and year.
    Reference,
    /// `{LOTE}`: a lot number.
    Lot,
}

/// Compiles one template.
pub fn compile(template: &'static str) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        if start > 0 {
            out.push(Seg::Text(&rest[..start]));
        }
        let Some(len) = rest[start..].find('}') else { break };
        out.push(match &rest[start + 1..start + len] {
            "B" => Seg::Boilerplate,
            "ITENS" => Seg::Items,
            "UG" => Seg::Unit,
            "CIDADE" => Seg::City,
            "QTD" => Seg::Quantity,
            "MESES" => Seg::Months,
            "REF" => Seg::Reference,
            "LOTE" => Seg::Lot,
            _ => Seg::Text(&rest[start..=start + len]),
        });
        rest = &rest[start + len + 1..];
    }
    if !rest.is_empty() {
        out.push(Seg::Text(rest));
    }
    out
}

/// Every template of every profile, compiled, indexed like [`PROFILES`].
pub fn compile_all(profiles: &[Profile]) -> Vec<Vec<Vec<Seg>>> {
    profiles.iter().map(|p| p.templates.iter().map(|t| compile(t)).collect()).collect()
}

/// Appends `n` in decimal, left-padded with zeros to `width` digits.
pub fn push_uint(out: &mut String, n: u64, width: usize) {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut v = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    const ZEROS: &str = "00000000000000000000";
    let pad = width.saturating_sub(digits.len() - k).min(ZEROS.len());
    out.push_str(&ZEROS[..pad]);
    out.push_str(std::str::from_utf8(&digits[k..]).unwrap_or(""));
}

/// What a filled template needs besides random draws.
pub struct Fill<'a> {
    /// The category's profile.
    pub profile: &'a Profile,
    /// The managing unit.
    pub unit: &'a UnitInfo,
    /// Signing year.
    pub year: i32,
    /// Duration in months.
    pub months: u32,
    /// The contract's process number, cited at the end.
    pub process: &'a str,
}

/// Fills a compiled template.
pub fn render(segs: &[Seg], f: &Fill<'_>, rng: &mut ChaCha8Rng) -> String {
    let mut out = String::with_capacity(360);
    let year = u64::try_from(f.year).unwrap_or(0);
    for seg in segs {
        match *seg {
            Seg::Text(t) => out.push_str(t),
            Seg::Boilerplate => out.push_str(BOILERPLATE),
            Seg::Items => push_items(&mut out, f.profile.items, rng),
            Seg::Unit => out.push_str(f.unit.name),
            Seg::City => out.push_str(f.unit.city),
            Seg::Quantity => push_uint(&mut out, rng.gen_range(10..10_000u64), 0),
            Seg::Months => push_uint(&mut out, u64::from(f.months), 0),
            Seg::Reference => {
                push_uint(&mut out, rng.gen_range(1..100_000u64), 5);
                out.push('/');
                push_uint(&mut out, year, 4);
            }
            Seg::Lot => push_uint(&mut out, rng.gen_range(1..=40u64), 0),
        }
    }
    out.push_str(", PROCESSO ");
    out.push_str(f.process);
    out
}

/// Three distinct items, "A, B E C".
fn push_items(out: &mut String, items: &[&str], rng: &mut ChaCha8Rng) {
    let mut idx = [0usize; 16];
    let n = items.len().min(16);
    for (i, slot) in idx.iter_mut().enumerate().take(n) {
        *slot = i;
    }
    let k = 3.min(n);
    for i in 0..k {
        let j = rng.gen_range(i..n);
        idx.swap(i, j);
    }
    for (i, item) in idx[..k].iter().map(|&j| items[j]).enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == k { " E " } else { ", " });
        }
        out.push_str(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn templates_compile_into_literals_and_slots() {
        assert_eq!(compile("A {QTD} B {LOTE}"), vec![Seg::Text("A "), Seg::Quantity, Seg::Text(" B "), Seg::Lot]);
        assert_eq!(compile("{B} X"), vec![Seg::Boilerplate, Seg::Text(" X")]);
    }

    #[test]
    fn integers_are_zero_padded_to_the_width() {
        let mut s = String::new();
        push_uint(&mut s, 42, 5);
        s.push(' ');
        push_uint(&mut s, 123_456, 2);
        s.push(' ');
        push_uint(&mut s, 0, 0);
        assert_eq!(s, "00042 123456 0");
    }

    #[test]
    fn a_filled_template_has_no_slot_left_and_cites_the_process() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let unit = crate::organs::ORGANS[0].units[0];
        let all = super::super::catalog::PROFILES.iter().chain(super::super::catalog_shifted::SHIFTED);
        for (p, templates) in all.clone().zip(
            compile_all(super::super::catalog::PROFILES)
                .into_iter()
                .chain(compile_all(super::super::catalog_shifted::SHIFTED)),
        ) {
            for segs in &templates {
                let fill = Fill { profile: p, unit: &unit, year: 2024, months: 12, process: "24000.000001/2024-10" };
                let text = render(segs, &fill, &mut rng);
                assert!(!text.contains('{') && !text.contains('}'), "{text}");
                assert!(text.ends_with("PROCESSO 24000.000001/2024-10"));
            }
        }
    }
}
