//! What the Portal da Transparência's endpoints require before a call is worth making
//! (UPSTREAM.md A.2-A.8: the API answers 400 without them), and the period arithmetic that
//! turns an investigation's year and month into the portal's `DD/MM/AAAA` bounds.

use chrono::{Datelike, NaiveDate};

use super::source::UpstreamError;
use super::transparency::SOURCE;

/// The list endpoints read, with their required parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/contratos`: `codigoOrgao`.
    Contracts,
    /// `/contratos/termo-aditivo`: the contract `id`.
    Amendments,
    /// `/licitacoes`: `codigoOrgao` and a period of at most about a month.
    Biddings,
    /// `/licitacoes/participantes`: the licitação `id`.
    Participants,
    /// `/convenios`: one of `uf`, `codigoIBGE`, `codigoOrgao`, `numero`.
    Agreements,
    /// `/despesas/documentos`: `dataEmissao`, `fase`, and `unidadeGestora` or `gestao`.
    Expenses,
    /// `/servidores`: `orgaoServidorLotacao`, `orgaoServidorExercicio` or `cpf`.
    Servants,
    /// `/ceis`.
    Ceis,
    /// `/cnep`.
    Cnep,
    /// `/orgaos-siafi`: SIAFI organ codes and names.
    OrgansSiafi,
    /// `/orgaos-siape`: SIAPE organ codes and names.
    OrgansSiape,
}

/// Longest licitações period the portal accepts ("a period of at most one month"): a month
/// of 31 days counts inclusive of both ends.
const MAX_BIDDING_DAYS: i64 = 31;

impl Endpoint {
    /// The upstream path.
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::Contracts => "/contratos",
            Endpoint::Amendments => "/contratos/termo-aditivo",
            Endpoint::Biddings => "/licitacoes",
            Endpoint::Participants => "/licitacoes/participantes",
            Endpoint::Agreements => "/convenios",
            Endpoint::Expenses => "/despesas/documentos",
            Endpoint::Servants => "/servidores",
            Endpoint::Ceis => "/ceis",
            Endpoint::Cnep => "/cnep",
            Endpoint::OrgansSiafi => "/orgaos-siafi",
            Endpoint::OrgansSiape => "/orgaos-siape",
        }
    }

    /// Whether the endpoint pages (`pagina`, 15 rows); detail endpoints answer all at once.
    pub fn pages(self) -> bool {
        !matches!(self, Endpoint::Amendments | Endpoint::Participants)
    }

    /// Checks the query before calling: the portal's 400 costs a request of the budget.
    pub fn check(self, query: &[(&str, String)]) -> Result<(), UpstreamError> {
        let has = |k: &str| query.iter().any(|(name, v)| *name == k && !v.trim().is_empty());
        let missing = |reason: &str| {
            Err(UpstreamError::MissingParameters {
                source_name: SOURCE,
                path: self.path().into(),
                reason: reason.into(),
            })
        };
        match self {
            Endpoint::Contracts if !has("codigoOrgao") => missing("codigoOrgao"),
            Endpoint::Amendments | Endpoint::Participants if !has("id") => missing("id"),
            Endpoint::Biddings => {
                if !has("codigoOrgao") {
                    return missing("codigoOrgao");
                }
                let date = |k: &str| query.iter().find(|(n, _)| *n == k).and_then(|(_, v)| parse_dmy(v));
                match (date("dataInicial"), date("dataFinal")) {
                    (Some(from), Some(to)) if to >= from && (to - from).num_days() < MAX_BIDDING_DAYS => Ok(()),
                    _ => missing("dataInicial and dataFinal (DD/MM/AAAA) at most a month apart"),
                }
            }
            Endpoint::Agreements if !["uf", "codigoIBGE", "codigoOrgao", "numero"].iter().any(|k| has(k)) => {
                missing("one of uf, codigoIBGE, codigoOrgao, numero")
            }
            Endpoint::Expenses if !(has("dataEmissao") && has("fase") && (has("unidadeGestora") || has("gestao"))) => {
                missing("dataEmissao, fase and unidadeGestora or gestao")
            }
            Endpoint::Servants if !["orgaoServidorLotacao", "orgaoServidorExercicio", "cpf"].iter().any(|k| has(k)) => {
                missing("one of orgaoServidorLotacao, orgaoServidorExercicio, cpf")
            }
            _ => Ok(()),
        }
    }
}

