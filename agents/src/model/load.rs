//! Loading records from files and folders: what `vigia detect` and the real-data review read.
//! Each file is recognised by its name and content, whatever mix a folder holds:
//!
//! - the Portal da Transparência's monthly "Compras" download (`*_Compras.csv` with its
//!   `*_ItemCompra.csv`, `*_TermoAditivo.csv`, `*_Apostilamento.csv`; see [`super::portal_compras`]);
//! - Contratos.gov.br contracts (`contratos.json`) and their histories (`historicos.json`),
//!   joined into [`Contract::amendments`] (see [`super::contratos_gov`]);
//! - PNCP `/api/consulta/v1/contratos` pages (see [`super::pncp`]);
//! - the Portal's daily "Despesas" download: its empenhos as expenses (see
//!   [`super::portal_despesas`]);
//! - Comprasnet pregão lances (`,`-separated, one row per lance), one bidding per item (see
//!   [`super::lances`]);
//! - the Portal API's JSON of every record kind (`/contratos`, `/licitacoes`, ...) as
//!   [`records_from_text`] reads it: a JSON array, NDJSON, or an object keyed by kind.
//!
//! A folder is read recursively, in path order. Files in it whose format is not recognised
//! (notes, IBGE tables, a source not read yet) are skipped and listed in [`Loaded::skipped`];
//! a file named explicitly must be recognised. Every error names the file, the record and the
//! field.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::contract::Contract;
use super::contratos_gov;
use super::dataset::Dataset;
use super::lances;
use super::pncp;
use super::portal_compras::{Compras, kind_of_header, required_columns};
use super::portal_csv::{Table, decode, header_of};
use super::portal_despesas;
use super::records_text::{kind_of_record, records_from_text, records_from_value};
use super::upstream::RecordError;

/// Input that could not be read: which file, which record, which field, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// The file (or `-` for standard input).
    pub file: PathBuf,
    /// The record: `line 12` of a CSV, `record 3 (id 4388)` of a JSON document.
    pub record: Option<String>,
    /// The field or column.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl LoadError {
    /// An error about a whole file.
    pub fn in_file(file: &Path, message: String) -> Self {
        Self { file: file.to_path_buf(), record: None, field: None, message }
    }
    /// The same error located at a record.
    pub fn record(mut self, record: String) -> Self {
        self.record = Some(record);
        self
    }
    /// The same error located at a field.
    pub fn field(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }
    /// A record error of a JSON document in `file`; `within` prefixes the record's position
    /// (e.g. the contract whose history it is).
    pub fn from_record(file: &Path, within: &str, e: RecordError) -> Self {
        let id = e.id.map(|id| format!(" (id {id})")).unwrap_or_default();
        let record = format!("{within}record {}{id}", e.index);
        Self { file: file.to_path_buf(), record: Some(record), field: Some(e.field), message: e.message }
    }
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(r) = &self.record {
            write!(f, ": {r}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// A supplier document as the records keep it: a CNPJ or CPF written with digits and
/// punctuation only (`00.000.000/0001-91`, `050.841.642-68`) as its 11 or 14 digits; anything
/// else (a masked CPF `***.123.456-**`, the secret contracts' `-11`, a UG code, a foreign
/// supplier's id) exactly as published, trimmed. Deciding what kind of document it is belongs
/// to [`super::cnpj`].
pub fn document_as_given(raw: &str) -> String {
    let t = raw.trim();
    let punctuation_only = t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '-' | ' '));
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    if punctuation_only && matches!(digits.len(), 11 | 14) && !t.starts_with('-') { digits } else { t.to_string() }
}

/// What one file gave.
#[derive(Debug, Clone, PartialEq)]
pub struct FileNote {
    /// The file.
    pub path: PathBuf,
    /// Its format as recognised.
    pub format: &'static str,
    /// Rows or records read from it.
    pub records: usize,
}

/// The result of a load: the dataset and what was read, skipped or left unjoined.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The records of every file, texts shared.
    pub dataset: Dataset,
    /// Each file read, in order.
    pub files: Vec<FileNote>,
    /// Files of a folder that were not read, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
    /// Items, amendments and histories whose contract is not in the load (or not uniquely).
    pub unjoined: usize,
}

/// Reads a file or a folder (recursively) into one dataset. See the module doc for formats.
pub fn load_path(path: &Path) -> Result<Dataset, LoadError> {
    load_paths(&[path.to_path_buf()]).map(|l| l.dataset)
}

