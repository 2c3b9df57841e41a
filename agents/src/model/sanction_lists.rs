//! Reading sanctions lists published as CSV into [`Sanction`]s, each format told by its header:
//!
//! - the CEIS snapshot reduced to `cnpjcpf,nome,tipo,data_final,nome_do_orgao,uf` (no start
//!   date: a match against it is undecidable, see [`crate::detect::compliance::sanction_rule`]);
//! - the CNEP snapshot reduced to `cnpjcpf,nome,tipo,uf,nome_do_orgao,valor_multa` (leading
//!   zeros of the document dropped, no dates);
//! - the Portal's full CEIS/CNEP export (`CPF OU CNPJ DO SANCIONADO`, `TIPO SANÇÃO`,
//!   `DATA INÍCIO SANÇÃO`, `DATA FINAL SANÇÃO` with `NA` for none, `ÓRGÃO SANCIONADOR`, ...);
//! - the Minas Gerais Lei 12.846 list (`;`, `cnpj`, `conuta`, `data_decisao`, `decisao`): the
//!   Controladoria-Geral do Estado's decisions, a state sanction, with the conduct found.
//!
//! Text is UTF-8 (a BOM is skipped) or, failing that, ISO-8859-1. The register is CNEP for a
//! Lei 12.846 sanction and CEIS otherwise.

use chrono::NaiveDate;

use super::cnpj::{cnpj_is_valid, cpf_is_valid, digits_only};
use crate::text::fold;

use super::dataset::Dataset;
use super::load::LoadError;
use super::portal_csv::Table;
use super::sanction::Sanction;

/// Why a list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SanctionListError {
    /// The header is none of the known formats.
    #[error("unknown sanctions list header: {0}")]
    UnknownFormat(String),
    /// A CSV error (line, message).
    #[error("sanctions list: {0}")]
    Csv(#[from] csv::Error),
}

/// The text of `bytes`: UTF-8 without its BOM, else ISO-8859-1.
pub fn decode(bytes: &[u8]) -> String {
    let b = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => b.iter().map(|&c| char::from(c)).collect(),
    }
}

fn date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    NaiveDate::parse_from_str(s, "%d/%m/%Y").or_else(|_| NaiveDate::parse_from_str(s, "%Y-%m-%d")).ok()
}

/// A document as the records keep it: a CNPJ or CPF as digits, restoring leading zeros the
/// list dropped (a CNPJ when 14 padded digits validate as one, else a CPF when 11 do); a
/// masked CPF as given.
pub fn normalise_document(raw: &str) -> String {
    let t = raw.trim();
    if t.contains('*') {
        return t.to_string();
    }
    let d = digits_only(t);
    if d.is_empty() || d.len() > 14 {
        return d;
    }
    let pad = |n: usize| format!("{d:0>n$}");
    if d.len() > 11 || (cnpj_is_valid(&pad(14)) && !cpf_is_valid(&pad(11))) { pad(14) } else { pad(11) }
}

/// A sanction with its identity and type and nothing else known yet.
fn listed(id: String, cnep: bool, document: &str, name: String, kind: String) -> Sanction {
    Sanction {
        id,
        register: if cnep { "CNEP" } else { "CEIS" }.into(),
        document: normalise_document(document),
        name,
        kind,
        starts_on: None,
        ends_on: None,
        published_on: None,
        authority: String::new(),
        legal_basis: String::new(),
        process_number: String::new(),
        fine: None,
    }
}

fn money(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() || s == "NA" {
        return None;
    }
    // "77556.77" (CNEP 2018), "608016,54" (MG), "96170604.55" (CNEP 2021).
    let t = if s.contains(',') { s.replace('.', "").replace(',', ".") } else { s.to_string() };
    t.parse().ok()
}

/// Whether a header (column names) is one of the sanctions list formats of the module doc.
pub fn is_sanctions_list(columns: &[String]) -> bool {
    let has = |n: &str| columns.iter().any(|c| fold(c.trim().trim_start_matches('\u{feff}')) == n);
    (has("cnpjcpf") && has("tipo") && has("nome_do_orgao"))
        || (has("cpf ou cnpj do sancionado") && has("tipo sancao") && has("data inicio sancao"))
        || (has("cnpj") && has("conuta") && has("decisao"))
}

/// Reads the sanctions list a [`TableReader`](super::load::TableReader) recognised (by
/// [`is_sanctions_list`]) into `dataset.sanctions`, from its file (the list formats keep their
/// own header spellings, so the file is read again whole); returns the sanctions read.
pub fn read_into(table: &Table, dataset: &mut Dataset) -> Result<usize, LoadError> {
    let path = table.path();
    let bytes = std::fs::read(path).map_err(|e| LoadError::in_file(path, e.to_string()))?;
    let list = sanctions_from_csv(&bytes).map_err(|e| LoadError::in_file(path, e.to_string()))?;
    let n = list.len();
    dataset.sanctions.extend(list);
    Ok(n)
}

