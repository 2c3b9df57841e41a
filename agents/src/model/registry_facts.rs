//! What the company registry says about a supplier: partners, address, phone and opening date.
//!
//! These facts are NOT in the Portal da Transparência: upstream they come from the Receita
//! Federal's open CNPJ data (the "Cadastro Nacional da Pessoa Jurídica" files and their
//! `QSA`, quadro de sócios e administradores), as served by public mirrors in the JSON shape
//! read here (`cnpj`, `razao_social`, `data_inicio_atividade`, `logradouro`, `numero`,
//! `complemento`, `cep`, `municipio`, `uf`, `ddd_telefone_1`, `qsa[] {nome_socio,
//! cnpj_cpf_do_socio, qualificacao_socio}`). The Receita masks partners' CPFs the way the
//! Portal masks servants' (`***456789**`), so partners and servants match on the six visible
//! digits plus the name. Employee counts are not in the registry; an empty `qsa` (no
//! partners on record) is the registry's only "nobody behind it" signal.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fields::{Reader, cpf_key, date_value};
use super::upstream::RecordError;
use crate::text::fold;

/// A partner or administrator (`qsa` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partner {
    /// `nome_socio`.
    pub name: String,
    /// `cnpj_cpf_do_socio`: a masked CPF as given, or a CNPJ as 14 digits for company partners.
    pub document: String,
    /// `qualificacao_socio` ("Sócio-Administrador", ...).
    pub role: String,
}

impl Partner {
    /// The key partners and servants are matched on: the CPF's visible digits and the folded
    /// name (`456789|maria da silva`), or the CNPJ of a company partner.
    pub fn key(&self) -> Option<String> {
        if self.document.len() == 14 && self.document.bytes().all(|b| b.is_ascii_digit()) {
            return Some(self.document.clone());
        }
        let name = fold(self.name.trim());
        cpf_key(&self.document).filter(|_| !name.is_empty()).map(|k| format!("{k}|{name}"))
    }
}

/// A postal address, as the registry gives it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Address {
    /// `logradouro`.
    pub street: String,
    /// `numero`.
    pub number: String,
    /// `complemento` ("SALA 1204").
    pub complement: String,
    /// `bairro`.
    pub district: String,
    /// `cep`, 8 digits.
    pub zip: String,
    /// `municipio`.
    pub city: String,
    /// `uf`.
    pub uf: String,
}

impl Address {
    /// The key two suppliers share when they sit at the same door: CEP, number and complement,
    /// folded (`01310100|1000|sala 1204`). A building (same CEP and number, other suites) does
    /// not match. `None` when the CEP or number is missing.
    pub fn key(&self) -> Option<String> {
        let zip: String = self.zip.chars().filter(char::is_ascii_digit).collect();
        let number = fold(self.number.trim());
        if zip.len() != 8 || number.is_empty() || number == "s/n" {
            return None;
        }
        let complement: String = fold(&self.complement).split_whitespace().collect::<Vec<_>>().join(" ");
        Some(format!("{zip}|{number}|{complement}"))
    }
}

/// Registry facts about one supplier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupplierProfile {
    /// `cnpj`, 14 digits: the key to `Contract::supplier.document`.
    pub cnpj: String,
    /// `razao_social`.
    pub name: String,
    /// `data_inicio_atividade`.
    pub opened_on: Option<NaiveDate>,
    /// `descricao_situacao_cadastral` ("ATIVA", "BAIXADA", ...).
    pub status: String,
    /// `cnae_fiscal`: main activity code.
    pub cnae: String,
    /// The address.
    pub address: Address,
    /// `ddd_telefone_1`, digits only.
    pub phone: String,
    /// `qsa`: partners and administrators.
    pub partners: Vec<Partner>,
}

impl SupplierProfile {
    /// The 8-digit CNPJ root (the company across its branches).
    pub fn root(&self) -> &str {
        self.cnpj.get(..8).unwrap_or("")
    }
    /// The phone as a sharing key: at least 10 digits (DDD + number), else `None`.
    pub fn phone_key(&self) -> Option<&str> {
        (self.phone.len() >= 10).then_some(self.phone.as_str())
    }
}