/// Reads several files and folders into one dataset, reporting what each gave.
pub fn load_paths(paths: &[PathBuf]) -> Result<Loaded, LoadError> {
    let mut state = State::default();
    for path in paths {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = walkdir::WalkDir::new(path)
                .sort_by_file_name()
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(walkdir::DirEntry::into_path)
                .collect();
            files.sort();
            for file in files {
                state.read_file(&file, false)?;
            }
        } else {
            state.read_file(path, true)?;
        }
    }
    Ok(state.finish())
}

/// A reader of one table format that fills the dataset by itself (no join with other files).
pub struct TableReader {
    /// What the format is, for the notes of a load.
    pub format: &'static str,
    /// Whether a header (the column names, unquoted and trimmed) is this format's.
    pub recognises: fn(&[String]) -> bool,
    /// Reads the table into the dataset (checking its columns with [`Table::require`]);
    /// returns the rows read.
    pub read: fn(&Table, &mut Dataset) -> Result<usize, LoadError>,
}

/// The self-contained table formats, tried in order on each table's header. The Portal's
/// Compras download is read apart, since its files join one another.
///
/// LANCES: helper "bids" adds the comprasnet lances CSV (real/comprasnet-lances, comma-separated,
/// model/lances.rs) here, reading biddings with their participants into `dataset.biddings`.
/// SANCTIONS: helper "compliance" adds the CEIS/CNEP lists (real/sancoes, model/sanction.rs)
/// here, reading into `dataset.sanctions`.
pub const TABLE_READERS: &[TableReader] = &[TableReader {
    format: "Portal da Transparência Despesas download (empenhos)",
    recognises: portal_despesas::is_empenhos,
    read: portal_despesas::read_into,
}];

/// Extensions of the files a folder's walk reads; anything else (notes, licences) is not data.
const DATA_EXTENSIONS: &[&str] = &["csv", "json", "ndjson", "jsonl", "txt"];

/// Everything read so far, before the joins.
#[derive(Default)]
struct State {
    loaded: Loaded,
    compras: Compras,
    /// Contratos.gov.br histories: file, contract id, entries.
    histories: Vec<(PathBuf, String, Vec<Value>)>,
}

impl State {
    fn note(&mut self, path: &Path, format: &'static str, records: usize) {
        self.loaded.files.push(FileNote { path: path.to_path_buf(), format, records });
    }

    /// A file not read: an error when it was named, a note when a folder's walk found it.
    fn unrecognised(&mut self, path: &Path, explicit: bool, reason: String) -> Result<(), LoadError> {
        if explicit {
            return Err(LoadError::in_file(path, reason));
        }
        self.loaded.skipped.push((path.to_path_buf(), reason));
        Ok(())
    }

    fn read_file(&mut self, path: &Path, explicit: bool) -> Result<(), LoadError> {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        if !explicit && !DATA_EXTENSIONS.contains(&extension.as_str()) {
            return Ok(());
        }
        let bytes = std::fs::read(path).map_err(|e| LoadError::in_file(path, format!("cannot read: {e}")))?;
        let text = decode(bytes);
        let first = text.trim_start().chars().next();
        if extension == "csv" || !matches!(first, Some('[' | '{') | None) {
            self.read_table(path, &text, explicit)
        } else {
            self.read_json(path, &text, explicit)
        }
    }

    fn read_table(&mut self, path: &Path, text: &str, explicit: bool) -> Result<(), LoadError> {
        let header = header_of(text);
        if let Some(kind) = kind_of_header(&header) {
            let table = Table::parse(path, text, required_columns(kind))?;
            let rows = self.compras.read(kind, &table)?;
            self.note(path, "Portal da Transparência Compras download", rows);
            return Ok(());
        }
        if lances::is_comprasnet_lances(text) {
            let biddings =
                lances::biddings_from_comprasnet_csv(text).map_err(|e| LoadError::from_record(path, "", e))?;
            self.note(path, "Comprasnet pregão lances", biddings.len());
            self.loaded.dataset.biddings.extend(biddings);
            return Ok(());
        }
        if let Some(reader) = TABLE_READERS.iter().find(|r| (r.recognises)(&header)) {
            let table = Table::parse(path, text, &[])?;
            let rows = (reader.read)(&table, &mut self.loaded.dataset)?;
            self.note(path, reader.format, rows);
            return Ok(());
        }
        if portal_despesas::is_companion(&header) {
            let reason = "Despesas download companion (items, liquidações): later phases of the empenhos read";
            self.loaded.skipped.push((path.to_path_buf(), reason.into()));
            return Ok(());
        }
        self.unrecognised(path, explicit, "not a recognised table (header not known)".into())
    }

