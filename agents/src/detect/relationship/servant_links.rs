//! The servant side of `relationship_network`: servants whose CPF (six visible digits) and
//! name equal a partner's in a supplier that has contracts with the servant's own organ (same
//! SIAFI family). One hash map of partner keys, one pass over servants and one over contracts:
//! O(P + S + n).

use std::collections::HashMap;

use serde_json::json;

use super::NAME;
use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{FxBuild, adjust_confidence, contract_ref};
use crate::detect::finding::{Finding, pattern, point, profile_ref, servant_ref};
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::dataset::Dataset;
use crate::model::fields::cpf_key;
use crate::model::params::DetectionParams;
use crate::model::servant::same_family;
use crate::text::{fold, format_brl};

/// Servants who are partners of suppliers of their own organ.
pub(super) fn servants(ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
    let mut partners: HashMap<String, Vec<usize>, FxBuild> = HashMap::default();
    // Neither a supplier without a CNPJ nor a servant without an id can be named.
    for (k, pr) in ds.suppliers.iter().enumerate().filter(|(_, pr)| !pr.cnpj.is_empty()) {
        for x in &pr.partners {
            if let Some(key) = x.key() {
                partners.entry(key).or_default().push(k);
            }
        }
    }
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for (s, sv) in ds.servants.iter().enumerate() {
        if s % 8192 == 0 {
            cancel.check()?;
        }
        if sv.id.is_empty() {
            continue;
        }
        let (Some(mid), name) = (cpf_key(&sv.cpf), fold(sv.name.trim())) else { continue };
        if let Some(list) = partners.get(&format!("{mid}|{name}")) {
            matches.extend(list.iter().map(|&k| (s, k)));
        }
    }
    if matches.is_empty() {
        return Ok(Vec::new());
    }
    let wanted: HashMap<&str, Vec<usize>, FxBuild> = {
        let mut m: HashMap<&str, Vec<usize>, FxBuild> = HashMap::default();
        for &(_, k) in &matches {
            m.entry(ds.suppliers[k].cnpj.as_str()).or_default();
        }
        for (i, c) in ds.contracts.iter().enumerate() {
            if let Some(v) = m.get_mut(c.supplier.document.as_str()) {
                v.push(i);
            }
        }
        m
    };
    let confidence = adjust_confidence(0.9, p.sensitivity);
    if confidence < p.confidence_threshold {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (s, k) in matches {
        let sv = &ds.servants[s];
        let pr = &ds.suppliers[k];
        let family = sv.organ_family();
        let own: Vec<usize> = wanted[pr.cnpj.as_str()]
            .iter()
            .copied()
            .filter(|&i| same_family(&ds.contracts[i].organ.code, &sv.organ.code))
            .collect();
        if own.is_empty() {
            continue;
        }
        let value: f64 = own.iter().map(|&i| ds.contracts[i].value()).sum();
        let organ = &ds.contracts[own[0]].organ;
        let mut related = vec![profile_ref(pr)];
        if !organ.code.is_empty() {
            related.push(EntityRef::new("organ", organ.code.to_string(), organ.name.to_string()));
        }
        related.extend(own.iter().take(50).map(|&i| contract_ref(&ds.contracts[i])));
        let pt = format!(
            "{} (CPF {}), servidor(a) lotado(a) em {} ({}), aparece como sócio(a) de {} (CNPJ {}), que tem {} contratos com o próprio órgão, somando {}. É um possível conflito de interesses.",
            sv.name,
            sv.cpf,
            sv.organ.name,
            sv.organ.code,
            pr.name,
            pr.cnpj,
            own.len(),
            format_brl(value)
        );
        let en = format!(
            "Servant {} of {} is listed as a partner of {}, which holds {} contracts worth {} with the servant's own organ: a possible conflict of interest.",
            sv.name,
            sv.organ.code,
            pr.name,
            own.len(),
            format_brl(value)
        );
        out.push(
            Finding {
                detector: NAME,
                kind: AnomalyType::RelationshipAnomaly,
                key: format!("servant-{}-{}", sv.id, pr.cnpj),
                confidence,
                at_stake: value,
                threshold: 0.0,
                description: format!("Servidor(a) de {} é sócio(a) de {}, fornecedor do próprio órgão ({} contratos, {})", organ.code, pr.name, own.len(), format_brl(value)),
                human_pt: pt,
                human_en: en,
                technical: format!(
                    "servant {} (masked CPF {}, name '{}') equals partner key of supplier {}; {} contracts of the supplier in organ family {}",
                    sv.id, sv.cpf, sv.name, pr.cnpj, own.len(), family
                ),
                primary: servant_ref(sv),
                related,
                data_points: own.iter().take(50).map(|&i| point("contract_value", ds.contracts[i].value(), crate::detect::common::iso(ds.contracts[i].signed_on))).collect(),
                patterns: vec![pattern("servant_partner_of_supplier", "servant's CPF digits and name match a partner of the supplier".into(), json!({"organ_family": family}))],
                method: "cpf_name_match",
                score: 1.0,
                contamination: 0.0,
                peer: Some(json!({"group": format!("contracts of {} with organ family {}", pr.cnpj, family), "contracts": own.len()})),
                regulatory: Some(json!({"rule": "Lei 14.133/2021, art. 9, §1 e art. 14, IV; Lei 8.112/1990, art. 117, X", "note": "vedação a servidor do órgão contratante"})),
                factors: vec![
                    ("identity_match".into(), 0.7, "six visible CPF digits and the full name match".into()),
                    ("own_organ".into(), 0.3, format!("{} contracts with the servant's organ", own.len())),
                ],
                details: vec![
                    ("rule", json!("servant_partner")),
                    ("servant", json!(sv.id)),
                    ("supplier", json!(pr.cnpj)),
                    ("supplier_name", json!(pr.name)),
                    ("organ", json!(organ.code)),
                ],
            }
            .build(),
        );
    }
    Ok(out)
}