/// Reads one sanctions list from bytes (UTF-8 or ISO-8859-1).
pub fn sanctions_from_csv(bytes: &[u8]) -> Result<Vec<Sanction>, SanctionListError> {
    sanctions_from_text(&decode(bytes))
}

/// Reads one sanctions list from its text (see the module doc for the formats).
pub fn sanctions_from_text(text: &str) -> Result<Vec<Sanction>, SanctionListError> {
    let text = text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.contains(';') { b';' } else { b',' };
    let mut r = csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(text.as_bytes());
    let header: Vec<String> = r.headers()?.iter().map(|h| fold(h.trim())).collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    enum Format {
        Reduced {
            doc: usize,
            name: usize,
            kind: usize,
            end: Option<usize>,
            organ: usize,
            uf: usize,
            fine: Option<usize>,
        },
        Full {
            doc: usize,
            name: usize,
            kind: usize,
            start: usize,
            end: usize,
            organ: usize,
            process: Option<usize>,
            basis: Option<usize>,
            fine: Option<usize>,
            published: Option<usize>,
        },
        Mg {
            doc: usize,
            name: usize,
            conduct: usize,
            decided: usize,
            decision: usize,
            organ: Option<usize>,
            fine: Option<usize>,
        },
    }
    let format = if let (Some(doc), Some(name), Some(kind), Some(organ), Some(uf)) =
        (col("cnpjcpf"), col("nome"), col("tipo"), col("nome_do_orgao"), col("uf"))
    {
        Format::Reduced { doc, name, kind, end: col("data_final"), organ, uf, fine: col("valor_multa") }
    } else if let (Some(doc), Some(name), Some(kind), Some(start), Some(end), Some(organ)) = (
        col("cpf ou cnpj do sancionado"),
        col("nome informado pelo orgao sancionador"),
        col("tipo sancao"),
        col("data inicio sancao"),
        col("data final sancao"),
        col("orgao sancionador"),
    ) {
        Format::Full {
            doc,
            name,
            kind,
            start,
            end,
            organ,
            process: col("numero do processo"),
            basis: col("fundamentacao legal"),
            fine: col("valor da multa"),
            published: col("data publicacao"),
        }
    } else if let (Some(doc), Some(name), Some(conduct), Some(decided), Some(decision)) =
        (col("cnpj"), col("empresa_processada"), col("conuta"), col("data_decisao"), col("decisao"))
    {
        Format::Mg { doc, name, conduct, decided, decision, organ: col("orgao_instaurador"), fine: col("valor_multa") }
    } else {
        return Err(SanctionListError::UnknownFormat(first.chars().take(120).collect()));
    };
    let mut out = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec?;
        let f = |k: usize| rec.get(k).unwrap_or("").trim().to_string();
        let opt = |k: Option<usize>| k.map(&f).unwrap_or_default();
        let s = match &format {
            Format::Reduced { doc, name, kind, end, organ, uf, fine } => {
                let kind = f(*kind);
                let cnep = fold(&kind).contains("empresa limpa") || fine.is_some();
                Sanction {
                    ends_on: end.and_then(|e| date(&f(e))),
                    authority: format!("{} ({})", f(*organ), f(*uf)),
                    fine: fine.and_then(|k| money(&f(k))),
                    ..listed(format!("list-{i}"), cnep, &f(*doc), f(*name), kind)
                }
            }
            Format::Full { doc, name, kind, start, end, organ, process, basis, fine, published } => {
                let kind = f(*kind);
                let cnep = fold(&kind).contains("12.846") || fold(&opt(*basis)).contains("12846");
                Sanction {
                    starts_on: date(&f(*start)),
                    ends_on: date(&f(*end)),
                    published_on: published.and_then(|k| date(&f(k))),
                    authority: f(*organ),
                    legal_basis: opt(*basis),
                    process_number: opt(*process),
                    fine: fine.and_then(|k| money(&f(k))),
                    ..listed(format!("list-{i}"), cnep, &f(*doc), f(*name), kind)
                }
            }
            Format::Mg { doc, name, conduct, decided, decision, organ, fine } => Sanction {
                starts_on: date(&f(*decided)),
                published_on: date(&f(*decided)),
                authority: format!("Controladoria-Geral do Estado de Minas Gerais ({})", opt(*organ)),
                legal_basis: format!("Lei 12.846/2013; conduta: {}", f(*conduct)),
                fine: fine.and_then(|k| money(&f(k))),
                ..listed(format!("mg-{i}"), true, &f(*doc), f(*name), f(*decision))
            },
        };
        if !s.document.is_empty() {
            out.push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "sanction_lists_tests.rs"]
mod tests;
