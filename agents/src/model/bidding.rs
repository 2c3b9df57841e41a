//! A bidding process (`/licitacoes` LicitacaoDTO of the Portal da Transparência) with its
//! participants, normalised, and its conversion from and to the upstream's JSON.
//!
//! Participants come from `/licitacoes/participantes`, whose record shape is not confirmed
//! (UPSTREAM.md lists the endpoint only). The shape assumed here, and written back by
//! [`bidding_to_upstream`], nests the participant rows in the licitação record under
//! `participantes`, one row per bidder:
//! `{"cnpjParticipante": "00.000.000/0001-91", "nomeParticipante": "...",
//!   "valorProposta": 1234.5 | "1.234,50", "vencedor": true | "SIM"}`.
//! The client that fetches both endpoints joins them this way. Accepted aliases per field:
//! `cpfCnpjParticipante`, `codigoParticipante`, `cnpjFormatado`, `cpfFormatado` for the
//! document; `nome` for the name; `valor`, `valorOferta` for the bid; `flagVencedor`,
//! `indicadorVencedor` for the winner flag.
//!
//! Auctions that publish their open phase (Comprasnet pregões, read by [`super::lances`]) also
//! carry the agency's reference price (`valorReferencia`) and every lance (`lances`:
//! `{"cnpjParticipante": ..., "valor": 1234.5, "dataHora": "2006-01-27T13:09:30"}`); both
//! are optional and absent from the Portal's `/licitacoes`.

use chrono::{NaiveDate, NaiveDateTime};
use serde::{Deserialize, Serialize};

use super::intern::{ArcStr, Interner};
use serde_json::{Value, json};

use super::contract::{Organ, Party, Unit};
use super::fields::{Reader, date_value, format_document, id_value};
use super::upstream::RecordError;

/// One bidder's offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bid {
    /// The bidder (CNPJ as 14 digits).
    pub bidder: Party,
    /// The offered value in R$, when published.
    pub value: Option<f64>,
    /// Whether this bid won.
    pub winner: bool,
}

/// One lance of an auction's open phase: a bidder lowering its offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lance {
    /// The bidder's document (CNPJ as 14 digits).
    pub bidder: ArcStr,
    /// The offered value in R$.
    pub value: f64,
    /// When it was placed, as the source records it (no time zone), when published.
    pub at: Option<NaiveDateTime>,
}

/// One bidding process (the default is an empty one, for building records field by field).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bidding {
    /// Upstream `id`, as a string.
    pub id: ArcStr,
    /// `licitacao.numero`.
    pub number: ArcStr,
    /// `licitacao.objeto`.
    pub object: ArcStr,
    /// `licitacao.numeroProcesso`: the key shared with the contracts it led to.
    pub process_number: ArcStr,
    /// `modalidadeLicitacao` ("Pregão", "Concorrência", ...).
    pub modality: ArcStr,
    /// `situacaoCompra`.
    pub situation: ArcStr,
    /// `dataAbertura`.
    pub opened_on: Option<NaiveDate>,
    /// `dataResultadoCompra`.
    pub result_on: Option<NaiveDate>,
    /// `dataPublicacao` (the sentinel `1900-01-01` reads as none).
    pub published_on: Option<NaiveDate>,
    /// `valor` (0 in every real record seen: not a price).
    pub value: f64,
    /// `unidadeGestora`.
    pub unit: Unit,
    /// `unidadeGestora.orgaoMaximo`.
    pub organ: Organ,
    /// Two-letter state of `municipio.uf` (real data swaps `sigla` and `nome`).
    pub uf: ArcStr,
    /// `municipio.nomeIBGE`.
    pub municipality: ArcStr,
    /// The bids (`participantes`, see the module doc); in an auction with lances, each
    /// bidder's lowest lance.
    pub participants: Vec<Bid>,
    /// The agency's reference price (valor estimado) of what is bought, when published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_price: Option<f64>,
    /// Every lance of the open phase in time order, when the source publishes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lances: Vec<Lance>,
}

