//! Real SIAFI "órgão superior" codes of the federal executive, with acronyms, names, the words
//! users type for them, and a few managing units (UG) per organ for the demo data.

use crate::text::fold;

/// A managing unit (UG) of an organ: 6-digit code, name and the city it sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitInfo {
    /// 6-digit UG code.
    pub code: &'static str,
    /// Name as SIAFI spells it (upper case, no accents).
    pub name: &'static str,
    /// City, for object texts.
    pub city: &'static str,
}

/// One "órgão superior".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrganInfo {
    /// 5-digit SIAFI code.
    pub code: &'static str,
    /// Acronym (may be empty upstream; ours is the usual one).
    pub acronym: &'static str,
    /// Full name.
    pub name: &'static str,
    /// Folded phrases that name it in a query (`saude`, `educacao`, ...), matched on word
    /// boundaries.
    pub aliases: &'static [&'static str],
    /// Some of its managing units (demo data).
    pub units: &'static [UnitInfo],
}

macro_rules! u {
    ($code:literal, $name:literal, $city:literal) => {
        UnitInfo { code: $code, name: $name, city: $city }
    };
}

/// Every organ known, in code order.
pub static ORGANS: &[OrganInfo] = &[
    OrganInfo {
        code: "24000",
        acronym: "MCTI",
        name: "Ministério da Ciência, Tecnologia e Inovação",
        aliases: &["mcti", "ciencia", "ciencia e tecnologia", "ciencia tecnologia e inovacao"],
        units: &[
            u!("240101", "COORDENACAO-GERAL DE RECURSOS LOGISTICOS/MCTI", "BRASILIA"),
            u!("240123", "INSTITUTO NACIONAL DE PESQUISAS ESPACIAIS", "SAO JOSE DOS CAMPOS"),
            u!("240126", "INSTITUTO NACIONAL DE PESQUISAS DA AMAZONIA", "MANAUS"),
        ],
    },
    OrganInfo {
        code: "25000",
        acronym: "MF",
        name: "Ministério da Fazenda",
        aliases: &["fazenda", "ministerio da fazenda", "economia"],
        units: &[
            u!("170013", "COORDENACAO-GERAL DE ORCAMENTO FINANCAS E CONTABILIDADE/MF", "BRASILIA"),
            u!("170010", "SUPERINTENDENCIA REGIONAL DA RECEITA FEDERAL 8A RF", "SAO PAULO"),
            u!("170153", "SUPERINTENDENCIA DE ADMINISTRACAO DO MF NO RIO DE JANEIRO", "RIO DE JANEIRO"),
        ],
    },
    OrganInfo {
        code: "26000",
        acronym: "MEC",
        name: "Ministério da Educação",
        aliases: &["mec", "educacao", "ministerio da educacao", "universidades federais"],
        units: &[
            u!("150002", "SUBSECRETARIA DE ASSUNTOS ADMINISTRATIVOS/MEC", "BRASILIA"),
            u!("153173", "FUNDO NACIONAL DE DESENVOLVIMENTO DA EDUCACAO", "BRASILIA"),
            u!("153115", "UNIVERSIDADE FEDERAL DO RIO DE JANEIRO", "RIO DE JANEIRO"),
            u!("153062", "UNIVERSIDADE FEDERAL DE MINAS GERAIS", "BELO HORIZONTE"),
            u!("153080", "UNIVERSIDADE FEDERAL DA BAHIA", "SALVADOR"),
        ],
    },
    OrganInfo {
        code: "30000",
        acronym: "MJSP",
        name: "Ministério da Justiça e Segurança Pública",
        aliases: &["mjsp", "justica", "seguranca publica", "justica e seguranca publica", "policia federal"],
        units: &[
            u!("200005", "COORDENACAO-GERAL DE LOGISTICA/MJSP", "BRASILIA"),
            u!("200334", "SUPERINTENDENCIA REGIONAL DA POLICIA FEDERAL EM SP", "SAO PAULO"),
            u!("200109", "DEPARTAMENTO DE POLICIA RODOVIARIA FEDERAL", "BRASILIA"),
        ],
    },
    OrganInfo {
        code: "32000",
        acronym: "MME",
        name: "Ministério de Minas e Energia",
        aliases: &["mme", "minas e energia", "energia"],
        units: &[
            u!("320001", "COORDENACAO-GERAL DE RECURSOS LOGISTICOS/MME", "BRASILIA"),
            u!("323031", "AGENCIA NACIONAL DO PETROLEO", "RIO DE JANEIRO"),
            u!("323028", "AGENCIA NACIONAL DE MINERACAO", "BELO HORIZONTE"),
        ],
    },
    OrganInfo {
        code: "33000",
        acronym: "MPS",
        name: "Ministério da Previdência Social",
        aliases: &["mps", "previdencia", "previdencia social", "inss"],
        units: &[
            u!("330001", "COORDENACAO-GERAL DE LOGISTICA/MPS", "BRASILIA"),
            u!("510001", "INSTITUTO NACIONAL DO SEGURO SOCIAL - DIRETORIA", "BRASILIA"),
            u!("512001", "SUPERINTENDENCIA REGIONAL SUDESTE I/INSS", "SAO PAULO"),
        ],
    },
    OrganInfo {
        code: "36000",
        acronym: "MS",
        name: "Ministério da Saúde",
        aliases: &["ms", "saude", "ministerio da saude", "sus"],
        units: &[
            u!("250005", "COORDENACAO-GERAL DE MATERIAL E PATRIMONIO/MS", "BRASILIA"),
            u!("257001", "FUNDO NACIONAL DE SAUDE", "BRASILIA"),
            u!("250057", "NUCLEO ESTADUAL DO MS NO RIO DE JANEIRO", "RIO DE JANEIRO"),
            u!("250059", "NUCLEO ESTADUAL DO MS EM SAO PAULO", "SAO PAULO"),
            u!("250102", "HOSPITAL FEDERAL DE BONSUCESSO", "RIO DE JANEIRO"),
            u!("254420", "FUNDACAO OSWALDO CRUZ", "RIO DE JANEIRO"),
        ],
    },
    OrganInfo {
        code: "46000",
        acronym: "MGI",
        name: "Ministério da Gestão e da Inovação em Serviços Públicos",
        aliases: &["mgi", "gestao", "gestao e inovacao", "inovacao em servicos publicos"],
        units: &[
            u!("201004", "SECRETARIA DE GESTAO CORPORATIVA/MGI", "BRASILIA"),
            u!("201013", "CENTRAL DE COMPRAS/MGI", "BRASILIA"),
            u!("201057", "SUPERINTENDENCIA DO PATRIMONIO DA UNIAO EM PE", "RECIFE"),
        ],
    },
    OrganInfo {
        code: "52000",
        acronym: "MD",
        name: "Ministério da Defesa",
        aliases: &["md", "defesa", "ministerio da defesa", "forcas armadas", "exercito", "marinha", "aeronautica"],
        units: &[
            u!("110407", "SECRETARIA DE ORGANIZACAO INSTITUCIONAL/MD", "BRASILIA"),
            u!("160071", "COMANDO LOGISTICO DO EXERCITO", "BRASILIA"),
            u!("787000", "DIRETORIA DE ABASTECIMENTO DA MARINHA", "RIO DE JANEIRO"),
            u!("120006", "GRUPAMENTO DE APOIO DE BRASILIA/COMAER", "BRASILIA"),
            u!("160136", "HOSPITAL MILITAR DE AREA DE PORTO ALEGRE", "PORTO ALEGRE"),
        ],
    },
    OrganInfo {
        code: "53000",
        acronym: "MIDR",
        name: "Ministério da Integração e do Desenvolvimento Regional",
        aliases: &["midr", "integracao", "desenvolvimento regional", "integracao nacional"],
        units: &[
            u!("530001", "COORDENACAO-GERAL DE RECURSOS LOGISTICOS/MIDR", "BRASILIA"),
            u!("533014", "DEPARTAMENTO NACIONAL DE OBRAS CONTRA AS SECAS", "FORTALEZA"),
            u!("535040", "CIA DE DESENV. DOS VALES DO SAO FRANCISCO E DO PARNAIBA", "PETROLINA"),
        ],
    },
    OrganInfo {
        code: "56000",
        acronym: "MCID",
        name: "Ministério das Cidades",
        aliases: &["mcid", "cidades", "ministerio das cidades"],
        units: &[
            u!("560001", "COORDENACAO-GERAL DE RECURSOS LOGISTICOS/MCID", "BRASILIA"),
            u!("560018", "SECRETARIA NACIONAL DE HABITACAO", "BRASILIA"),
            u!("560023", "SECRETARIA NACIONAL DE MOBILIDADE URBANA", "BRASILIA"),
        ],
    },
];

