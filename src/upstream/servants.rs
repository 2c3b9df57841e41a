//! Public servants for one investigation: `/servidores` takes a SIAPE organ code, the
//! investigation names SIAFI organs, so each organ goes through the organ lists' name match
//! ([`super::organs::siape_for`]); an organ without a confident match is noted, never guessed.
//! A 403 on `/servidores` means the key may not read servants: noted, not an upstream failure.

use vigia_agents::model::servant::{Servant, servant_from_upstream};

use super::collect::{Part, Plan, SERVANT_SHARE, parse, share};
use super::organs::siape_for;
use super::params::Endpoint;
use super::source::UpstreamError;
use super::transparency::TransparencyClient;

/// Active servants (`situacaoServidor=1`) lotados in each organ of the plan.
pub async fn servants(client: &TransparencyClient, plan: &Plan) -> Result<(Vec<Servant>, Part), UpstreamError> {
    let mut budget = share(SERVANT_SHARE, plan);
    let mut part = Part::new();
    let mut out = Vec::new();
    let Some(codes) = &plan.organ_codes else {
        part.notes.push("servidores not fetched: the SIAFI and SIAPE organ lists have not been read yet".into());
        return Ok((out, part));
    };
    for organ in &plan.organs {
        let siape = match siape_for(codes, organ) {
            Ok(siape) => siape,
            Err(why) => {
                part.notes.push(format!("servidores not fetched: {why}"));
                continue;
            }
        };
        let query = vec![("orgaoServidorLotacao", siape.code.clone()), ("situacaoServidor", "1".to_string())];
        let listed = match client.list(Endpoint::Servants, &query, &mut budget).await {
            Ok(listed) => listed,
            Err(UpstreamError::Blocked { status: 403, .. }) => {
                part.notes.push("servidores not fetched: not allowed for this key (HTTP 403 on /servidores)".into());
                return Ok((out, part));
            }
            Err(e) => return Err(e),
        };
        part.available += listed.received;
        part.truncated |= !listed.complete;
        part.cached &= listed.cached;
        let read = parse(&listed.rows, "servidor", servant_from_upstream);
        part.notes.push(format!(
            "servidores of organ {organ} read as SIAPE organ {} ({}): {} active servants{}",
            siape.code,
            siape.name,
            read.len(),
            if listed.complete { "" } else { " (cut by the budget)" }
        ));
        out.extend(read);
    }
    Ok((out, part))
}
