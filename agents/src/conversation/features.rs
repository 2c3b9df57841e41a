//! The classifier's features: folded (accent-free, lower-case) word unigrams and bigrams and
//! character 3-grams of each word, hashed into a fixed-size vector and scaled to a fixed total,
//! so long and short messages weigh alike in the naive Bayes likelihood.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use crate::text::words;

/// Size of the hashed feature space (wide, so unrelated n-grams rarely share a bucket and
/// words never seen in training stay recognisably unseen).
pub const DIM: usize = 1 << 15;

/// Sum of every message's feature vector. Naive Bayes multiplies one likelihood per unit of
/// count, so an unscaled long message gets extreme probabilities; a fixed total makes the
/// posterior comparable across lengths and keeps it usable as a confidence.
const TOTAL: f64 = 8.0;

/// Weights of a word, a word bigram and a character 3-gram. Character n-grams carry typos,
/// accents left out and inflections ("investiga", "investigue", "investigação"); words and
/// bigrams add phrasing. These weights and [`TOTAL`] were chosen by 5-fold cross-validation on
/// the training file (the held-out file played no part).
const UNIGRAM: f64 = 0.5;
const BIGRAM: f64 = 0.3;
const TRIGRAM: f64 = 1.0;

/// A word's shape when it holds digits: `2024` and `2023` are the same feature (`#4`), so a
/// year or an amount never decides an intent by its value.
fn shape(word: String) -> String {
    if word.bytes().any(|b| b.is_ascii_digit()) { format!("#{}", word.len().min(9)) } else { word }
}

fn bucket(kind: u8, parts: &[&str]) -> usize {
    let mut h = FxHasher::default();
    kind.hash(&mut h);
    parts.hash(&mut h);
    (h.finish() % DIM as u64) as usize
}

/// The hashed, scaled features of a message as `(bucket, weight)` pairs sorted by bucket,
/// each bucket once (empty for a message with no words).
pub fn features(message: &str) -> Vec<(usize, f64)> {
    let mut v: Vec<(usize, f64)> = Vec::with_capacity(64);
    let tokens: Vec<String> = words(message).into_iter().map(shape).collect();
    let mut padded: Vec<char> = Vec::with_capacity(32);
    for (i, t) in tokens.iter().enumerate() {
        v.push((bucket(1, &[t]), UNIGRAM));
        let next = tokens.get(i + 1).map_or("</s>", String::as_str);
        let prev = if i == 0 { "<s>" } else { tokens[i - 1].as_str() };
        v.push((bucket(2, &[t, next]), BIGRAM));
        if i == 0 {
            v.push((bucket(2, &[prev, t]), BIGRAM));
        }
        // The word between spaces, its 3-grams written into a small buffer (hashed as the
        // same strings, without allocating one per gram).
        padded.clear();
        padded.push(' ');
        padded.extend(t.chars());
        padded.push(' ');
        for w in padded.windows(3) {
            let mut buf = [0u8; 12];
            let mut n = 0;
            for c in w {
                n += c.encode_utf8(&mut buf[n..]).len();
            }
            let gram = std::str::from_utf8(&buf[..n]).unwrap_or_default();
            v.push((bucket(3, &[gram]), TRIGRAM));
        }
    }
    v.sort_by_key(|(b, _)| *b);
    let mut merged: Vec<(usize, f64)> = Vec::with_capacity(v.len());
    for (b, x) in v {
        match merged.last_mut() {
            Some((last, sum)) if *last == b => *sum += x,
            _ => merged.push((b, x)),
        }
    }
    let sum: f64 = merged.iter().map(|(_, x)| x).sum();
    if sum > 0.0 {
        merged.iter_mut().for_each(|(_, x)| *x *= TOTAL / sum);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_and_case_do_not_change_the_features() {
        assert_eq!(features("Investigação do MINISTÉRIO"), features("investigacao do ministerio"));
    }

    #[test]
    fn years_share_one_feature_and_every_vector_sums_to_the_same_total() {
        assert_eq!(features("gastos de 2023"), features("gastos de 2024"));
        for m in ["oi", "investigue os contratos da saúde em 2024 acima de um milhão"] {
            assert!((features(m).iter().map(|(_, x)| x).sum::<f64>() - TOTAL).abs() < 1e-9);
            assert!(features(m).windows(2).all(|w| w[0].0 < w[1].0));
        }
        assert!(features("  ?! ").is_empty());
    }
}