/// `DD/MM/AAAA`.
pub fn dmy(d: NaiveDate) -> String {
    d.format("%d/%m/%Y").to_string()
}

fn parse_dmy(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s.trim(), "%d/%m/%Y").ok()
}

/// First and last day of a year, or of one month of it.
pub fn period(year: i32, month: Option<u32>) -> (NaiveDate, NaiveDate) {
    let first = |y: i32, m: u32| NaiveDate::from_ymd_opt(y, m, 1).unwrap_or(NaiveDate::MIN);
    match month.filter(|m| (1..=12).contains(m)) {
        Some(m) => {
            let next = if m == 12 { first(year + 1, 1) } else { first(year, m + 1) };
            (first(year, m), next.pred_opt().unwrap_or(next))
        }
        None => (first(year, 1), first(year + 1, 1).pred_opt().unwrap_or(NaiveDate::MAX)),
    }
}

/// The calendar months a period spans, each as its own (first, last) day within the period:
/// the licitações endpoint takes at most a month per call.
pub fn months(from: NaiveDate, to: NaiveDate) -> Vec<(NaiveDate, NaiveDate)> {
    let mut out = Vec::new();
    let mut start = from;
    while start <= to {
        let (_, month_end) = period(start.year(), Some(start.month()));
        let end = month_end.min(to);
        out.push((start, end));
        match end.succ_opt() {
            Some(next) => start = next,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn each_endpoint_refuses_a_query_without_its_required_parameters() {
        assert!(Endpoint::Contracts.check(&q(&[("pagina", "1")])).is_err());
        assert!(Endpoint::Contracts.check(&q(&[("codigoOrgao", "26000")])).is_ok());
        let month = q(&[("codigoOrgao", "26000"), ("dataInicial", "01/05/2024"), ("dataFinal", "31/05/2024")]);
        assert!(Endpoint::Biddings.check(&month).is_ok());
        let year = q(&[("codigoOrgao", "26000"), ("dataInicial", "01/01/2024"), ("dataFinal", "31/12/2024")]);
        assert_eq!(Endpoint::Biddings.check(&year).unwrap_err().class(), "missing_parameters");
        assert!(Endpoint::Agreements.check(&q(&[("pagina", "1")])).is_err());
        assert!(Endpoint::Agreements.check(&q(&[("uf", "MG")])).is_ok());
        assert!(Endpoint::Expenses.check(&q(&[("dataEmissao", "02/01/2024"), ("fase", "1")])).is_err());
        assert!(
            Endpoint::Expenses.check(&q(&[("dataEmissao", "02/01/2024"), ("fase", "1"), ("gestao", "00001")])).is_ok()
        );
        assert!(Endpoint::Servants.check(&q(&[("nome", "JOSE")])).is_err());
        assert!(Endpoint::Amendments.check(&q(&[("id", "")])).is_err());
    }

    #[test]
    fn a_year_splits_into_twelve_monthly_windows_and_a_month_has_its_last_day() {
        let (from, to) = period(2024, None);
        let windows = months(from, to);
        assert_eq!(windows.len(), 12);
        assert_eq!((dmy(windows[1].0), dmy(windows[1].1)), ("01/02/2024".to_string(), "29/02/2024".to_string()));
        assert_eq!(period(2023, Some(2)).1, NaiveDate::from_ymd_opt(2023, 2, 28).unwrap());
        assert_eq!(period(2024, Some(12)).1, NaiveDate::from_ymd_opt(2024, 12, 31).unwrap());
    }
}
