//! IBGE service data: resident population from the aggregates API (`/api/v3/agregados/6579`,
//! variable 9324, the yearly population estimate; `localidades=N3[all]` for the states,
//! `N6[all]` or `N6[<code>]` for municipalities, `N6[N3[<uf code>]]` for a state's
//! municipalities; period `-1` is the latest), the literacy rate of people aged 15 or more from
//! the 2022 Census (agregado 9543, variable 2513, the totals of sex, colour and age), and a
//! state's municipalities from localidades (`/api/v1/localidades/estados/{UF}/municipios`).
//! Values in the aggregates come as strings per year (`{"2024": "21322691"}`); `"-"` and
//! `"..."` mean no figure and are skipped.

use serde::Serialize;
use serde_json::Value;

use super::{Fetched, get, malformed};
use crate::upstream::UpstreamError;
use crate::upstream::source::UpstreamSource;

/// The aggregate and variable of the yearly resident population estimate.
const POPULATION: &str = "/api/v3/agregados/6579/periodos/{period}/variaveis/9324";
/// The 2022 Census literacy rate (15 years or more), and the classification picking its totals.
const LITERACY: &str = "/api/v3/agregados/9543/periodos/2022/variaveis/2513";
const LITERACY_TOTALS: &str = "2[6794]|86[95251]|287[100362]";

/// Which places to ask the population of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Places {
    /// The 27 states.
    States,
    /// Every municipality.
    AllMunicipalities,
    /// The municipalities of one state (its 2-digit IBGE code).
    MunicipalitiesOf(u32),
    /// One municipality (7-digit code).
    Municipality(u32),
}

impl Places {
    fn localidades(&self) -> String {
        match self {
            Places::States => "N3[all]".into(),
            Places::AllMunicipalities => "N6[all]".into(),
            Places::MunicipalitiesOf(uf) => format!("N6[N3[{uf}]]"),
            Places::Municipality(code) => format!("N6[{code}]"),
        }
    }
}

/// One place's population.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Population {
    /// IBGE code (2 digits for a state, 7 for a municipality).
    pub code: u32,
    /// Name as IBGE gives it (municipalities as "Belo Horizonte - MG").
    pub name: String,
    /// Reference year of the figure.
    pub year: i32,
    /// Resident population.
    pub population: u64,
}

/// One place's figure in an aggregates answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// IBGE code.
    pub code: u32,
    /// Name as IBGE gives it.
    pub name: String,
    /// Reference year.
    pub year: i32,
    /// The value (a count, a rate ...).
    pub value: f64,
}

/// One municipality of localidades.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Locality {
    /// 7-digit code.
    pub code: u32,
    /// Name.
    pub name: String,
    /// State acronym, when the record names it.
    pub uf: Option<String>,
}

/// The IBGE client.
#[derive(Clone)]
pub struct IbgeClient {
    src: UpstreamSource,
}

impl IbgeClient {
    /// The source under this client (health reads its outcomes).
    pub fn source(&self) -> &UpstreamSource {
        &self.src
    }

    /// Over one source.
    pub fn new(src: UpstreamSource) -> Self {
        IbgeClient { src }
    }

    /// The population of `places` in `year` (the latest when `None`).
    pub async fn population(
        &self,
        places: &Places,
        year: Option<i32>,
    ) -> Result<Fetched<Vec<Population>>, UpstreamError> {
        let period = year.map_or("-1".to_string(), |y| y.to_string());
        let path = POPULATION.replace("{period}", &period);
        let got = self.figures(&path, &[("localidades", places.localidades())]).await?;
        let rows = got.value.into_iter().filter(|f| f.value >= 0.0).map(|f| Population {
            population: f.value.round() as u64,
            code: f.code,
            name: f.name,
            year: f.year,
        });
        Ok(Fetched { value: rows.collect(), cache_hit: got.cache_hit })
    }

    /// The literacy rate (%) of people aged 15 or more of `places`, 2022 Census.
    pub async fn literacy(&self, places: &Places) -> Result<Fetched<Vec<Figure>>, UpstreamError> {
        let query = [("localidades", places.localidades()), ("classificacao", LITERACY_TOTALS.to_string())];
        self.figures(LITERACY, &query).await
    }

    async fn figures(&self, path: &str, query: &[(&str, String)]) -> Result<Fetched<Vec<Figure>>, UpstreamError> {
        let got = get(&self.src, path, query).await?;
        let rows = match got.value.as_deref() {
            None => Vec::new(),
            Some(body) => parse_figures(body).map_err(|r| malformed(&self.src, path, r))?,
        };
        Ok(Fetched { value: rows, cache_hit: got.cache_hit })
    }

