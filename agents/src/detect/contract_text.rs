//! What the text of a contract's object says: how specific it is, which brands it names and
//! whether it accepts equivalents, and (re-exported from [`super::text_entities`]) the entities in
//! it (CNPJs, money amounts, brands, laws).
//! Shared by the `vague_object` and `brand_restriction` detectors and by Machado's analysis.
//! Everything here is one pass over the words of one text.

use std::collections::HashSet;
use std::sync::OnceLock;

pub use super::text_entities::{TextEntities, entities};
use crate::text::{WordSet, for_each_word, for_each_word_bytes, is_stopword, is_stopword_bytes};

/// Words that say what kind of purchase it is but not what is bought.
const GENERIC: &[&str] = &[
    "aquisicao",
    "aquisicoes",
    "compra",
    "compras",
    "material",
    "materiais",
    "diversos",
    "diversas",
    "servico",
    "servicos",
    "prestacao",
    "fornecimento",
    "contratacao",
    "empresa",
    "empresas",
    "especializada",
    "especializadas",
    "consumo",
    "geral",
    "gerais",
    "itens",
    "item",
    "produtos",
    "produto",
    "outros",
    "outras",
    "bens",
    "eventual",
    "eventuais",
    "atender",
    "atendimento",
    "necessidades",
    "demanda",
    "demandas",
    "uso",
    "apoio",
    "varios",
    "varias",
    "objeto",
    "execucao",
    "permanente",
    "insumos",
    "suprimentos",
    "orgao",
    "unidade",
    // "O OBJETO DO PRESENTE INSTRUMENTO É A CONTRATAÇÃO DE SERVIÇOS COMUNS ...": a preamble.
    "presente",
    "instrumento",
    "contrato",
    "comum",
    "comuns",
];

/// Whether a folded word is one of [`GENERIC`]: one hash look-up instead of a comparison with
/// each of its words (this runs on the first words of every object).
fn is_generic(w: &[u8]) -> bool {
    static SET: OnceLock<HashSet<&'static [u8], super::common::FxBuild>> = OnceLock::new();
    SET.get_or_init(|| GENERIC.iter().map(|g| g.as_bytes()).collect()).contains(w)
}

/// Brand names (folded), chosen so that none is a common Portuguese word.
pub const BRANDS: &[&str] = &[
    "hp",
    "dell",
    "lenovo",
    "apple",
    "samsung",
    "philips",
    "siemens",
    "microsoft",
    "oracle",
    "cisco",
    "intel",
    "epson",
    "canon",
    "xerox",
    "brother",
    "multilaser",
    "bic",
    "faber",
    "castell",
    "chamex",
    "toyota",
    "volkswagen",
    "fiat",
    "chevrolet",
    "ford",
    "honda",
    "yamaha",
    "scania",
    "mercedes",
    "renault",
    "nissan",
    "hyundai",
    "medtronic",
    "mindray",
    "dixtal",
    "ipiranga",
    "petrobras",
    "shell",
    "3m",
    "tilibra",
    "pilot",
    "nestle",
    "sadia",
    "seara",
];

/// Words that say the purchase serves equipment or software already in place (maintenance,
/// support, parts, licences, calibration, reagents for an installed analyser): naming the
/// maker there is how the object is identified, not a restriction of competition (Lei
/// 14.133/2021 art. 41, I, b: compatibility and standardisation). Not "reposição" alone:
/// "REPOSIÇÃO DE ESTOQUE" restocks, and spare parts say "peças".
/// [`BRANDS`] indexed: every word of every object text is looked up.
pub static BRAND_SET: WordSet = WordSet::new(BRANDS);

/// [`SERVES_EXISTING`] indexed.
static SERVES_EXISTING_SET: WordSet = WordSet::new(SERVES_EXISTING);

const SERVES_EXISTING: &[&str] = &[
    "manutencao",
    "manutencoes",
    "assistencia",
    "suporte",
    "operacao",
    "pecas",
    "licenca",
    "licencas",
    "licenciamento",
    "subscricao",
    "renovacao",
    "garantia",
    "atualizacao",
    "compativel",
    "compativeis",
    "padronizacao",
    "acessorios",
    "calibracao",
    "qualificacao",
    "requalificacao",
    "reagentes",
    "insumos",
    "comodato",
    "adequacao",
];

