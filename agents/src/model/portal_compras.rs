//! The Portal da Transparência's monthly "Compras" download (`AAAAMM_Compras.csv`, the CSV twin
//! of `/contratos`) with its `ItemCompra`, `TermoAditivo` and `Apostilamento` files, read into
//! contracts that carry their items and amendments.
//!
//! The download has no contract id: a contract is known by (`Número do Contrato`, `Código
//! UG`), the key its items and amendments join on, and its id here is `<UG>-<número>`. The
//! key is not unique in real files (the same number reused by one UG for two suppliers, or one
//! row published twice): such contracts get ids `<UG>-<número>-2`, ... and their items and
//! amendments are left unjoined, since nothing in those rows says which contract they belong
//! to. Nor is there a process number: the purchase the contract came from (UG, modality code
//! and number of the licitação) stands in as [`Contract::process_number`], the key contracts
//! of one purchase share. Secret contracts (`Sigiloso`, contracted code `-11`) and every
//! document are kept as published.

use std::collections::HashMap;

use super::amendment::{Amendment, ContractItem, apostille_kinds, kinds_from_text};
use super::contract::{Contract, Organ, Party, Unit};
use super::load::{LoadError, document_as_given};
use super::portal_csv::{Row, Table};

/// The four files of the download, recognised by their header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComprasFile {
    /// `*_Compras.csv`: one row per contract.
    Contracts,
    /// `*_ItemCompra.csv`: the items each contract buys.
    Items,
    /// `*_TermoAditivo.csv`: termos aditivos.
    Amendments,
    /// `*_Apostilamento.csv`: apostilamentos.
    Apostilles,
}

/// Columns that identify each file (a header holding them all is that file).
const SIGNATURES: &[(ComprasFile, &[&str])] = &[
    (ComprasFile::Contracts, &["Número do Contrato", "Código UG", "Valor Inicial Compra", "Valor Final Compra"]),
    (ComprasFile::Items, &["Número Contrato", "Código UG", "Código Item Compra", "Valor Item"]),
    (ComprasFile::Amendments, &["Número Contrato", "Código UG", "Número Termo Aditivo", "Objeto"]),
    (ComprasFile::Apostilles, &["Número Contrato", "Código UG", "Número Apostilamento", "Descrição Apostilamento"]),
];

/// Which file of the download a header is, if any.
pub fn kind_of_header(columns: &[String]) -> Option<ComprasFile> {
    SIGNATURES.iter().find(|(_, needed)| needed.iter().all(|n| columns.iter().any(|c| c == n))).map(|(kind, _)| *kind)
}

/// The columns a file of each kind must have.
pub fn required_columns(kind: ComprasFile) -> &'static [&'static str] {
    SIGNATURES.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, cols)| cols)
}

/// The join key of a contract, item or amendment row: (contract number, UG code).
type Key = (String, String);

/// What the Compras files of one load hold so far: the contracts, and the items and
/// amendments waiting to be joined to them.
#[derive(Default)]
pub struct Compras {
    contracts: Vec<(Key, Contract)>,
    items: Vec<(Key, ContractItem)>,
    amendments: Vec<(Key, Amendment)>,
}

/// What joining items and amendments to contracts left over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JoinReport {
    /// Items and amendments whose key matched no contract of the load.
    pub unmatched: usize,
    /// Items and amendments whose key matched more than one contract (left unjoined).
    pub ambiguous: usize,
}

impl Compras {
    /// Reads one file of the download; returns the rows read.
    pub fn read(&mut self, kind: ComprasFile, table: &Table) -> Result<usize, LoadError> {
        for row in table.rows() {
            let key = (row.text(number_column(kind)).to_string(), row.text("Código UG").to_string());
            match kind {
                ComprasFile::Contracts => self.contracts.push((key, contract(&row)?)),
                ComprasFile::Items => self.items.push((key, item(&row)?)),
                ComprasFile::Amendments => self.amendments.push((key, amendment(&row)?)),
                ComprasFile::Apostilles => self.amendments.push((key, apostille(&row)?)),
            }
        }
        Ok(table.len())
    }

    /// The contracts with their items and amendments (in signing order), ids made unique.
    pub fn finish(self) -> (Vec<Contract>, JoinReport) {
        let mut by_key: HashMap<Key, Vec<usize>> = HashMap::new();
        for (k, (key, _)) in self.contracts.iter().enumerate() {
            by_key.entry(key.clone()).or_default().push(k);
        }
        let mut contracts: Vec<Contract> = self.contracts.into_iter().map(|(_, c)| c).collect();
        for idx in by_key.values().filter(|idx| idx.len() > 1) {
            for (k, &i) in idx.iter().enumerate().skip(1) {
                contracts[i].id = format!("{}-{}", contracts[i].id, k + 1).into();
            }
        }
        let mut report = JoinReport::default();
        let mut target = |key: &Key| -> Option<usize> {
            match by_key.get(key).map(Vec::as_slice) {
                Some([one]) => Some(*one),
                Some(_) => {
                    report.ambiguous += 1;
                    None
                }
                None => {
                    report.unmatched += 1;
                    None
                }
            }
        };
        for (key, item) in self.items {
            if let Some(i) = target(&key) {
                contracts[i].items.push(item);
            }
        }
        for (key, amendment) in self.amendments {
            if let Some(i) = target(&key) {
                contracts[i].amendments.push(amendment);
            }
        }
        for c in &mut contracts {
            // Undated amendments last; the sort is stable so the file order breaks ties.
            c.amendments.sort_by_key(|a| (a.signed_on.is_none(), a.signed_on));
        }
        (contracts, report)
    }
}