/// Normalises one registry record. `index` is its position in the input.
pub fn supplier_profile_from_upstream(index: usize, v: &Value) -> Result<SupplierProfile, RecordError> {
    let r = Reader::new(index, v, "cnpj")?;
    let cnpj = super::fields::document(&r.id()).map_err(|m| r.err("cnpj", m))?;
    if cnpj.len() != 14 {
        return Err(r.err("cnpj", format!("a CNPJ must have 14 digits, got {:?}", r.id())));
    }
    let mut partners = Vec::new();
    for (k, row) in r.array("qsa")?.iter().enumerate() {
        let get = |f: &str| row.get(f).and_then(Value::as_str).unwrap_or("").trim().to_string();
        let raw = get("cnpj_cpf_do_socio");
        let document = super::fields::document(&raw).or_else(|_| {
            if raw.contains('*') || raw.is_empty() {
                Ok(raw.clone())
            } else {
                Err(r.err(&format!("qsa[{k}].cnpj_cpf_do_socio"), format!("not a CPF or CNPJ: {raw:?}")))
            }
        })?;
        partners.push(Partner { name: get("nome_socio"), document, role: get("qualificacao_socio") });
    }
    Ok(SupplierProfile {
        name: r.text("razao_social"),
        opened_on: r.date("data_inicio_atividade")?,
        status: r.text_any(&["descricao_situacao_cadastral", "situacao_cadastral"]),
        cnae: r.text("cnae_fiscal"),
        address: Address {
            street: r.text("logradouro"),
            number: r.text("numero"),
            complement: r.text("complemento"),
            district: r.text("bairro"),
            zip: r.text("cep").chars().filter(char::is_ascii_digit).collect(),
            city: r.text("municipio"),
            uf: r.text("uf"),
        },
        phone: r.text("ddd_telefone_1").chars().filter(char::is_ascii_digit).collect(),
        partners,
        cnpj,
    })
}

/// The profile in the registry's JSON shape (the inverse of [`supplier_profile_from_upstream`]).
pub fn supplier_profile_to_upstream(p: &SupplierProfile) -> Value {
    let qsa: Vec<Value> = p
        .partners
        .iter()
        .map(|s| json!({"nome_socio": s.name, "cnpj_cpf_do_socio": s.document, "qualificacao_socio": s.role}))
        .collect();
    json!({
        "cnpj": p.cnpj,
        "razao_social": p.name,
        "nome_fantasia": "",
        "data_inicio_atividade": date_value(p.opened_on),
        "descricao_situacao_cadastral": p.status,
        "cnae_fiscal": p.cnae,
        "logradouro": p.address.street,
        "numero": p.address.number,
        "complemento": p.address.complement,
        "bairro": p.address.district,
        "cep": p.address.zip,
        "municipio": p.address.city,
        "uf": p.address.uf,
        "ddd_telefone_1": p.phone,
        "qsa": qsa,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registry_record_is_normalised_with_its_sharing_keys_and_round_trips() {
        let v = json!({"cnpj": "00.000.000/0001-91", "razao_social": "A LTDA", "data_inicio_atividade": "2023-11-02",
            "descricao_situacao_cadastral": "ATIVA", "logradouro": "AV PAULISTA", "numero": "1000", "complemento": "SALA  1204",
            "cep": "01310-100", "municipio": "SAO PAULO", "uf": "SP", "ddd_telefone_1": "(11) 3232-4545",
            "qsa": [{"nome_socio": "MARIA DA SILVA", "cnpj_cpf_do_socio": "***456789**", "qualificacao_socio": "Sócio-Administrador"}]});
        let p = supplier_profile_from_upstream(0, &v).unwrap();
        assert_eq!((p.cnpj.as_str(), p.root(), p.phone_key()), ("00000000000191", "00000000", Some("1132324545")));
        assert_eq!(p.address.key().as_deref(), Some("01310100|1000|sala 1204"));
        assert_eq!(p.partners[0].key().as_deref(), Some("456789|maria da silva"));
        assert_eq!(supplier_profile_from_upstream(0, &supplier_profile_to_upstream(&p)).unwrap(), p);
        assert_eq!(supplier_profile_from_upstream(1, &json!({"cnpj": "123"})).unwrap_err().field, "cnpj");
    }
}
