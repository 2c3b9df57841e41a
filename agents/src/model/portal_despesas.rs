//! The Portal da Transparência's daily "Despesas" download (`AAAAMMDD_Despesas_Empenho.csv` and
//! its companions): each empenho (commitment, the phase that records a purchase) becomes an
//! [`Expense`] of phase "Empenho", as `/despesas/documentos` gives it.
//!
//! The companion files (`_ItemEmpenho`, `_ItemEmpenhoHistorico`, `_Liquidacao`,
//! `_Liquidacao_EmpenhosImpactados`) are later phases and details of the same money: reading
//! them as expenses would count it again, so the loader recognises and skips them.

use super::contract::{Organ, Party, Unit};
use super::expense::Expense;
use super::load::{LoadError, document_as_given};
use super::portal_csv::{Row, Table};

/// Columns that make a table the empenhos file.
pub const EMPENHO_COLUMNS: &[&str] =
    &["Código Empenho", "Data Emissão", "Código Favorecido", "Valor do Empenho Convertido pra R$"];

/// Columns of the companion files (items, history, liquidações): one of them marks such a file.
const COMPANION_MARKERS: &[&str] = &["Código Liquidação", "Sequencial"];

/// Whether a header is the empenhos file.
pub fn is_empenhos(columns: &[String]) -> bool {
    EMPENHO_COLUMNS.iter().all(|n| columns.iter().any(|c| c == n))
}

/// Whether a header is one of the companion files of the Despesas download.
pub fn is_companion(columns: &[String]) -> bool {
    columns.iter().any(|c| c == "Código Empenho" || c == "Código Liquidação")
        && COMPANION_MARKERS.iter().any(|m| columns.iter().any(|c| c == m))
}

/// `"<code> - <name>"`, the form the API gives classifications in, or whichever part exists.
fn coded(row: &Row<'_>, code: &str, name: &str) -> String {
    match (row.text(code), row.text(name)) {
        ("", n) => n.to_string(),
        (c, "") => c.to_string(),
        (c, n) => format!("{c} - {n}"),
    }
}

/// Reads the empenhos of the file into `dataset.expenses`; returns how many.
pub fn read_into(table: &Table, dataset: &mut super::dataset::Dataset) -> Result<usize, LoadError> {
    table.require(EMPENHO_COLUMNS)?;
    let expenses = expenses(table)?;
    let n = expenses.len();
    dataset.expenses.extend(expenses);
    Ok(n)
}

/// The empenhos of the file, in order. Values are kept as published (an annulment may be
/// negative).
pub fn expenses(table: &Table) -> Result<Vec<Expense>, LoadError> {
    table
        .rows()
        .map(|row| {
            let id = row.text("Código Empenho");
            if id.is_empty() {
                return Err(row.err("Código Empenho", "empty".into()));
            }
            Ok(Expense {
                id: id.into(),
                date: row.date("Data Emissão")?,
                phase: "Empenho".into(),
                kind: row.text("Espécie Empenho").into(),
                payee: Party {
                    name: row.text("Favorecido").into(),
                    document: document_as_given(row.text("Código Favorecido")).into(),
                },
                value: row.money("Valor do Empenho Convertido pra R$")?,
                unit: Unit {
                    code: row.text("Código Unidade Gestora").into(),
                    name: row.text("Unidade Gestora").into(),
                },
                organ: Organ {
                    code: row.text("Código Órgão Superior").into(),
                    acronym: "".into(),
                    name: row.text("Órgão Superior").into(),
                },
                sub_organ: row.text("Código Órgão").into(),
                element: coded(&row, "Código Elemento de Despesa", "Elemento de Despesa").into(),
                category: row.text("Categoria de Despesa").into(),
                group: row.text("Grupo de Despesa").into(),
                modality: row.text("Modalidade de Licitação").into(),
                process_number: row.text("Processo").into(),
                observation: row.text("Observação").into(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::portal_csv::header_of;

    const EMPENHOS: &str = "\"Id Empenho\";\"Código Empenho\";\"Data Emissão\";\"Espécie Empenho\";\"Código Órgão Superior\";\"Órgão Superior\";\"Código Órgão\";\"Código Unidade Gestora\";\"Unidade Gestora\";\"Código Favorecido\";\"Favorecido\";\"Observação\";\"Categoria de Despesa\";\"Grupo de Despesa\";\"Código Elemento de Despesa\";\"Elemento de Despesa\";\"Processo\";\"Modalidade de Licitação\";\"Valor do Empenho Convertido pra R$\"
\"563874458\";\"152005000012025NE000010\";\"01/01/2025\";\"Não se aplica\";\"26000\";\"Ministério da Educação\";\"26000\";\"152005\";\"INES\";\"152005\";\"INES\";\"AUXILIO ALIMENTACAO\";\"DESPESAS CORRENTES\";\"Outras Despesas Correntes\";\"04\";\"Contratação por Tempo Determinado\";\"23121.001562/2024-85\";\"Não se Aplica\";\"372000,00\"";

    #[test]
    fn an_empenho_row_is_an_expense_of_phase_empenho() {
        let header = header_of(EMPENHOS);
        assert!(is_empenhos(&header) && !is_companion(&header));
        let table = Table::parse(Path::new("20250101_Despesas_Empenho.csv"), EMPENHOS, EMPENHO_COLUMNS).unwrap();
        let e = &expenses(&table).unwrap()[0];
        assert_eq!((&*e.id, e.value, &*e.payee.document), ("152005000012025NE000010", 372_000.0, "152005"));
        assert_eq!(&*e.element, "04 - Contratação por Tempo Determinado");
        assert!(e.is_commitment() && !e.is_dispensa());
    }

    #[test]
    fn the_companion_files_are_recognised_as_such() {
        let items = "\"Id Empenho\";\"Código Empenho\";\"Descrição\";\"Quantidade\";\"Valor Total\";\"Sequencial\"";
        let liquidacoes = "\"Código Liquidação\";\"Código Empenho\";\"Valor Liquidado (R$)\"";
        assert!(is_companion(&header_of(items)) && is_companion(&header_of(liquidacoes)));
    }
}
