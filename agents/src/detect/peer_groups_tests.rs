//! Tests of the learned peer groups.

use super::*;
use crate::testutil::contract;

/// Objects of three kinds of purchase, each written several ways, with places and references
/// that differ from contract to contract.
pub fn mixed_objects(n: usize) -> Vec<String> {
    let kinds: [&[&str]; 3] = [
        &[
            "PRESTAÇÃO DE SERVIÇOS DE LIMPEZA E CONSERVAÇÃO PREDIAL",
            "SERVIÇOS CONTINUADOS DE LIMPEZA, CONSERVAÇÃO E HIGIENIZAÇÃO PREDIAL",
        ],
        &[
            "AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS DA AGRICULTURA FAMILIAR",
            "GÊNEROS ALIMENTÍCIOS, AGRICULTURA FAMILIAR, PNAE",
        ],
        &["LOCAÇÃO DE VEÍCULOS COM MOTORISTA", "SERVIÇO DE LOCAÇÃO DE VEÍCULOS SEM MOTORISTA"],
    ];
    let places = ["BRASÍLIA", "RECIFE", "MANAUS", "CURITIBA", "BELÉM"];
    (0..n)
        .map(|i| {
            let kind = kinds[i % 3];
            format!("{} NA UNIDADE DE {} - PROCESSO {}/2024", kind[(i / 3) % kind.len()], places[(i / 7) % 5], i)
        })
        .collect()
}

fn groups_of(objects: &[String]) -> ObjectGroups {
    let cs = objects
        .iter()
        .enumerate()
        .map(|(i, o)| contract(&i.to_string(), o, "S", "26000", 1000.0, (2024, 1, 1)))
        .collect();
    learn(&Dataset::from_contracts(cs), &CancelFlag::new()).unwrap()
}

/// Renames every word of a text through `vocab` (folded word -> unseen word), keeping numbers,
/// punctuation and function words.
pub fn rename(text: &str, vocab: &mut HashMap<String, String>) -> String {
    let mut out = String::new();
    for token in text.split(' ') {
        let word: String = crate::text::fold(token).chars().filter(|c| c.is_alphanumeric()).collect();
        if word.len() < 3 || word.chars().any(|c| c.is_ascii_digit()) || crate::text::is_stopword(&word) {
            out.push_str(token);
        } else {
            let next = vocab.len();
            let letters: String = format!("{next:03}").bytes().map(|d| char::from(b'q' + (d - b'0'))).collect();
            let fresh = vocab.entry(word).or_insert_with(|| format!("vu{letters}{}", "k".repeat(next % 4))).clone();
            out.push_str(&fresh);
        }
        out.push(' ');
    }
    out
}

#[test]
fn contracts_are_grouped_by_what_they_buy_not_by_where() {
    let objects = mixed_objects(90);
    let g = groups_of(&objects);
    for i in 0..90 {
        for j in 0..90 {
            let same_kind = i % 3 == j % 3;
            let same_group = g.group_of[i] == g.group_of[j];
            if !same_kind {
                assert!(!same_group, "{} / {}", objects[i], objects[j]);
            }
        }
    }
    // Each kind ends in a handful of groups at most, not one per contract.
    let mut distinct: Vec<u32> = g.group_of.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() <= 6, "{} groups", distinct.len());
    assert!(!distinct.contains(&NO_GROUP));
    assert!(g.groups.iter().all(|x| x.coherence >= TAU));
}

#[test]
fn an_unseen_vocabulary_gets_the_same_groups() {
    let objects = mixed_objects(90);
    let mut vocab = HashMap::new();
    let renamed: Vec<String> = objects.iter().map(|o| rename(o, &mut vocab)).collect();
    assert_ne!(objects[0], renamed[0]);
    let (a, b) = (groups_of(&objects), groups_of(&renamed));
    assert_eq!(a.group_of, b.group_of);
    let sizes = |g: &ObjectGroups| g.groups.iter().map(|x| x.size).collect::<Vec<_>>();
    assert_eq!(sizes(&a), sizes(&b));
}

#[test]
fn secret_and_empty_objects_have_no_group() {
    let mut objects = mixed_objects(30);
    objects.push("Informação protegida por sigilo nos termos da legislação vigente".into());
    objects.push("Informação protegida por sigilo nos termos da legislação vigente".into());
    objects.push(String::new());
    let g = groups_of(&objects);
    assert_eq!(&g.group_of[30..], &[NO_GROUP, NO_GROUP, NO_GROUP]);
}

#[test]
fn a_group_is_named_by_its_defining_terms() {
    let g = groups_of(&mixed_objects(30));
    let first = &g.groups[g.group_of[0] as usize];
    assert!(first.terms.iter().any(|t| t == "limpeza" || t == "conservacao"), "{:?}", first.terms);
}
