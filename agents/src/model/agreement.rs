//! An agreement (`/convenios` ConvenioDTO of the Portal da Transparência: a transfer of
//! federal money to a state, municipality or private non-profit), normalised, and its
//! conversion from and to the upstream's JSON.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::contract::{Organ, Party};
use super::fields::{Reader, date_value, format_document, id_value};
use super::upstream::RecordError;

/// One agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Upstream `id`, as a string.
    pub id: String,
    /// `dimConvenio.numero`.
    pub number: String,
    /// `dimConvenio.objeto`.
    pub object: String,
    /// `situacao` ("EM EXECUÇÃO", "CONCLUÍDO", ...).
    pub situation: String,
    /// `convenente`: who receives the money.
    pub grantee: Party,
    /// The granting organ: `orgao.orgaoMaximo` when present, else `orgao` itself.
    pub organ: Organ,
    /// `valor`: the agreed total in R$.
    pub value: f64,
    /// `valorLiberado`: released so far.
    pub released: f64,
    /// `valorContrapartida`: the grantee's own share.
    pub counterpart: f64,
    /// `dataInicioVigencia`.
    pub valid_from: Option<NaiveDate>,
    /// `dataFinalVigencia`.
    pub valid_until: Option<NaiveDate>,
    /// `dataPublicacao`.
    pub published_on: Option<NaiveDate>,
    /// `dataUltimaLiberacao`.
    pub last_release_on: Option<NaiveDate>,
    /// `municipioConvenente.uf.nome` (or `sigla`, whichever has two letters).
    pub uf: String,
    /// `municipioConvenente.nomeIBGE`.
    pub municipality: String,
    /// `municipioConvenente.codigoIBGE`: the municipality's 7-digit IBGE code, "" when not given.
    #[serde(default)]
    pub municipality_code: String,
}

/// Normalises one ConvenioDTO. `index` is its position in the input.
pub fn agreement_from_upstream(index: usize, v: &Value) -> Result<Agreement, RecordError> {
    let r = Reader::new(index, v, "id")?;
    let max = r.text("orgao.orgaoMaximo.codigo");
    let organ = if max.is_empty() {
        Organ {
            code: r.text("orgao.codigoSIAFI").into(),
            acronym: r.text("orgao.sigla").into(),
            name: r.text("orgao.nome").into(),
        }
    } else {
        Organ {
            code: max.into(),
            acronym: r.text("orgao.orgaoMaximo.sigla").into(),
            name: r.text("orgao.orgaoMaximo.nome").into(),
        }
    };
    let (sigla, nome) = (r.text("municipioConvenente.uf.sigla"), r.text("municipioConvenente.uf.nome"));
    let uf = if nome.chars().count() == 2 { nome } else { sigla };
    Ok(Agreement {
        number: r.text_any(&["dimConvenio.numero", "numero"]),
        object: r.text("dimConvenio.objeto"),
        situation: r.text("situacao"),
        grantee: Party {
            name: r.text_any(&["convenente.nome", "convenente.razaoSocialReceita"]).into(),
            document: r.document(&["convenente.cnpjFormatado", "convenente.cpfFormatado"])?.into(),
        },
        organ,
        value: r.money("valor")?.unwrap_or(0.0),
        released: r.money("valorLiberado")?.unwrap_or(0.0),
        counterpart: r.money("valorContrapartida")?.unwrap_or(0.0),
        valid_from: r.date("dataInicioVigencia")?,
        valid_until: r.date("dataFinalVigencia")?,
        published_on: r.date("dataPublicacao")?,
        last_release_on: r.date("dataUltimaLiberacao")?,
        uf,
        municipality: r.text("municipioConvenente.nomeIBGE"),
        municipality_code: r.text("municipioConvenente.codigoIBGE"),
        id: r.id(),
    })
}

/// The agreement in the upstream ConvenioDTO shape (the inverse of [`agreement_from_upstream`]).
pub fn agreement_to_upstream(a: &Agreement) -> Value {
    let doc = format_document(&a.grantee.document);
    let (cnpj, cpf) = if a.grantee.document.len() == 14 { (doc, String::new()) } else { (String::new(), doc) };
    json!({
        "id": id_value(&a.id),
        "dataReferencia": date_value(a.valid_from),
        "dataInicioVigencia": date_value(a.valid_from),
        "dataFinalVigencia": date_value(a.valid_until),
        "dataPublicacao": date_value(a.published_on),
        "dataUltimaLiberacao": date_value(a.last_release_on),
        "dataConclusao": null,
        "dimConvenio": {"codigo": a.id, "numero": a.number, "objeto": a.object},
        "situacao": a.situation,
        "convenente": {"id": 0, "cpfFormatado": cpf, "cnpjFormatado": cnpj, "numeroInscricaoSocial": "",
            "nome": a.grantee.name, "razaoSocialReceita": a.grantee.name, "nomeFantasiaReceita": "", "tipo": ""},
        "municipioConvenente": {"codigoIBGE": a.municipality_code, "nomeIBGE": a.municipality, "uf": {"sigla": "", "nome": a.uf}},
        "orgao": {"nome": a.organ.name, "codigoSIAFI": a.organ.code, "cnpj": "", "sigla": a.organ.acronym,
            "descricaoPoder": "EXECUTIVO",
            "orgaoMaximo": {"codigo": a.organ.code, "sigla": a.organ.acronym, "nome": a.organ.name}},
        "tipoInstrumento": {"codigo": "1", "descricao": "Convênio"},
        "valor": a.value,
        "valorLiberado": a.released,
        "valorContrapartida": a.counterpart,
        "valorDaUltimaLiberacao": 0.0,
        "numeroProcesso": "",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_convenio_is_normalised_and_round_trips() {
        let v = json!({
            "id": 884512, "dimConvenio": {"codigo": "884512", "numero": "912345", "objeto": "CONSTRUÇÃO DE UBS"},
            "situacao": "EM EXECUÇÃO", "convenente": {"nome": "MUNICIPIO DE X", "cnpjFormatado": "00.000.000/0001-91"},
            "orgao": {"nome": "Fundo Nacional de Saúde", "codigoSIAFI": "36901", "orgaoMaximo": {"codigo": "36000", "sigla": "MS", "nome": "Ministério da Saúde"}},
            "municipioConvenente": {"codigoIBGE": "3106200", "nomeIBGE": "X", "uf": {"sigla": "MINAS GERAIS", "nome": "MG"}},
            "valor": 1500000.0, "valorLiberado": 500000.0, "valorContrapartida": "15.000,00",
            "dataInicioVigencia": "2024-01-10", "dataFinalVigencia": "2025-12-31"
        });
        let a = agreement_from_upstream(0, &v).unwrap();
        assert_eq!((a.id.as_str(), a.organ.code.as_str(), a.uf.as_str()), ("884512", "36000", "MG"));
        assert_eq!(a.counterpart, 15_000.0);
        assert_eq!(a.municipality_code, "3106200");
        assert_eq!(a.grantee.document, "00000000000191");
        assert_eq!(agreement_from_upstream(0, &agreement_to_upstream(&a)).unwrap(), a);
    }
}