/// How many specific words open an object and say what it buys (its head): "MANUTENÇÃO
/// PREVENTIVA DE VENTILADORES" serves equipment in place, "LOCAÇÃO DE VEÍCULOS SEM MOTORISTA,
/// COM MANUTENÇÃO E SEGURO" rents vehicles (the maintenance is part of the rental) and
/// "AQUISIÇÃO DE VEÍCULOS, GARANTIA DE 12 MESES" buys new ones (the warranty is a clause).
const HEAD_WORDS: usize = 3;

/// Words that make a brand mandatory.
const EXCLUSIVE: &[&str] = &["exclusivamente", "exclusiva", "exclusivo", "unicamente", "somente", "apenas"];

/// Content words and specific words (content words that are neither generic purchase words
/// nor numbers) of a text, reading no further than needed: the scan stops once more than
/// `max_specific` specific words were seen (then the count is `max_specific + 1`).
pub fn specificity(object: &str, max_specific: usize) -> (usize, usize) {
    let (mut content, mut specific) = (0usize, 0usize);
    for_each_word_bytes(object, |w| {
        if is_stopword_bytes(w) {
            return true;
        }
        content += 1;
        if !w.iter().all(u8::is_ascii_digit) && !is_generic(w) {
            specific += 1;
        }
        specific <= max_specific
    });
    (content, specific)
}

/// Whether a text may name a brand: one pass over its ASCII words, each of 2 to 16 letters
/// looked up (lower-cased, packed in a `u128`) among the known brands, "marca", "marcas" and
/// "fabricante". Texts it rejects score 0 in [`TextFacts::brand_score`]; texts it accepts are
/// read in full with [`read`]. Words with accents are never brands or markers, so they are
/// skipped.
pub fn may_name_brand(object: &str) -> bool {
    /// The sorted keys, and per lower-cased first byte the bit set of the lengths of the keys
    /// starting with it (most words are rejected on those two alone).
    type Index = (Vec<(u64, u64)>, [u32; 256]);
    static INDEX: OnceLock<Index> = OnceLock::new();
    let (keys, first) = INDEX.get_or_init(|| {
        let words: Vec<&str> = BRANDS.iter().copied().chain(["marca", "marcas", "fabricante"]).collect();
        let mut k: Vec<(u64, u64)> = words.iter().filter_map(|w| pack(w.as_bytes())).collect();
        k.sort_unstable();
        let mut first = [0u32; 256];
        for w in &words {
            let c = w.as_bytes()[0];
            first[usize::from(c)] |= 1 << w.len();
            first[usize::from(c.to_ascii_uppercase())] |= 1 << w.len();
        }
        (k, first)
    });
    const ALNUM: [bool; 256] = {
        let mut t = [false; 256];
        let mut c = 0;
        while c < 256 {
            t[c] = (c as u8).is_ascii_alphanumeric();
            c += 1;
        }
        t
    };
    let b = object.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !ALNUM[usize::from(b[i])] {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && ALNUM[usize::from(b[i])] {
            i += 1;
        }
        let len = i - start;
        if len >= 32 || first[usize::from(b[start])] & (1 << len) == 0 {
            continue;
        }
        let accented = (i < b.len() && b[i] >= 0x80) || (start > 0 && b[start - 1] >= 0x80);
        if !accented
            && let Some(key) = pack(&b[start..i])
            && keys.binary_search(&key).is_ok()
        {
            return true;
        }
    }
    false
}

/// A word of 2 to 16 ASCII bytes, lower-cased and packed in two words.
fn pack(w: &[u8]) -> Option<(u64, u64)> {
    if !(2..=16).contains(&w.len()) {
        return None;
    }
    let mut k = [0u8; 16];
    for (d, c) in k.iter_mut().zip(w) {
        *d = c.to_ascii_lowercase();
    }
    let (a, b) = k.split_at(8);
    Some((u64::from_le_bytes(a.try_into().ok()?), u64::from_le_bytes(b.try_into().ok()?)))
}

