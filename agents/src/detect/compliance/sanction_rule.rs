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
//!   the court order says, which the list does not carry (less certain), as do court orders
//!   that bar contracting and the electoral, antitrust and environmental prohibitions; a
//!   sanction under state or municipal law ("Legislação Estadual/Municipal") binds that entity
//!   only; the Lei 12.846 "Proibição" (art. 19, IV) bars incentives and loans, not contracts. A
//!   scope the list does not let us read (no sanctioning body, "escopo limitado") is
//!   undecidable.

use chrono::NaiveDate;

use crate::detect::compliance::compliance_rules::{Breach, UNDECIDABLE};
use crate::detect::finding::legal_confidence;
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::contract::Contract;
use crate::model::sanction::Sanction;
use crate::text::fold;

/// The key a party is matched with the sanctions by: the 8-digit CNPJ root (a sanction binds
/// the company, every branch included), the 11 digits of a CPF (also when written zero-padded
/// to 14), or the document as given.
pub fn party_key(doc: &str) -> &str {
    match document_kind(doc) {
        DocumentKind::Cpf if doc.len() == 14 => &doc[3..],
        DocumentKind::Cnpj | DocumentKind::InvalidCnpj if doc.len() == 14 => &doc[..8],
        _ => doc,
    }
}

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
    // A sanction under state or municipal law binds that entity only.
    if k.contains("legislacao estadual") || k.contains("legislacao municipal") {
        return Binding::No;
    }
    // Lei 12.846 art. 19, IV bars incentives, subsidies and loans, not contracts.
    if k.contains("proibi") && k.contains("12.846") {
        return Binding::No;
    }
    if k.contains("escopo limitado") {
        return Binding::Unknown;
    }
    if k.contains("decisao judicial") {
        // A court order's scope is the order's, which the list does not carry.
        return Binding::Yes(0.85);
    }
    if k.contains("inidone") {
        return if matches!(sphere, Sphere::State | Sphere::Municipal) { Binding::No } else { Binding::Yes(0.95) };
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

/// The names a sanction's scope is compared with: the contract's organ and unit.
fn organ_names(c: &Contract) -> [&str; 3] {
    [c.organ.name.as_str(), c.unit.name.as_str(), c.organ.acronym.as_str()]
}

pub(super) fn sanction_breach<'a>(c: &Contract, d: NaiveDate, list: &[&'a Sanction], s: f64) -> Option<Breach<'a>> {
    let value = c.value();
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let key = party_key(&c.supplier.document);
    let day = |x: NaiveDate| x.format("%d/%m/%Y").to_string();
    match judge(list, d, &organ_names(c))? {
        Verdict::Barred(sanc, conf) => {
            let until = sanc.ends_on.map_or("prazo indeterminado".to_string(), day);
            Some(Breach {
                rule: "sanctioned_supplier",
                confidence: legal_confidence(conf, s),
                at_stake: value,
                threshold: 0.0,
                observed: value,
                law: "Lei 14.133/2021, art. 14, III e art. 156; Lei 8.666/1993, art. 87; Lei 10.520/2002, art. 7; cadastros CEIS/CNEP".into(),
                pt: format!(
                    "O contrato {} foi assinado em {} com {}, que estava sancionada no {} ({}, aplicada por {}, de {} a {}) e impedida de contratar com o órgão contratante.",
                    number, day(d), c.supplier.name, sanc.register, sanc.kind, sanc.authority,
                    sanc.starts_on.map_or(String::new(), day), until
                ),
                en: format!(
                    "Contract {} was signed on {} with {}, which was under a {} sanction ({}, by {}) barring it from contracting with this organ.",
                    number, d.format("%Y-%m-%d"), c.supplier.name, sanc.register, sanc.kind, sanc.authority
                ),
                technical: format!("supplier root {} matches sanction {} ({}, {}) in force on the signing date {} and binding the contracting organ", key, sanc.id, sanc.register, sanc.kind, d),
                sanction: Some(sanc),
            })
        }
        Verdict::Undecidable(sanc, why) => Some(Breach {
            rule: UNDECIDABLE,
            confidence: legal_confidence(0.8, s),
            at_stake: 0.0,
            threshold: 0.0,
            observed: value,
            law: "Lei 14.133/2021, art. 156; cadastros CEIS/CNEP (indecidível)".into(),
            pt: format!(
                "O fornecedor {} do contrato {} (assinado em {}) consta do {} com sanção {} ({}), mas não é possível decidir se ela o alcançava: {}. Indecidível, não é violação.",
                c.supplier.name,
                number,
                day(d),
                sanc.register,
                sanc.kind,
                sanc.authority,
                why
            ),
            en: format!(
                "The supplier of contract {} (signed {}) is listed in {} ({}), but whether the sanction bound this contract is undecidable from the list.",
                number,
                d.format("%Y-%m-%d"),
                sanc.register,
                sanc.kind
            ),
            technical: format!(
                "undecidable: supplier root {} matches sanction {} ({}); {}",
                key, sanc.id, sanc.kind, why
            ),
            sanction: Some(sanc),
        }),
    }
}

#[cfg(test)]
#[path = "sanction_rule_tests.rs"]
mod tests;