    fn read_json(&mut self, path: &Path, text: &str, explicit: bool) -> Result<(), LoadError> {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            // NDJSON, or broken JSON whose error records_from_text locates.
            return self.read_records(path, text);
        };
        if contratos_gov::is_contracts(&value) {
            let list = value.as_array().map_or(&[][..], Vec::as_slice);
            for (k, v) in list.iter().enumerate() {
                let c = contratos_gov::contract_from_contratos_gov(k, v)
                    .map_err(|e| LoadError::from_record(path, "", e))?;
                self.loaded.dataset.contracts.extend(c);
            }
            self.note(path, "Contratos.gov.br contracts", list.len());
        } else if contratos_gov::is_histories(&value) {
            let mut n = 0;
            for (id, entries) in contratos_gov::histories_by_contract(value) {
                n += entries.len();
                self.histories.push((path.to_path_buf(), id, entries));
            }
            self.note(path, "Contratos.gov.br contract histories", n);
        } else if contratos_gov::is_commitments(&value) {
            let reason = "Contratos.gov.br empenhos per contract: payments under contracts already read, not \
                          separate purchases";
            self.loaded.skipped.push((path.to_path_buf(), reason.into()));
        } else if pncp::is_page(&value) {
            let contracts = pncp::contracts_from_page(&value).map_err(|e| LoadError::from_record(path, "", e))?;
            self.note(path, "PNCP contracts", contracts.len());
            self.loaded.dataset.contracts.extend(contracts);
        } else if !explicit && !first_record_known(&value) {
            self.unrecognised(path, explicit, "not a recognised JSON shape".into())?;
        } else {
            let ds = records_from_value(&value).map_err(|e| LoadError::from_record(path, "", e))?;
            self.note(path, "Portal da Transparência API records", ds.len());
            absorb(&mut self.loaded.dataset, ds);
        }
        Ok(())
    }

    /// The Portal API's JSON of any record kind.
    fn read_records(&mut self, path: &Path, text: &str) -> Result<(), LoadError> {
        let ds = records_from_text(text).map_err(|e| LoadError::from_record(path, "", e))?;
        self.note(path, "Portal da Transparência API records", ds.len());
        absorb(&mut self.loaded.dataset, ds);
        Ok(())
    }

    fn finish(mut self) -> Loaded {
        let (contracts, report) = std::mem::take(&mut self.compras).finish();
        self.loaded.unjoined += report.unmatched + report.ambiguous;
        self.loaded.dataset.contracts.extend(contracts);
        self.join_histories();
        unique_ids(&mut self.loaded.dataset.contracts);
        self.loaded.dataset.share_text();
        self.loaded
    }

    fn join_histories(&mut self) {
        let by_id: HashMap<String, usize> =
            self.loaded.dataset.contracts.iter().enumerate().map(|(k, c)| (c.id.to_string(), k)).collect();
        for (path, id, entries) in std::mem::take(&mut self.histories) {
            let Some(&k) = by_id.get(&id) else {
                self.loaded.unjoined += 1;
                continue;
            };
            let c = &mut self.loaded.dataset.contracts[k];
            match contratos_gov::amendments_from_history(&entries, c.initial_value) {
                Ok(amendments) => {
                    c.amendments.extend(amendments);
                    c.amendments.sort_by_key(|a| (a.signed_on.is_none(), a.signed_on));
                }
                Err(e) => {
                    // A malformed entry costs that contract its history, not the whole load.
                    let err = LoadError::from_record(&path, &format!("contract {id}, "), e);
                    self.loaded.skipped.push((path.clone(), err.to_string()));
                }
            }
        }
    }
}

/// Whether the first record of a JSON document is of a kind [`records_from_text`] reads.
fn first_record_known(v: &Value) -> bool {
    let first = match v {
        Value::Array(a) => a.first(),
        other => Some(other),
    };
    match first {
        None => true,
        Some(Value::Object(o)) if o.values().all(Value::is_array) => {
            o.keys().all(|k| super::records_text::KEYS.iter().any(|(name, _)| name == k))
        }
        Some(r) => kind_of_record(r).is_some(),
    }
}

/// Moves every record of `from` into `into`.
pub fn absorb(into: &mut Dataset, from: Dataset) {
    into.contracts.extend(from.contracts);
    into.biddings.extend(from.biddings);
    into.expenses.extend(from.expenses);
    into.agreements.extend(from.agreements);
    into.servants.extend(from.servants);
    into.suppliers.extend(from.suppliers);
    into.sanctions.extend(from.sanctions);
}

/// Makes contract ids unique (a contract listed by two files, or by two monthly downloads,
/// keeps its first id; later ones get `-2`, `-3`, ...), so every finding names one record.
fn unique_ids(contracts: &mut [Contract]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for c in contracts.iter_mut() {
        let n = seen.entry(c.id.to_string()).or_insert(0);
        *n += 1;
        if *n > 1 {
            c.id = format!("{}-{}", c.id, n).into();
        }
    }
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
