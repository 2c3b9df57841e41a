//! The warming plans drawn from investigation heads, and the checks on `warm-specific` input.

use super::*;
use crate::domain::InvestigationId;
use crate::domain::investigation::{Progress, Status};

fn head(query: &str, source: &str, minutes_ago: i64) -> InvestigationHead {
    InvestigationHead {
        id: InvestigationId::new(),
        user_id: uuid::Uuid::nil(),
        query: query.into(),
        data_source: source.into(),
        status: Status::Completed,
        progress: Progress::default(),
        created_at: Utc::now() - Duration::minutes(minutes_ago),
        started_at: None,
        completed_at: None,
        error: None,
        anomalies_found: 0,
        risk_score: None,
        has_results: false,
        provenance: None,
    }
}

#[test]
fn popular_queries_rank_groups_by_count_and_keep_each_groups_newest_investigation() {
    let heads = [
        head("contratos da saúde", "portal_transparencia", 30),
        head("Contratos  da SAÚDE ", "portal_transparencia", 10),
        head("contratos da saúde", "portal_transparencia", 20),
        head("despesas da educação", "portal_transparencia", 5),
        head("contratos da saúde", "tcu", 1),
        head("diárias antigas", "portal_transparencia", 60 * 24 * 30),
    ];
    let refs: Vec<&InvestigationHead> = heads.iter().collect();
    let chosen = popular(&refs, Utc::now() - Duration::days(POPULAR_WINDOW_DAYS));
    let ids: Vec<InvestigationId> = chosen.iter().map(|h| h.id).collect();
    // Three in one group (the newest typed differently), then the two singles, newest first;
    // the month-old query is outside the window.
    assert_eq!(ids, vec![heads[1].id, heads[4].id, heads[3].id]);
}

#[test]
fn popular_queries_stop_at_the_limit() {
    let heads: Vec<InvestigationHead> =
        (0..POPULAR_LIMIT + 3).map(|i| head(&format!("consulta {i}"), "portal_transparencia", i as i64)).collect();
    let refs: Vec<&InvestigationHead> = heads.iter().collect();
    assert_eq!(popular(&refs, Utc::now() - Duration::days(1)).len(), POPULAR_LIMIT);
}

#[test]
fn recent_investigations_are_the_newest_first_up_to_the_limit() {
    let heads: Vec<InvestigationHead> =
        (0..RECENT_LIMIT + 2).map(|i| head("q", "portal_transparencia", i as i64)).collect();
    let refs: Vec<&InvestigationHead> = heads.iter().collect();
    let chosen = recent(&refs);
    assert_eq!(chosen.len(), RECENT_LIMIT);
    assert_eq!((chosen[0].id, chosen[RECENT_LIMIT - 1].id), (heads[0].id, heads[RECENT_LIMIT - 1].id));
}

#[test]
fn keys_are_trimmed_deduplicated_and_must_exist() {
    let keys = vec![" zumbi ".to_string(), "zumbi".into(), "anita".into()];
    assert_eq!(checked_keys(&keys).unwrap(), vec!["zumbi".to_string(), "anita".into()]);
    assert_eq!(checked_keys(&[]).unwrap_err().details["field"], "cache_keys");
    assert_eq!(checked_keys(&["a".into(), "  ".into()]).unwrap_err().details["field"], "cache_keys[1]");
    let many: Vec<String> = (0..=MAX_KEYS).map(|i| i.to_string()).collect();
    assert_eq!(checked_keys(&many).unwrap_err().details["field"], "cache_keys");
}

#[test]
fn an_organ_code_key_filters_by_that_organ_and_a_text_key_is_a_query() {
    let organ = query_request("36000").unwrap();
    assert_eq!(organ.filters.organizations, vec!["36000".to_string()]);
    let text = query_request("contratos do Ministério da Saúde em 2024").unwrap();
    assert!(text.filters.organizations.is_empty());
    assert_eq!(text.data_query().intent.year, Some(2024));
    let long = "x".repeat(2001);
    let e = query_request(&long).map_err(|e| rename_field(e, "cache_keys[3]")).unwrap_err();
    assert_eq!((e.code, e.details["field"].as_str()), (ErrorCode::Validation, Some("cache_keys[3]")));
}

#[test]
fn strategies_and_cache_types_parse_their_wire_names_only() {
    for s in Strategy::ALL {
        assert_eq!(Strategy::parse(s.name()).unwrap(), s);
    }
    assert_eq!(Strategy::parse("everything").unwrap_err().code, ErrorCode::ResourceNotFound);
    assert_eq!(CacheType::parse("agents").unwrap(), CacheType::Agents);
    assert_eq!(CacheType::parse("redis").unwrap_err().details["field"], "cache_type");
}

#[test]
fn the_success_rate_is_unknown_before_any_item_and_a_ratio_after() {
    let mut s = WarmingStatus::default();
    assert_eq!(s.success_rate(), None);
    s.total_attempted = 4;
    s.total_warmed = 3;
    assert_eq!(s.success_rate(), Some(0.75));
}