/// What the object text says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextFacts {
    /// Content words (stopwords left out).
    pub content_words: usize,
    /// Content words that are neither generic purchase words nor numbers.
    pub specific_words: usize,
    /// Whether any number appears (quantities, references).
    pub has_numbers: bool,
    /// Brand names found (folded).
    pub brands: Vec<String>,
    /// Whether the word "marca" appears.
    pub brand_keyword: bool,
    /// Whether the text demands the brand: an exclusivity word ("exclusivamente") or a
    /// refusal of similars ("sem aceitação de similares").
    pub exclusive: bool,
    /// Whether an equivalent is accepted ("ou similar", "ou equivalente", "ou superior",
    /// "melhor qualidade").
    pub accepts_equivalent: bool,
    /// Whether the object serves equipment or software already in place (maintenance,
    /// support, parts, licences; see `SERVES_EXISTING`) by its head (its first `HEAD_WORDS`
    /// specific words), where the maker identifies the object.
    pub serves_existing: bool,
}

impl TextFacts {
    /// The brand-restriction score: 2 for the word "marca" with a name right after it, 1 per
    /// distinct known brand (at most 2), 1 for an exclusivity word when a brand is named; 0
    /// when an equivalent is accepted or the object serves equipment already in place.
    pub fn brand_score(&self) -> f64 {
        if self.accepts_equivalent || self.serves_existing || (!self.brand_keyword && self.brands.is_empty()) {
            return 0.0;
        }
        let keyword = if self.brand_keyword { 2.0 } else { 0.0 };
        keyword + self.brands.len().min(2) as f64 + if self.exclusive { 1.0 } else { 0.0 }
    }
}

/// Reads an object text.
pub fn read(object: &str) -> TextFacts {
    let mut f = TextFacts::default();
    let mut prev = String::new();
    let mut after_marca = false;
    let mut refusal_before = 0u8;
    for_each_word(object, |w| {
        // "MARCA DELL", "MARCA/MODELO X", "MARCA: X" name a brand; "A MARCA DA UNIVERSIDADE"
        // (an institution's image) does not, so the name must follow at once.
        if after_marca {
            // "MARCA-TEXTO" is a highlighter.
            f.brand_keyword |= !is_stopword(w) && !is_generic(w.as_bytes()) && w != "texto";
            after_marca = false;
        }
        if w == "marca" || w == "marcas" {
            after_marca = true;
        }
        // Only what the object buys counts: a maintenance clause further on (a rental "com
        // manutenção", a purchase's "garantia") does not make the purchase serve equipment in
        // place.
        f.serves_existing |= f.specific_words < HEAD_WORDS && SERVES_EXISTING_SET.contains(w);
        if prev == "ou" && matches!(w, "similar" | "similares" | "equivalente" | "equivalentes" | "superior") {
            f.accepts_equivalent = true;
        }
        if prev == "melhor" && w == "qualidade" {
            f.accepts_equivalent = true;
        }
        if !is_stopword(w) {
            f.content_words += 1;
            let numeric = w.bytes().all(|b| b.is_ascii_digit());
            f.has_numbers |= numeric;
            if !numeric && !is_generic(w.as_bytes()) {
                f.specific_words += 1;
            }
        }
        if BRAND_SET.contains(w) && !f.brands.iter().any(|b| b == w) {
            f.brands.push(w.to_string());
        }
        // "DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA" is a way of staffing a service, not a brand.
        if EXCLUSIVE.contains(&w) && prev != "dedicacao" {
            f.exclusive = true;
        }
        // "SEM ACEITAÇÃO DE SIMILARES", "NÃO SERÃO ACEITOS SIMILARES", "VEDADO EQUIVALENTE",
        // "NÃO SERÃO ACEITOS PRODUTOS DE OUTRAS MARCAS".
        let refused = matches!(w, "similar" | "similares" | "equivalente" | "equivalentes")
            || (prev == "outras" && matches!(w, "marca" | "marcas"));
        if refused && refusal_before > 0 {
            f.exclusive = true;
        }
        // A refusal reaches six words on: "NÃO SERÃO ACEITOS PRODUTOS DE OUTRAS MARCAS".
        refusal_before = if matches!(w, "sem" | "nao" | "vedado" | "vedada" | "vedados") {
            6
        } else {
            refusal_before.saturating_sub(1)
        };
        prev.clear();
        prev.push_str(w);
        true
    });
    f
}

#[cfg(test)]
#[path = "contract_text_tests.rs"]
mod tests;
