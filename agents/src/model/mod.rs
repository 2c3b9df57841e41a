//! Spending records, the anomaly result of the spec and the shapes an analysis returns.

pub mod agreement;
pub mod amendment;
pub mod anomaly;
pub mod bidding;
pub mod cnpj;
pub mod contract;
pub mod contratos_gov;
pub mod dataset;
pub mod expense;
pub mod fields;
pub mod intern;
pub mod lances;
pub mod load;
pub mod params;
pub mod pncp;
pub mod portal_compras;
pub mod portal_csv;
pub mod portal_despesas;
pub mod records_text;
pub mod registry_facts;
pub mod report;
pub mod sanction;
pub mod sanction_lists;
pub mod security_log;
pub mod servant;
pub mod upstream;