impl Bidding {
    /// Shares the texts that repeat across biddings (organ, unit, modality, situation, place,
    /// bidders) through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        self.unit.share_text(interner);
        self.organ.share_text(interner);
        for text in [&mut self.modality, &mut self.situation, &mut self.uf, &mut self.municipality] {
            interner.share(text);
        }
        for bid in &mut self.participants {
            bid.bidder.share_text(interner);
        }
        for lance in &mut self.lances {
            interner.share(&mut lance.bidder);
        }
    }
    /// The winning bid, if one is flagged.
    pub fn winner(&self) -> Option<&Bid> {
        self.participants.iter().find(|b| b.winner)
    }
    /// A short human name: number and the start of the object.
    pub fn display_name(&self) -> String {
        let object: String = self.object.chars().take(80).collect();
        if self.number.is_empty() { object } else { format!("{} - {}", self.number, object) }
    }
}

/// The organ of a `unidadeGestora` object: `orgaoMaximo`, else `orgaoVinculado`.
pub(crate) fn organ_of(r: &Reader<'_>, ug: &str) -> Organ {
    let max = Organ {
        code: r.text(&format!("{ug}.orgaoMaximo.codigo")).into(),
        acronym: r.text(&format!("{ug}.orgaoMaximo.sigla")).into(),
        name: r.text(&format!("{ug}.orgaoMaximo.nome")).into(),
    };
    if !max.code.is_empty() {
        return max;
    }
    Organ {
        code: r.text(&format!("{ug}.orgaoVinculado.codigoSIAFI")).into(),
        acronym: r.text(&format!("{ug}.orgaoVinculado.sigla")).into(),
        name: r.text(&format!("{ug}.orgaoVinculado.nome")).into(),
    }
}

/// The upstream `unidadeGestora` object of a unit and organ.
pub(crate) fn unit_value(unit: &Unit, organ: &Organ) -> Value {
    json!({
        "codigo": unit.code,
        "nome": unit.name,
        "descricaoPoder": "EXECUTIVO",
        "orgaoVinculado": {"codigoSIAFI": organ.code, "cnpj": "", "sigla": organ.acronym, "nome": organ.name},
        "orgaoMaximo": {"codigo": organ.code, "sigla": organ.acronym, "nome": organ.name},
    })
}

/// Normalises one LicitacaoDTO (with `participantes`). `index` is its position in the input.
pub fn bidding_from_upstream(index: usize, v: &Value) -> Result<Bidding, RecordError> {
    let r = Reader::new(index, v, "id")?;
    let (sigla, nome) = (r.text("municipio.uf.sigla"), r.text("municipio.uf.nome"));
    let uf = if nome.chars().count() == 2 { nome } else { sigla };
    let mut participants = Vec::new();
    for (k, row) in r.array("participantes")?.iter().enumerate() {
        let at = |f: &str| format!("participantes[{k}].{f}");
        let Some(obj) = row.as_object() else {
            return Err(r.err(&format!("participantes[{k}]"), "not an object".into()));
        };
        let wrapped = json!({"id": r.id(), "p": obj});
        let p = Reader::new(index, &wrapped, "id")?;
        let doc = p
            .document(&[
                "p.cnpjParticipante",
                "p.cpfCnpjParticipante",
                "p.codigoParticipante",
                "p.cnpjFormatado",
                "p.cpfFormatado",
            ])
            .map_err(|e| r.err(&at(e.field.trim_start_matches("p.")), e.message))?;
        let value = ["p.valorProposta", "p.valor", "p.valorOferta"]
            .iter()
            .find(|f| p.get(f).is_some())
            .map(|f| p.money(f))
            .transpose()
            .map_err(|e| r.err(&at(e.field.trim_start_matches("p.")), e.message))?
            .flatten();
        let winner = ["p.vencedor", "p.flagVencedor", "p.indicadorVencedor"]
            .iter()
            .find(|f| p.get(f).is_some())
            .map(|f| p.flag(f))
            .transpose()
            .map_err(|e| r.err(&at(e.field.trim_start_matches("p.")), e.message))?
            .flatten()
            .unwrap_or(false);
        let name = p.text_any(&["p.nomeParticipante", "p.nome", "p.razaoSocial"]);
        participants.push(Bid { bidder: Party { name: name.into(), document: doc.into() }, value, winner });
    }
    let lances = lances_from_upstream(index, &r)?;
    Ok(Bidding {
        reference_price: r.money("valorReferencia")?,
        lances,
        number: r.text("licitacao.numero").into(),
        object: r.text("licitacao.objeto").into(),
        process_number: r.text("licitacao.numeroProcesso").into(),
        modality: r.text("modalidadeLicitacao").into(),
        situation: r.text("situacaoCompra").into(),
        opened_on: r.date("dataAbertura")?,
        result_on: r.date("dataResultadoCompra")?,
        published_on: r.date("dataPublicacao")?,
        value: r.money("valor")?.unwrap_or(0.0),
        unit: Unit { code: r.text("unidadeGestora.codigo").into(), name: r.text("unidadeGestora.nome").into() },
        organ: organ_of(&r, "unidadeGestora"),
        uf: uf.into(),
        municipality: r.text("municipio.nomeIBGE").into(),
        participants,
        id: r.id().into(),
    })
}