/// The organ with this SIAFI code.
pub fn organ_by_code(code: &str) -> Option<&'static OrganInfo> {
    let code = code.trim();
    ORGANS.iter().find(|o| o.code == code)
}

/// Each organ's phrases (aliases, SIAFI code, folded full name), each padded by spaces so that a
/// match is on word boundaries, in one automaton whose pattern ids map to the organs; built once.
static PHRASES: std::sync::LazyLock<(aho_corasick::AhoCorasick, Vec<&'static OrganInfo>)> =
    std::sync::LazyLock::new(|| {
        let mut organs = Vec::new();
        let mut phrases = Vec::new();
        for o in ORGANS {
            let named = o.aliases.iter().copied().chain([o.code]).map(|p| format!(" {p} "));
            for phrase in named.chain([format!(" {} ", normalise_spaces(&fold(o.name)))]) {
                phrases.push(phrase);
                organs.push(o);
            }
        }
        let automaton = aho_corasick::AhoCorasick::new(&phrases).expect("the organs' phrases build an automaton");
        (automaton, organs)
    });

/// The organs a free text mentions (by alias, acronym, full name or SIAFI code), in order of
/// first mention, each once. Accents and case are ignored; matches are on word boundaries.
pub fn organs_in_text(text: &str) -> Vec<&'static OrganInfo> {
    let padded = format!(" {} ", normalise_spaces(&fold(text)));
    let (automaton, organs) = &*PHRASES;
    let mut found: Vec<(usize, &'static OrganInfo)> = Vec::new();
    // Overlapping: a phrase inside another ("saude" in "ministerio da saude") is seen too.
    for m in automaton.find_overlapping_iter(&padded) {
        let organ = organs[m.pattern().as_usize()];
        match found.iter_mut().find(|(_, o)| std::ptr::eq(*o, organ)) {
            Some((pos, _)) => *pos = (*pos).min(m.start()),
            None => found.push((m.start(), organ)),
        }
    }
    found.sort_by_key(|(pos, o)| (*pos, o.code));
    found.into_iter().map(|(_, o)| o).collect()
}

/// Replaces punctuation by spaces and collapses runs of spaces.
fn normalise_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = if c.is_alphanumeric() { c } else { ' ' };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_about_the_health_ministry_finds_code_36000() {
        let found = organs_in_text("contratos do Ministério da Saúde");
        assert_eq!(found.iter().map(|o| o.code).collect::<Vec<_>>(), vec!["36000"]);
        assert_eq!(organs_in_text("SAÚDE em 2024")[0].code, "36000");
    }

    #[test]
    fn education_is_26000_and_several_organs_come_in_order_of_mention() {
        assert_eq!(organs_in_text("gastos com educação")[0].code, "26000");
        let codes: Vec<_> = organs_in_text("defesa e cidades, depois o MEC").iter().map(|o| o.code).collect();
        assert_eq!(codes, vec!["52000", "56000", "26000"]);
        assert_eq!(organs_in_text("órgão 32000")[0].code, "32000");
    }

    #[test]
    fn words_that_merely_contain_an_alias_do_not_match() {
        assert!(organs_in_text("compras de msdos e mdf").is_empty());
        assert!(organs_in_text("").is_empty());
    }

    #[test]
    fn every_organ_has_a_five_digit_code_and_six_digit_units() {
        assert_eq!(ORGANS.len(), 11);
        for o in ORGANS {
            assert_eq!(o.code.len(), 5);
            assert!(!o.units.is_empty());
            assert!(o.units.iter().all(|u| u.code.len() == 6 && u.code.bytes().all(|b| b.is_ascii_digit())));
            assert_eq!(organ_by_code(o.code), Some(o));
        }
    }
}
