//! Object categories of contracts, derived from the object text with a keyword lexicon: the
//! first word of the text that is a known keyword decides (objects name what is bought early:
//! "AQUISIÇÃO DE MEDICAMENTOS ...", "... PRESTAÇÃO DE SERVIÇOS DE LIMPEZA ...").

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::text::for_each_word_bytes;

/// What a contract buys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Medicines and pharmaceutical supplies.
    Medicamentos,
    /// Construction works, renovations, engineering.
    Obras,
    /// Cleaning and conservation services.
    Limpeza,
    /// Security guards and patrimonial surveillance.
    Vigilancia,
    /// Software, IT services and equipment.
    Ti,
    /// Vehicles: purchase and rental.
    Veiculos,
    /// Food and meals.
    Alimentacao,
    /// Consulting and advisory services.
    Consultoria,
    /// Office supplies.
    Expediente,
    /// Hospital and medical equipment.
    EquipamentosHospitalares,
    /// Fuel.
    Combustiveis,
    /// Anything the lexicon does not recognise.
    Outros,
}

impl Category {
    /// Every category, `Outros` last.
    pub const ALL: [Category; 12] = [
        Category::Medicamentos,
        Category::Obras,
        Category::Limpeza,
        Category::Vigilancia,
        Category::Ti,
        Category::Veiculos,
        Category::Alimentacao,
        Category::Consultoria,
        Category::Expediente,
        Category::EquipamentosHospitalares,
        Category::Combustiveis,
        Category::Outros,
    ];

    /// Stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Medicamentos => "medicamentos",
            Category::Obras => "obras_reforma",
            Category::Limpeza => "limpeza_conservacao",
            Category::Vigilancia => "vigilancia",
            Category::Ti => "software_ti",
            Category::Veiculos => "veiculos",
            Category::Alimentacao => "alimentacao",
            Category::Consultoria => "consultoria",
            Category::Expediente => "material_expediente",
            Category::EquipamentosHospitalares => "equipamentos_hospitalares",
            Category::Combustiveis => "combustiveis",
            Category::Outros => "outros",
        }
    }

    /// Portuguese label for texts.
    pub fn label(self) -> &'static str {
        match self {
            Category::Medicamentos => "medicamentos",
            Category::Obras => "obras e reformas",
            Category::Limpeza => "limpeza e conservação",
            Category::Vigilancia => "vigilância",
            Category::Ti => "software e TI",
            Category::Veiculos => "veículos",
            Category::Alimentacao => "alimentação",
            Category::Consultoria => "consultoria",
            Category::Expediente => "material de expediente",
            Category::EquipamentosHospitalares => "equipamentos hospitalares",
            Category::Combustiveis => "combustíveis",
            Category::Outros => "outros",
        }
    }

    /// Index in [`Category::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Keywords (folded). A trailing `*` matches any word starting with the stem.