/// The optional `lances` of a LicitacaoDTO (see the module doc), in time order.
fn lances_from_upstream(index: usize, r: &Reader<'_>) -> Result<Vec<Lance>, RecordError> {
    let Some(rows) = r.get("lances") else { return Ok(Vec::new()) };
    let rows = rows.as_array().ok_or_else(|| r.err("lances", "not an array".into()))?;
    let mut out = Vec::with_capacity(rows.len());
    for (k, row) in rows.iter().enumerate() {
        let wrapped = json!({"id": r.id(), "l": row});
        let l = Reader::new(index, &wrapped, "id")?;
        let at = |f: &str| format!("lances[{k}].{f}");
        let bidder = l.document(&["l.cnpjParticipante"]).map_err(|e| r.err(&at("cnpjParticipante"), e.message))?;
        let value = l.money("l.valor").map_err(|e| r.err(&at("valor"), e.message))?;
        let Some(value) = value else { return Err(r.err(&at("valor"), "missing".into())) };
        let when = l.text("l.dataHora");
        let at_time = if when.is_empty() {
            None
        } else {
            Some(
                NaiveDateTime::parse_from_str(&when, "%Y-%m-%dT%H:%M:%S")
                    .map_err(|e| r.err(&at("dataHora"), format!("{when:?}: {e}")))?,
            )
        };
        out.push(Lance { bidder: bidder.into(), value, at: at_time });
    }
    out.sort_by_key(|l| l.at);
    Ok(out)
}

