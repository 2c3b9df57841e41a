//! A federal public servant (`/servidores` CadastroServidorDTO of the Portal da
//! Transparência), normalised, and its conversion from and to the upstream's JSON. The Portal
//! publishes CPFs masked (`***.456.789-**`): only the six middle digits are visible.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::contract::Organ;
use super::fields::{Reader, cpf_key, id_value};
use super::upstream::RecordError;

/// One servant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Servant {
    /// `servidor.id`, as a string.
    pub id: String,
    /// `servidor.pessoa.cpfFormatado`, masked as published.
    pub cpf: String,
    /// `servidor.pessoa.nome`.
    pub name: String,
    /// `servidor.orgaoServidorLotacao`: SIAPE code, acronym, name.
    pub organ: Organ,
    /// `servidor.orgaoServidorExercicio.codigo` (SIAPE), where the servant works.
    pub exercise_organ: String,
    /// `servidor.situacao` ("ATIVO PERMANENTE", ...).
    pub situation: String,
    /// `servidor.tipoServidor` ("Civil", "Militar").
    pub kind: String,
    /// `servidor.funcao.descricaoFuncaoCargo` or the first `fichasCargoEfetivo[].cargo`.
    pub role: String,
}

impl Servant {
    /// The six visible digits of the CPF (see [`cpf_key`]).
    pub fn cpf_key(&self) -> Option<String> {
        cpf_key(&self.cpf)
    }
    /// The SIAFI "órgão superior" family of the lotação: the first two digits of the 5-digit
    /// code followed by `000` (`36201` -> `36000`). SIAPE and SIAFI codes of the federal
    /// executive share these families (26xxx education, 36xxx health, ...), which is what lets
    /// a servant be compared with the organ of a contract.
    pub fn organ_family(&self) -> String {
        organ_family(&self.organ.code)
    }
}

/// Whether two organ codes are of the same family (same first two digits of 5-digit codes, or
/// equal otherwise), without allocating.
pub fn same_family(a: &str, b: &str) -> bool {
    let five = |c: &str| c.len() == 5 && c.bytes().all(|x| x.is_ascii_digit());
    if five(a) && five(b) { a.as_bytes()[..2] == b.as_bytes()[..2] } else { a == b }
}

/// `36201` -> `36000`; codes that are not 5 digits are returned unchanged.
pub fn organ_family(code: &str) -> String {
    if code.len() == 5 && code.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}000", &code[..2])
    } else {
        code.to_string()
    }
}

/// Normalises one CadastroServidorDTO. `index` is its position in the input.
pub fn servant_from_upstream(index: usize, v: &Value) -> Result<Servant, RecordError> {
    let r = Reader::new(index, v, "servidor.id")?;
    let role = match r.text("servidor.funcao.descricaoFuncaoCargo") {
        s if !s.is_empty() => s,
        _ => r
            .array("fichasCargoEfetivo")?
            .first()
            .and_then(|f| f.get("cargo"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string(),
    };
    Ok(Servant {
        cpf: r.text("servidor.pessoa.cpfFormatado"),
        name: r.text("servidor.pessoa.nome"),
        organ: Organ {
            code: r.text("servidor.orgaoServidorLotacao.codigo").into(),
            acronym: r.text("servidor.orgaoServidorLotacao.sigla").into(),
            name: r.text("servidor.orgaoServidorLotacao.nome").into(),
        },
        exercise_organ: r.text("servidor.orgaoServidorExercicio.codigo"),
        situation: r.text("servidor.situacao"),
        kind: r.text("servidor.tipoServidor"),
        role,
        id: r.id(),
    })
}

/// The servant in the upstream CadastroServidorDTO shape (the inverse of
/// [`servant_from_upstream`]).
pub fn servant_to_upstream(s: &Servant) -> Value {
    json!({
        "servidor": {
            "id": id_value(&s.id),
            "idServidorAposentadoPensionista": null,
            "pessoa": {"cpfFormatado": s.cpf, "nome": s.name, "tipo": "PESSOA FÍSICA"},
            "situacao": s.situation,
            "orgaoServidorLotacao": {"codigo": s.organ.code, "nome": s.organ.name, "sigla": s.organ.acronym},
            "orgaoServidorExercicio": {"codigo": s.exercise_organ, "nome": "", "sigla": ""},
            "tipoServidor": s.kind,
            "funcao": {"descricaoFuncaoCargo": s.role},
            "flagAfastado": 0,
        },
        "fichasCargoEfetivo": [],
        "fichasFuncao": [],
        "fichasMilitar": [],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servant_is_normalised_with_a_masked_cpf_and_round_trips() {
        let v = json!({"servidor": {"id": 1234567, "pessoa": {"cpfFormatado": "***.456.789-**", "nome": "MARIA DA SILVA"},
            "situacao": "ATIVO PERMANENTE", "orgaoServidorLotacao": {"codigo": "36201", "nome": "FUNDACAO OSWALDO CRUZ", "sigla": "FIOCRUZ"},
            "orgaoServidorExercicio": {"codigo": "36201"}, "tipoServidor": "Civil"},
            "fichasCargoEfetivo": [{"cargo": "ANALISTA"}]});
        let s = servant_from_upstream(0, &v).unwrap();
        assert_eq!(
            (s.id.as_str(), s.cpf_key().as_deref(), s.organ_family().as_str()),
            ("1234567", Some("456789"), "36000")
        );
        assert_eq!(s.role, "ANALISTA");
        assert_eq!(servant_from_upstream(0, &servant_to_upstream(&s)).unwrap(), s);
        assert_eq!(servant_from_upstream(5, &json!({"servidor": {}})).unwrap_err().field, "servidor.id");
    }
}
