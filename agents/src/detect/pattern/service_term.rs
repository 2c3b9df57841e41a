//! What a contract's object says about how long the service runs: whether it names a
//! continuing service (a "serviço contínuo" in the sense of Lei 14.133/2021 art. 6, XV: one
//! the administration needs without interruption, year after year, such as cleaning, security
//! or outsourced staff) and the term in months it states ("POR 12 (DOZE) MESES"). Read by
//! [`crate::detect::pattern::short_contract`]. One pass over the words of one text.

use crate::text::{for_each_word, is_stopword};

/// Adjectives that make a service continuing when they follow "serviço", "natureza",
/// "prestação", "forma" or "caráter" ("SERVIÇOS CONTÍNUOS", "DE NATUREZA CONTINUADA"). After
/// another noun they do not ("EDUCAÇÃO CONTINUADA" is a kind of course).
const CONTINUING: &[&str] =
    &["continuo", "continuos", "continua", "continuas", "continuado", "continuados", "continuada", "continuadas"];

/// The nouns a continuing adjective qualifies a service through.
const CONTINUING_NOUNS: &[&str] = &["servico", "servicos", "natureza", "prestacao", "forma", "carater"];

/// Words saying staff is outsourced for the service's whole term.
const OUTSOURCED: &[&str] = &["terceirizado", "terceirizados", "terceirizada", "terceirizadas", "terceirizacao"];

/// Words around a number of months that make it something other than the service's term: a
/// warranty, a shelf life, a delivery deadline ("ATÉ 3 MESES"), a consumption estimate.
const NOT_A_TERM: &[&str] = &["garantia", "validade", "ate", "consumo", "estimado", "estimada", "minimo", "minima"];

/// Portuguese number words of the terms objects state ("12 (DOZE) MESES", "SEIS MESES").
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("dois", 2),
    ("tres", 3),
    ("quatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("sete", 7),
    ("oito", 8),
    ("nove", 9),
    ("dez", 10),
    ("onze", 11),
    ("doze", 12),
    ("dezoito", 18),
    ("vinte", 20),
    ("trinta", 30),
    ("sessenta", 60),
];

/// What an object says about the service's term.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServiceTerm {
    /// The words that name a continuing service ("servicos continuos", "mao de obra",
    /// "terceirizados"), when any do.
    pub continuing: Option<String>,
    /// The longest term in months the object states for itself, when it states one of two
    /// months or more.
    pub months: Option<u32>,
}

impl ServiceTerm {
    /// Whether the object says the service runs for months: it names a continuing service or
    /// states a term of two months or more.
    pub fn runs_for_months(&self) -> bool {
        self.continuing.is_some() || self.months.is_some()
    }
}

fn number(w: &str) -> Option<u32> {
    if !w.is_empty() && w.len() <= 3 && w.bytes().all(|b| b.is_ascii_digit()) {
        return w.parse().ok();
    }
    NUMBER_WORDS.iter().find(|(n, _)| *n == w).map(|(_, v)| *v)
}

/// Reads what `object` says about its term.
pub fn read_term(object: &str) -> ServiceTerm {
    let mut t = ServiceTerm::default();
    // The last three words (folded), newest last.
    let mut last: [String; 3] = Default::default();
    // The number just read (words since, value) and whether a word before it denies a term.
    let mut pending: Option<(u8, u32, bool)> = None;
    // A term just read, which "DE GARANTIA" after it may still deny.
    let mut candidate: Option<u32> = None;
    for_each_word(object, |w| {
        if t.continuing.is_none() {
            if CONTINUING.contains(&w) && CONTINUING_NOUNS.contains(&last[2].as_str()) {
                t.continuing = Some(format!("{} {w}", last[2]));
            } else if w == "obra" && last[1] == "mao" && last[2] == "de" {
                t.continuing = Some("mao de obra".into());
            } else if OUTSOURCED.contains(&w) {
                t.continuing = Some(w.to_string());
            }
        }
        if let Some(m) = candidate.take() {
            // "12 MESES DE GARANTIA": the stopword "de" is passed over.
            if is_stopword(w) && !NOT_A_TERM.contains(&w) {
                candidate = Some(m);
            } else if !NOT_A_TERM.contains(&w) {
                t.months = t.months.max(Some(m));
            }
        }
        if w == "meses" {
            if let Some((_, m, false)) = pending.take().filter(|p| p.0 <= 2 && p.1 >= 2) {
                candidate = Some(m);
            }
        } else if let Some(n) = number(w) {
            // "12 (DOZE) MESES": the first number holds, the word after it repeats it.
            if pending.is_none_or(|p| p.0 != 0) {
                let denied = last.iter().any(|x| NOT_A_TERM.contains(&x.as_str()));
                pending = Some((0, n, denied));
            } else if let Some(p) = pending.as_mut() {
                p.0 += 1;
            }
        } else if let Some(p) = pending.as_mut() {
            p.0 += 1;
        }
        last.rotate_left(1);
        last[2].clear();
        last[2].push_str(w);
        true
    });
    if let Some(m) = candidate {
        t.months = t.months.max(Some(m));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_continuing_service_is_named_by_its_adjective_after_a_service_noun() {
        for object in [
            "CONTRATAÇÃO EMERGENCIAL DE PESSOA JURÍDICA PARA PRESTAÇÃO DOS SERVIÇOS TERCEIRIZADOS DE NATUREZA CONTINUADA",
            "CONTRATAÇÃO DE EMPRESA ESPECIALIZADA NA PRESTAÇÃO DE SERVIÇOS CONTÍNUOS DE LIMPEZA E CONSERVAÇÃO",
            "LIMPEZA PREDIAL COM DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA",
        ] {
            assert!(read_term(object).continuing.is_some(), "{object}");
        }
        for object in [
            "APOIO AO PROJETO DE PESQUISA EM TECNOLOGIAS DIGITAIS NO CONTEXTO DA EDUCAÇÃO CONTINUADA",
            "PLANEJAMENTO, ORGANIZAÇÃO E EXECUÇÃO DE EVENTO COM FORNECIMENTO DE ALIMENTOS",
            "EXECUÇÃO DE OBRA DE REFORMA DO EDIFÍCIO SEDE",
        ] {
            assert_eq!(read_term(object).continuing, None, "{object}");
        }
    }

    #[test]
    fn a_term_in_months_counts_unless_it_is_a_warranty_a_deadline_or_an_estimate() {
        let months = |o: &str| read_term(o).months;
        assert_eq!(months("VIGILÂNCIA ARMADA, POR 12 (DOZE) MESES, LOTE 3"), Some(12));
        assert_eq!(months("FORNECIMENTO DE REFEIÇÕES DURANTE 30 MESES"), Some(30));
        assert_eq!(months("ASSEIO PREDIAL, 1.200 M2, 24 MESES, POSTO 2"), Some(24));
        assert_eq!(months("PELO PERÍODO DE SEIS MESES"), Some(6));
        assert_eq!(months("AQUISIÇÃO DE VEÍCULOS, GARANTIA DE 12 MESES"), None);
        assert_eq!(months("COMPRA DE AUTOMÓVEIS, 36 MESES DE GARANTIA, ITEM 2"), None);
        assert_eq!(months("MATERIAL DE EXPEDIENTE, ENTREGA EM ATÉ 3 MESES"), None);
        assert_eq!(months("PAPEL A4, CONSUMO ESTIMADO PARA 12 MESES"), None);
        assert_eq!(months("SERVIÇO DE 1 MÊS"), None);
        assert_eq!(months("LOTE 12, 300 UNIDADES"), None);
    }
}