/// The bidding in the upstream LicitacaoDTO shape with `participantes` (the inverse of
/// [`bidding_from_upstream`]). The UF is written with the real data's swap (`sigla` holds the
/// state name position, here the abbreviation in `nome`).
pub fn bidding_to_upstream(b: &Bidding) -> Value {
    let participants: Vec<Value> = b
        .participants
        .iter()
        .map(|p| {
            json!({
                "cnpjParticipante": format_document(&p.bidder.document),
                "nomeParticipante": p.bidder.name,
                "valorProposta": p.value,
                "vencedor": p.winner,
            })
        })
        .collect();
    let mut v = json!({
        "id": id_value(&b.id),
        "licitacao": {"numero": b.number, "objeto": b.object, "numeroProcesso": b.process_number, "contatoResponsavel": ""},
        "dataResultadoCompra": date_value(b.result_on),
        "dataAbertura": date_value(b.opened_on),
        "dataReferencia": date_value(b.opened_on),
        "dataPublicacao": date_value(b.published_on),
        "situacaoCompra": b.situation,
        "modalidadeLicitacao": b.modality,
        "instrumentoLegal": "Sem informação",
        "valor": b.value,
        "municipio": {"codigoIBGE": "", "nomeIBGE": b.municipality, "codigoRegiao": "", "nomeRegiao": "", "pais": "BRASIL",
            "uf": {"sigla": "", "nome": b.uf}},
        "unidadeGestora": unit_value(&b.unit, &b.organ),
        "participantes": participants,
    });
    if let Some(reference) = b.reference_price {
        v["valorReferencia"] = json!(reference);
    }
    if !b.lances.is_empty() {
        v["lances"] = b
            .lances
            .iter()
            .map(|l| {
                json!({"cnpjParticipante": format_document(&l.bidder), "valor": l.value,
                    "dataHora": l.at.map(|t| t.format("%Y-%m-%dT%H:%M:%S").to_string())})
            })
            .collect();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Value {
        json!({
            "id": 301442, "licitacao": {"numero": "000152024", "objeto": "Aquisição de material de expediente",
                "numeroProcesso": "36000.000123/2024-11", "contatoResponsavel": ""},
            "dataResultadoCompra": null, "dataAbertura": "2024-04-02", "dataPublicacao": "1900-01-01",
            "situacaoCompra": "Publicado", "modalidadeLicitacao": "Pregão", "valor": 0.0,
            "municipio": {"nomeIBGE": "RIO DE JANEIRO", "uf": {"sigla": "RIO DE JANEIRO", "nome": "RJ"}},
            "unidadeGestora": {"codigo": "250057", "nome": "NUCLEO ESTADUAL DO MS NO RIO DE JANEIRO",
                "orgaoVinculado": {"codigoSIAFI": "36901", "cnpj": "", "sigla": "", "nome": "FNS"},
                "orgaoMaximo": {"codigo": "36000", "sigla": "MS", "nome": "Ministério da Saúde"}},
            "participantes": [
                {"cnpjParticipante": "00.000.000/0001-91", "nomeParticipante": "A LTDA", "valorProposta": "10.500,00", "vencedor": "SIM"},
                {"cpfCnpjParticipante": "11222333000181", "nome": "B LTDA", "valor": 11000, "flagVencedor": false}
            ]
        })
    }

    #[test]
    fn a_licitacao_with_participants_is_normalised_and_round_trips() {
        let b = bidding_from_upstream(0, &record()).unwrap();
        assert_eq!(b.id, "301442");
        assert_eq!(b.organ.code, "36000");
        assert_eq!(b.uf, "RJ");
        assert_eq!(b.published_on, None);
        assert_eq!(b.participants.len(), 2);
        assert_eq!(b.winner().unwrap().bidder.document, "00000000000191");
        assert_eq!(b.participants[0].value, Some(10_500.0));
        assert_eq!(b.participants[1].bidder.name, "B LTDA");
        assert_eq!(bidding_from_upstream(0, &bidding_to_upstream(&b)).unwrap(), b);
    }

    #[test]
    fn an_auction_with_reference_price_and_lances_round_trips() {
        let mut v = record();
        v["valorReferencia"] = json!("12.000,00");
        v["lances"] = json!([
            {"cnpjParticipante": "11222333000181", "valor": 11000, "dataHora": "2024-04-02T10:00:05"},
            {"cnpjParticipante": "00.000.000/0001-91", "valor": "10.500,00", "dataHora": "2024-04-02T10:00:01"}
        ]);
        let b = bidding_from_upstream(0, &v).unwrap();
        assert_eq!(b.reference_price, Some(12_000.0));
        assert_eq!(b.lances[0].bidder, "00000000000191");
        assert_eq!(bidding_from_upstream(0, &bidding_to_upstream(&b)).unwrap(), b);
        v["lances"][0]["dataHora"] = json!("ontem");
        assert_eq!(bidding_from_upstream(0, &v).unwrap_err().field, "lances[0].dataHora");
    }

    #[test]
    fn a_bad_participant_names_the_row_and_field() {
        let mut v = record();
        v["participantes"][1]["valor"] = json!("abc");
        let e = bidding_from_upstream(3, &v).unwrap_err();
        assert_eq!((e.index, e.field.as_str()), (3, "participantes[1].valor"));
        assert_eq!(e.id.as_deref(), Some("301442"));
    }
}
