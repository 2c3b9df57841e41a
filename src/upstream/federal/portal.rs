//! Single pages of the Portal da Transparência for the `/api/v1/transparency/*` routes, with
//! the key. The route's filters become the upstream's parameters here, and the minimum
//! filters each endpoint demands are checked before anything is sent (UPSTREAM.md A.2-A.5):
//! `/contratos` needs `codigoOrgao`; `/despesas/documentos` a day (`dataEmissao`), a `fase` and
//! a `unidadeGestora` or `gestao`; `/convenios` one of `uf`, `codigoIBGE`, `codigoOrgao`,
//! `numero`. Pages are 15 records, a bare JSON array.

use serde_json::Value;

use super::{Fetched, get, malformed, missing};
use crate::upstream::UpstreamError;
use crate::upstream::source::UpstreamSource;

/// Records per upstream page (fixed upstream).
pub const PAGE_SIZE: usize = 15;

/// Which list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/contratos`.
    Contracts,
    /// `/despesas/documentos`.
    Expenses,
    /// `/convenios`.
    Agreements,
}

impl Endpoint {
    /// The upstream path.
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::Contracts => "/contratos",
            Endpoint::Expenses => "/despesas/documentos",
            Endpoint::Agreements => "/convenios",
        }
    }

    /// What is missing from `params` for this endpoint to answer, if anything.
    pub fn missing(self, params: &[(&str, String)]) -> Option<&'static str> {
        let has = |k: &str| params.iter().any(|(n, v)| *n == k && !v.is_empty());
        match self {
            Endpoint::Contracts if !has("codigoOrgao") => Some("codigoOrgao (the organ's SIAFI code)"),
            Endpoint::Expenses if !has("dataEmissao") || !has("fase") => Some("dataEmissao and fase"),
            Endpoint::Expenses if !has("unidadeGestora") && !has("gestao") => Some("unidadeGestora or gestao"),
            Endpoint::Agreements if !["uf", "codigoIBGE", "codigoOrgao", "numero"].iter().any(|k| has(k)) => {
                Some("one of uf, codigoIBGE, codigoOrgao or numero")
            }
            _ => None,
        }
    }
}

/// The Portal client for single pages.
#[derive(Clone)]
pub struct PortalClient {
    src: UpstreamSource,
}

impl PortalClient {
    /// Over one source (which carries the key).
    pub fn new(src: UpstreamSource) -> Self {
        PortalClient { src }
    }

    /// One page of `endpoint` with these upstream parameters (`pagina` included).
    pub async fn page(
        &self,
        endpoint: Endpoint,
        params: &[(&str, String)],
    ) -> Result<Fetched<Vec<Value>>, UpstreamError> {
        if let Some(what) = endpoint.missing(params) {
            return Err(missing(&self.src, endpoint.path(), what));
        }
        let got = get(&self.src, endpoint.path(), params).await?;
        let rows = match got.value.as_deref() {
            None => Vec::new(),
            Some(Value::Array(rows)) => rows.clone(),
            Some(_) => return Err(malformed(&self.src, endpoint.path(), "expected a JSON array")),
        };
        Ok(Fetched { value: rows, cache_hit: got.cache_hit })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_endpoint_names_the_minimum_filters_it_lacks() {
        let p = |pairs: &[(&'static str, &str)]| pairs.iter().map(|(k, v)| (*k, v.to_string())).collect::<Vec<_>>();
        assert!(Endpoint::Contracts.missing(&p(&[("pagina", "1")])).is_some());
        assert_eq!(Endpoint::Contracts.missing(&p(&[("codigoOrgao", "36000")])), None);
        assert_eq!(
            Endpoint::Expenses.missing(&p(&[("dataEmissao", "01/01/2025"), ("fase", "1")])),
            Some("unidadeGestora or gestao")
        );
        assert_eq!(
            Endpoint::Expenses.missing(&p(&[("dataEmissao", "01/01/2025"), ("fase", "1"), ("gestao", "00001")])),
            None
        );
        assert!(Endpoint::Agreements.missing(&p(&[("situacao", "x")])).is_some());
        assert_eq!(Endpoint::Agreements.missing(&p(&[("uf", "MG")])), None);
    }
}
