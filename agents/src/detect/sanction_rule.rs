//! Whether a sanction bound a federal contract or transfer on the day it was signed: the
//! sanction's dates, its type and its scope (real/sancoes/README.md):
//!
//! - Dates: in force when start <= signing <= end (no end: indefinite). A list without start
//!   dates (the 2018 CEIS snapshot) cannot tell: the match is undecidable, never a violation.
//! - Type: impedimento, inidoneidade, suspensão and proibição bar contracting; Lei 12.846
//!   fines (CNEP "Multa"), "Publicação Extraordinária" and warnings do not
//!   ([`Sanction::bars_contracting`]).
//! - Scope: "Inidoneidade" (Lei 8.666 art. 87 IV, Lei 14.133 art. 156 IV, Lei 8.443 art. 46)
//!   binds all public administration, except one under state law ("Legislação Estadual"),
//!   which binds that state; "Impedimento" (Lei 10.520 art. 7, Lei 14.133 art. 156 III and §4)
//!   binds the sphere of government that applied it, so a state's or municipality's does not
//!   bind a federal contract; "Suspensão – Lei de Licitações" (Lei 8.666 art. 87 III) binds
//!   the sanctioning body only (TCU's reading); "Proibição – Lei de Improbidade" binds what
//!   the court order says, which the list does not carry (less certain). A scope the list
//!   does not let us read (no sanctioning body) is undecidable.

use chrono::NaiveDate;

use crate::model::sanction::Sanction;
use crate::text::fold;

/// The sphere of government of a sanctioning body, read from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sphere {
    /// Union (ministries, federal agencies, universities, TCU, CGU).
    Federal,
    /// A state or the Federal District.
    State,
    /// A municipality.
    Municipal,
    /// The name does not say.
    Unknown,
}

/// The sphere a sanctioning body's name shows.
pub fn sphere_of(authority: &str) -> Sphere {
    let a = fold(authority);
    let has = |ws: &[&str]| ws.iter().any(|w| a.contains(w));
    if has(&["prefeitura", "municipio", "municipal", "camara de vereadores"]) {
        Sphere::Municipal
    } else if has(&[
        "governo do estado",
        "estado d",
        "estadual",
        "secretaria de estado",
        "distrito federal",
        "tribunal de justica",
    ]) {
        Sphere::State
    } else if has(&[
        "ministerio",
        "uniao",
        "federal",
        "nacional",
        "brasileir",
        "agencia",
        "comando d",
        "presidencia da republica",
        "banco central",
        "petrobras",
        "correios",
        "caixa economica",
        "banco do brasil",
    ]) {
        Sphere::Federal
    } else {
        Sphere::Unknown
    }
}

/// Whether a sanction binds a federal contract of an organ with these names (organ, unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Binding {
    /// It binds, with the confidence its scope allows.
    Yes(f64),
    /// It does not (another sphere or another body).
    No,
    /// The list does not let us say.
    Unknown,
}

/// How a barring sanction's scope applies to a federal contract of `organ_names`.
pub fn binding(s: &Sanction, organ_names: &[&str]) -> Binding {
    let k = fold(&s.kind);
    let sphere = sphere_of(&s.authority);
    if k.contains("inidone") {
        return if k.contains("estadual") || matches!(sphere, Sphere::State | Sphere::Municipal) {
            Binding::No
        } else {
            Binding::Yes(0.95)
        };
    }
    if k.contains("impedimento") {
        return match sphere {
            Sphere::Federal => Binding::Yes(0.95),
            Sphere::State | Sphere::Municipal => Binding::No,
            Sphere::Unknown => Binding::Unknown,
        };
    }
    if k.contains("interdi") {
        // Lei 12.846 art. 19, II: a court's suspension of the firm's activities binds everyone.
        return Binding::Yes(0.9);
    }
    if k.contains("suspens") {
        let auth = fold(&s.authority);
        let auth = auth.trim();
        if auth.is_empty() {
            return Binding::Unknown;
        }
        let same = organ_names.iter().map(|n| fold(n)).any(|n| {
            let n = n.trim();
            !n.is_empty() && (n.contains(auth) || auth.contains(n))
        });
        return if same { Binding::Yes(0.95) } else { Binding::No };
    }
    if k.contains("proibi") {
        return Binding::Yes(0.85);
    }
    Binding::Unknown
}

/// What the sanctions of one supplier say about a contract signed on a day.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict<'a> {
    /// Signed while a binding sanction was in force: a violation, with its confidence.
    Barred(&'a Sanction, f64),
    /// A barring sanction may have been in force but the list cannot tell (no start date, or
    /// a scope it does not carry): an observation, never a violation.
    Undecidable(&'a Sanction, &'static str),
}

/// Judges a contract signed on `signed` by an organ with `organ_names` against the barring
/// sanctions of its supplier (a violation wins over an undecidable match).
pub fn judge<'a>(sanctions: &[&'a Sanction], signed: NaiveDate, organ_names: &[&str]) -> Option<Verdict<'a>> {
    let mut undecidable = None;
    for &s in sanctions {
        if s.ends_on.is_some_and(|e| signed > e) || s.starts_on.is_some_and(|st| signed < st) {
            continue;
        }
        let bind = binding(s, organ_names);
        if s.starts_on.is_none() {
            if bind != Binding::No {
                undecidable.get_or_insert(Verdict::Undecidable(s, "a lista não traz a data de início da sanção"));
            }
            continue;
        }
        match bind {
            Binding::Yes(c) => return Some(Verdict::Barred(s, c)),
            Binding::Unknown => {
                undecidable.get_or_insert(Verdict::Undecidable(s, "a lista não diz a quem a sanção se estende"));
            }
            Binding::No => {}
        }
    }
    undecidable
}

#[cfg(test)]
#[path = "sanction_rule_tests.rs"]
mod tests;