const LEXICON: &[(&str, Category)] = &[
    ("medicament*", Category::Medicamentos),
    ("farmac*", Category::Medicamentos),
    ("farmaco*", Category::Medicamentos),
    ("vacina*", Category::Medicamentos),
    ("imunobiologic*", Category::Medicamentos),
    ("obra", Category::Obras),
    ("obras", Category::Obras),
    ("reforma", Category::Obras),
    ("reformas", Category::Obras),
    ("construcao", Category::Obras),
    ("ampliacao", Category::Obras),
    ("pavimentacao", Category::Obras),
    ("edificacao", Category::Obras),
    ("engenharia", Category::Obras),
    ("limpeza", Category::Limpeza),
    ("conservacao", Category::Limpeza),
    ("higienizacao", Category::Limpeza),
    ("asseio", Category::Limpeza),
    ("vigilancia", Category::Vigilancia),
    ("vigilantes", Category::Vigilancia),
    ("seguranca", Category::Vigilancia),
    ("software*", Category::Ti),
    ("informatica", Category::Ti),
    ("computadores", Category::Ti),
    ("licencas", Category::Ti),
    ("licenciamento", Category::Ti),
    ("datacenter", Category::Ti),
    ("nuvem", Category::Ti),
    ("tecnologia", Category::Ti),
    ("veicul*", Category::Veiculos),
    ("viatura*", Category::Veiculos),
    ("automove*", Category::Veiculos),
    ("ambulancia*", Category::Veiculos),
    ("alimenta*", Category::Alimentacao),
    ("refeicoes", Category::Alimentacao),
    ("refeicao", Category::Alimentacao),
    ("generos", Category::Alimentacao),
    ("merenda", Category::Alimentacao),
    ("consultoria", Category::Consultoria),
    ("assessoria", Category::Consultoria),
    ("expediente", Category::Expediente),
    ("papelaria", Category::Expediente),
    ("escritorio", Category::Expediente),
    ("hospitala*", Category::EquipamentosHospitalares),
    ("medico", Category::EquipamentosHospitalares),
    ("medicos", Category::EquipamentosHospitalares),
    ("odontologic*", Category::EquipamentosHospitalares),
    ("combustive*", Category::Combustiveis),
    ("gasolina", Category::Combustiveis),
    ("diesel", Category::Combustiveis),
    ("etanol", Category::Combustiveis),
];

/// How many leading words of an object are read.
const MAX_WORDS: usize = 24;

/// A keyword: stem, whether it matches as a prefix, its category.
type Keyword = (&'static str, bool, Category);

/// The lexicon indexed by first letter.
fn index() -> &'static [Vec<Keyword>; 26] {
    static INDEX: OnceLock<[Vec<Keyword>; 26]> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut idx: [Vec<Keyword>; 26] = Default::default();
        for (kw, cat) in LEXICON {
            let (stem, prefix) = match kw.strip_suffix('*') {
                Some(s) => (s, true),
                None => (*kw, false),
            };
            let first = usize::from(stem.as_bytes()[0] - b'a');
            idx[first].push((stem, prefix, *cat));
        }
        idx
    })
}

/// The category of an object text: the first keyword among its first words, else `Outros`.
pub fn categorise(object: &str) -> Category {
    let idx = index();
    let mut found = Category::Outros;
    let mut seen = 0;
    for_each_word_bytes(object, |w| {
        seen += 1;
        let b = w[0];
        if b.is_ascii_lowercase() {
            for (stem, prefix, cat) in &idx[usize::from(b - b'a')] {
                if (*prefix && w.starts_with(stem.as_bytes())) || (!*prefix && w == stem.as_bytes()) {
                    found = *cat;
                    return false;
                }
            }
        }
        seen < MAX_WORDS
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_categorised_by_their_first_keyword() {
        assert_eq!(categorise("AQUISIÇÃO DE MEDICAMENTOS PARA UNIDADES HOSPITALARES"), Category::Medicamentos);
        assert_eq!(
            categorise("CONTRATAÇÃO DE EMPRESA ESPECIALIZADA NA PRESTAÇÃO DE SERVIÇOS DE LIMPEZA E CONSERVAÇÃO"),
            Category::Limpeza
        );
        assert_eq!(categorise("Reforma do bloco B"), Category::Obras);
        assert_eq!(categorise("Aquisição de equipamentos hospitalares"), Category::EquipamentosHospitalares);
        assert_eq!(categorise("LOCAÇÃO DE VEÍCULOS"), Category::Veiculos);
        assert_eq!(categorise("Serviço de buffet"), Category::Outros);
        assert_eq!(categorise(""), Category::Outros);
    }

    #[test]
    fn stems_do_not_match_unrelated_words_and_exact_words_need_the_whole_word() {
        assert_eq!(categorise("obrigatoriedade de registro"), Category::Outros);
        assert_eq!(categorise("fornecimento de combustível diesel"), Category::Combustiveis);
        assert_eq!(Category::ALL.iter().map(|c| c.index()).collect::<Vec<_>>(), (0..12).collect::<Vec<_>>());
    }
}
