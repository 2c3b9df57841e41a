//! Reading the Portal da Transparência's download CSVs (and the comma-separated tables other
//! sources publish): the text decoded from ISO-8859-1 unless it is valid UTF-8, the separator
//! read from the header line,
//! quoted fields split by the `csv` crate, columns found by their header names, pt-BR money
//! (`"2588,9700"`, `"1.234,56"`) and `DD/MM/YYYY` dates read per cell, and every failure a
//! [`LoadError`] naming the file, the line and the column.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use super::load::LoadError;
use super::upstream::{parse_date, parse_money_str};

/// Decodes a published text file: UTF-8 when the bytes are valid UTF-8 (a leading byte-order
/// mark dropped), otherwise ISO-8859-1 as the Portal publishes. encoding_rs reads the
/// ISO-8859-1 label as windows-1252, its superset, so the typographic quotes and dashes
/// some rows carry decode too.
pub fn decode(mut bytes: Vec<u8>) -> String {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(e.as_bytes()).0.into_owned(),
    }
}

/// The field separator of a table's text, from its header line: `;` as the Portal publishes,
/// else `,` (other sources' CSVs), else a tab; `None` when the first line has none of them
/// (then the text is not a table).
pub fn delimiter_of(text: &str) -> Option<u8> {
    let first = text.lines().next().unwrap_or("");
    [b';', b',', b'\t'].into_iter().find(|d| first.as_bytes().contains(d))
}

/// The column names of a table's header line, unquoted and trimmed; empty when the text is
/// not a table (see [`delimiter_of`]).
pub fn header_of(text: &str) -> Vec<String> {
    let Some(delimiter) = delimiter_of(text) else { return Vec::new() };
    let first = text.lines().next().unwrap_or("");
    let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).from_reader(first.as_bytes());
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => record.iter().map(|h| h.trim().to_string()).collect(),
        _ => Vec::new(),
    }
}

/// One table read whole: its file, its columns and its rows.
pub struct Table {
    path: PathBuf,
    columns: HashMap<String, usize>,
    rows: Vec<(u64, csv::StringRecord)>,
}

impl Table {
    /// Reads a table from `text` (already decoded; separator from [`delimiter_of`]), requiring
    /// the `required` columns; `path` is the file it came from, for errors.
    pub fn parse(path: &Path, text: &str, required: &[&str]) -> Result<Table, LoadError> {
        let delimiter = delimiter_of(text).unwrap_or(b';');
        let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).flexible(false).from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| LoadError::in_file(path, format!("cannot read the header: {e}")))?;
        let columns: HashMap<String, usize> =
            headers.iter().enumerate().map(|(k, h)| (h.trim().to_string(), k)).collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                LoadError::in_file(path, format!("malformed row: {e}")).record(format!("line {line}"))
            })?;
            let line = record.position().map_or(0, |p| p.line());
            rows.push((line, record));
        }
        let table = Table { path: path.to_path_buf(), columns, rows };
        table.require(required)?;
        Ok(table)
    }

    /// An error naming the first of `columns` the table lacks.
    pub fn require(&self, columns: &[&str]) -> Result<(), LoadError> {
        match columns.iter().find(|c| !self.columns.contains_key(**c)) {
            Some(col) => Err(LoadError::in_file(&self.path, format!("missing column {col:?}")).field(col)),
            None => Ok(()),
        }
    }

    /// The file the table came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no data rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows, in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().map(move |(line, record)| Row { table: self, line: *line, record })
    }
}

/// One row of a [`Table`].
pub struct Row<'a> {
    table: &'a Table,
    line: u64,
    record: &'a csv::StringRecord,
}

impl Row<'_> {
    /// The cell of a column, trimmed; "" when the column is absent.
    pub fn text(&self, column: &str) -> &str {
        self.table.columns.get(column).and_then(|k| self.record.get(*k)).map_or("", str::trim)
    }

    /// An error about this row's `column`.
    pub fn err(&self, column: &str, message: String) -> LoadError {
        LoadError::in_file(&self.table.path, message).record(format!("line {}", self.line)).field(column)
    }

    /// A money cell (`"2588,9700"`, `"1.234,56"`, `"12.5"`); 0 when empty. Negative amounts are
    /// kept (the caller decides), anything that is not a number is an error.
    pub fn money(&self, column: &str) -> Result<f64, LoadError> {
        let t = self.text(column);
        if t.is_empty() {
            return Ok(0.0);
        }
        parse_money_str(t).ok_or_else(|| self.err(column, format!("not an amount: {t:?}")))
    }

    /// A date cell (`DD/MM/YYYY` or ISO); `None` when empty.
    pub fn date(&self, column: &str) -> Result<Option<NaiveDate>, LoadError> {
        parse_date(self.text(column)).map_err(|m| self.err(column, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_text_is_decoded_and_utf8_text_kept() {
        let latin1 = b"\"N\xfamero\";\"Objeto\"\n\"1\";\"ACR\xc9SCIMO\"\n";
        let text = decode(latin1.to_vec());
        assert!(text.starts_with("\"Número\""));
        assert!(text.contains("ACRÉSCIMO"));
        assert_eq!(decode("\u{feff}Já;x".as_bytes().to_vec()), "Já;x");
    }

    #[test]
    fn cells_are_read_by_column_name_and_bad_cells_name_file_line_and_column() {
        let text = "\"Número\";\"Valor\";\"Data\"\n\"7\";\"2588,9700\";\"30/12/2023\"\n\"8\";\"muito\";\"\"\n";
        let table = Table::parse(Path::new("x.csv"), text, &["Número", "Valor"]).unwrap();
        assert_eq!(header_of(text), vec!["Número", "Valor", "Data"]);
        let rows: Vec<Row<'_>> = table.rows().collect();
        assert_eq!(rows[0].money("Valor").unwrap(), 2588.97);
        assert_eq!(rows[0].date("Data").unwrap(), NaiveDate::from_ymd_opt(2023, 12, 30));
        assert_eq!(rows[1].date("Data").unwrap(), None);
        let e = rows[1].money("Valor").unwrap_err().to_string();
        assert!(e.contains("x.csv") && e.contains("line 3") && e.contains("Valor"), "{e}");
        let missing = Table::parse(Path::new("x.csv"), text, &["Objeto"]).err().map(|e| e.to_string());
        assert!(missing.is_some_and(|e| e.contains("Objeto")));
        let commas = Table::parse(Path::new("y.csv"), "a,b\n1,\"2,5\"\n", &["b"]).unwrap();
        assert_eq!(commas.rows().next().map(|r| r.text("b").to_string()).as_deref(), Some("2,5"));
        assert_eq!(delimiter_of("no separator"), None);
    }
}