    /// The municipalities of a state (by acronym).
    pub async fn municipalities(&self, uf: &str) -> Result<Fetched<Vec<Locality>>, UpstreamError> {
        let path = format!("/api/v1/localidades/estados/{uf}/municipios");
        let got = get(&self.src, &path, &[]).await?;
        let rows = match got.value.as_deref() {
            None => Vec::new(),
            Some(body) => parse_localities(body).map_err(|r| malformed(&self.src, &path, r))?,
        };
        Ok(Fetched { value: rows, cache_hit: got.cache_hit })
    }
}

/// The latest figure of each place in an aggregates answer.
pub fn parse_figures(body: &Value) -> Result<Vec<Figure>, String> {
    let variables = body.as_array().ok_or("expected an array of variables")?;
    let mut out: Vec<Figure> = Vec::new();
    for series in variables
        .iter()
        .filter_map(|v| v.get("resultados")?.as_array())
        .flatten()
        .filter_map(|r| r.get("series")?.as_array())
        .flatten()
    {
        let place = series.get("localidade").ok_or("a series without localidade")?;
        let code = match place.get("id") {
            Some(Value::String(s)) => s.parse::<u32>().ok(),
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            _ => None,
        }
        .ok_or("a localidade without a numeric id")?;
        let name = place.get("nome").and_then(Value::as_str).unwrap_or_default().to_string();
        let by_year = series.get("serie").and_then(Value::as_object).ok_or("a series without serie")?;
        let latest = by_year
            .iter()
            .filter_map(|(y, v)| Some((y.parse::<i32>().ok()?, v.as_str()?.trim().parse::<f64>().ok()?)))
            .filter(|(_, v)| v.is_finite())
            .max_by_key(|(y, _)| *y);
        if let Some((year, value)) = latest {
            out.push(Figure { code, name, year, value });
        }
    }
    Ok(out)
}

/// Municipalities of a localidades answer; the state comes from the micro-region's UF or, for
/// the few municipalities without one, from the immediate region's.
pub fn parse_localities(body: &Value) -> Result<Vec<Locality>, String> {
    let rows = body.as_array().ok_or("expected an array of municipalities")?;
    rows.iter()
        .map(|m| {
            let code = m
                .get("id")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or("a municipality without id")?;
            let uf = m
                .pointer("/microrregiao/mesorregiao/UF/sigla")
                .or_else(|| m.pointer("/regiao-imediata/regiao-intermediaria/UF/sigla"))
                .and_then(Value::as_str)
                .map(str::to_string);
            Ok(Locality { code, name: m.get("nome").and_then(Value::as_str).unwrap_or_default().to_string(), uf })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_latest_numeric_figure_of_each_place_is_kept_and_missing_ones_skipped() {
        let body = json!([{"id": "9324", "variavel": "População residente estimada", "unidade": "Pessoas",
        "resultados": [{"classificacoes": [], "series": [
            {"localidade": {"id": "31", "nivel": {"id": "N3", "nome": "Unidade da Federação"}, "nome": "Minas Gerais"},
             "serie": {"2021": "21411923", "2024": "21322691"}},
            {"localidade": {"id": "11", "nivel": {"id": "N3"}, "nome": "Rondônia"}, "serie": {"2024": "-"}}
        ]}]}]);
        let rows = parse_figures(&body).unwrap();
        assert_eq!(rows, vec![Figure { code: 31, name: "Minas Gerais".into(), year: 2024, value: 21_322_691.0 }]);
        assert!(parse_figures(&json!({"erro": 1})).is_err());
    }

    #[test]
    fn a_municipality_without_micro_region_takes_its_state_from_the_immediate_region() {
        let body = json!([
            {"id": 3106200, "nome": "Belo Horizonte", "microrregiao": {"mesorregiao": {"UF": {"sigla": "MG"}}}},
            {"id": 5101837, "nome": "Boa Esperança do Norte", "microrregiao": null,
             "regiao-imediata": {"regiao-intermediaria": {"UF": {"sigla": "MT"}}}}
        ]);
        let rows = parse_localities(&body).unwrap();
        assert_eq!(rows[0].uf.as_deref(), Some("MG"));
        assert_eq!((rows[1].code, rows[1].uf.as_deref()), (5101837, Some("MT")));
    }
}