/// The column holding the contract number in each file.
fn number_column(kind: ComprasFile) -> &'static str {
    if kind == ComprasFile::Contracts { "Número do Contrato" } else { "Número Contrato" }
}

/// A non-negative amount of a row.
fn amount(row: &Row<'_>, column: &str) -> Result<f64, LoadError> {
    let x = row.money(column)?;
    if x < 0.0 {
        return Err(row.err(column, format!("negative amount {x}")));
    }
    Ok(x)
}

/// One row of `*_Compras.csv`.
fn contract(row: &Row<'_>) -> Result<Contract, LoadError> {
    let number = row.text("Número do Contrato");
    let ug = row.text("Código UG");
    // The contract's id is made of both: without them no finding could name it.
    for (column, value) in [("Número do Contrato", number), ("Código UG", ug)] {
        if value.is_empty() {
            return Err(row.err(column, "empty: the contract cannot be identified".into()));
        }
    }
    // "Sem informação" as the superior organ (seen for the Banco Central): the organ itself.
    let superior_known = !row.text("Código Órgão Superior").is_empty()
        && crate::text::fold(row.text("Nome Órgão Superior")) != "sem informacao";
    let organ = if superior_known {
        Organ {
            code: row.text("Código Órgão Superior").into(),
            acronym: "".into(),
            name: row.text("Nome Órgão Superior").into(),
        }
    } else {
        Organ { code: row.text("Código Órgão").into(), acronym: "".into(), name: row.text("Nome Órgão").into() }
    };
    let bidding_number = row.text("Número Licitação");
    let process = if bidding_number.is_empty() {
        String::new()
    } else {
        let unit = row.text("Código UG Licitação");
        let unit = if unit.is_empty() { ug } else { unit };
        format!("{unit}-{}-{bidding_number}", row.text("Código Modalidade Compra Licitação"))
    };
    Ok(Contract {
        id: format!("{ug}-{number}").into(),
        number: number.into(),
        object: row.text("Objeto").into(),
        process_number: process.into(),
        legal_basis: row.text("Fundamento Legal").into(),
        situation: row.text("Situação Contrato").into(),
        modality: row.text("Modalidade Compra").into(),
        supplier: Party {
            name: row.text("Nome Contratado").into(),
            document: document_as_given(row.text("Código Contratado")).into(),
        },
        unit: Unit { code: ug.into(), name: row.text("Nome UG").into() },
        organ,
        initial_value: amount(row, "Valor Inicial Compra")?,
        final_value: amount(row, "Valor Final Compra")?,
        signed_on: row.date("Data Assinatura Contrato")?,
        published_on: row.date("Data Publicação DOU")?,
        valid_from: row.date("Data Início Vigência")?,
        valid_until: row.date("Data Fim Vigência")?,
        amendments: Vec::new(),
        items: Vec::new(),
    })
}

/// One row of `*_ItemCompra.csv`. The complement "undefined" (a publishing artefact) is empty;
/// quantity and value are kept as published, negative ones included (a reduction of the item).
fn item(row: &Row<'_>) -> Result<ContractItem, LoadError> {
    let complement = row.text("Descrição Complementar Item Compra");
    let complement = if complement.eq_ignore_ascii_case("undefined") { "" } else { complement };
    Ok(ContractItem {
        code: row.text("Código Item Compra").into(),
        description: row.text("Descrição Item Compra").into(),
        complement: complement.into(),
        quantity: row.money("Quantidade Item")?,
        value: row.money("Valor Item")?,
    })
}

/// One row of `*_TermoAditivo.csv`: its kinds read from `Objeto` (the file has no
/// qualification), dated by publication (the file has no signing date).
fn amendment(row: &Row<'_>) -> Result<Amendment, LoadError> {
    let text = row.text("Objeto");
    Ok(Amendment {
        number: row.text("Número Termo Aditivo").into(),
        instrument: "Termo Aditivo".into(),
        kinds: kinds_from_text(text),
        signed_on: row.date("Data Publicação")?,
        new_global_value: None,
        new_valid_until: None,
        description: text.into(),
    })
}

/// One row of `*_Apostilamento.csv`: readjustment or informative by law, never an addition.
fn apostille(row: &Row<'_>) -> Result<Amendment, LoadError> {
    let text = row.text("Descrição Apostilamento");
    Ok(Amendment {
        number: row.text("Número Apostilamento").into(),
        instrument: "Termo de Apostilamento".into(),
        kinds: apostille_kinds(text),
        signed_on: row.date("Data de inclusão")?,
        new_global_value: None,
        new_valid_until: None,
        description: text.into(),
    })
}

#[cfg(test)]
#[path = "portal_compras_tests.rs"]
pub(crate) mod tests;
