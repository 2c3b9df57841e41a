//! Senna's learned parts: a multinomial naive Bayes intent classifier over the hashed n-gram
//! [`features`], trained from the hand-written utterances of `agents/data/intents.tsv`, and a
//! stop-word score that tells Portuguese from English.
//!
//! The model is the textbook multinomial naive Bayes (class priors from the class counts,
//! Lidstone-smoothed feature likelihoods), written out here rather than taken from
//! linfa-bayes 0.8.1, whose `MultinomialNb::fit` has a leftover `dbg!` that dumps every class's
//! log-likelihood vector to stderr at each training (about 200 KB at every service start).

use super::features::{DIM, features};
use super::{Intent, Language};
use crate::text::{WordSet, for_each_word};

/// The labelled utterances the classifier learns from (`intent<TAB>language<TAB>utterance`).
pub const TRAINING: &str = include_str!("../../data/intents.tsv");

/// Additive smoothing of the feature counts (Lidstone; 1 would be Laplace). Below 1 because
/// the hashed vector is wide and sparse: a full pseudo-count per bucket would drown the
/// few buckets a short message fills.
const ALPHA: f64 = 0.3;

/// One labelled line of a training or test file.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    /// The intent.
    pub intent: Intent,
    /// The language the utterance is written in.
    pub language: Language,
    /// The utterance.
    pub text: String,
}

/// Reads a labelled file; comment (`#`) and blank lines are skipped, and so are lines whose
/// intent or language is not known (a typo in the file must not stop the service).
pub fn parse_labelled(tsv: &str) -> Vec<Labelled> {
    tsv.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.splitn(3, '\t');
            let intent = Intent::parse(cols.next()?)?;
            let language = match cols.next()?.trim() {
                "pt" => Language::Pt,
                "en" => Language::En,
                _ => return None,
            };
            Some(Labelled { intent, language, text: cols.next()?.trim().to_string() })
        })
        .collect()
}

/// The trained intent model: per intent seen in training, its log prior and the log
/// likelihood of each feature bucket; and which buckets training saw at all.
pub struct IntentModel {
    classes: Vec<(Intent, f64, Vec<f64>)>,
    seen: Vec<bool>,
}

/// What the model says of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// The probability of every intent, most probable first (empty for a message with no words).
    pub probabilities: Vec<(Intent, f64)>,
    /// The share of the message's features that training ever saw (0 to 1). Naive Bayes gives
    /// words it never saw the same likelihood under every intent, so a message of unknown
    /// words gets the priors back as its "probabilities"; this says when that happened.
    pub coverage: f64,
}

impl IntentModel {
    /// Trains on the given examples. With no example the model answers nothing (every
    /// message then falls below the confidence floor).
    pub fn train(examples: &[Labelled]) -> IntentModel {
        let mut classes = Vec::new();
        let mut seen = vec![false; DIM];
        for intent in Intent::ALL {
            let mine: Vec<&Labelled> = examples.iter().filter(|e| e.intent == intent).collect();
            if mine.is_empty() {
                continue;
            }
            let mut counts = vec![ALPHA; DIM];
            for e in &mine {
                for (b, x) in features(&e.text) {
                    counts[b] += x;
                    seen[b] = true;
                }
            }
            let total: f64 = counts.iter().sum();
            let log_likelihood = counts.iter().map(|c| (c / total).ln()).collect();
            let log_prior = (mine.len() as f64 / examples.len() as f64).ln();
            classes.push((intent, log_prior, log_likelihood));
        }
        IntentModel { classes, seen }
    }

    /// The probability of every intent for this message, most probable first, and how much
    /// of the message training knew.
    pub fn scores(&self, message: &str) -> Scores {
        let f = features(message);
        let total: f64 = f.iter().map(|(_, x)| x).sum();
        if total <= 0.0 || self.classes.is_empty() {
            return Scores { probabilities: Vec::new(), coverage: 0.0 };
        }
        let known: f64 = f.iter().filter(|(b, _)| self.seen[*b]).map(|(_, x)| x).sum();
        let joint: Vec<(Intent, f64)> = self
            .classes
            .iter()
            .map(|(i, prior, ll)| (*i, prior + f.iter().map(|(b, x)| x * ll[*b]).sum::<f64>()))
            .collect();
        // Softmax with the maximum subtracted, so the exponentials cannot underflow to zero.
        let max = joint.iter().map(|(_, j)| *j).fold(f64::NEG_INFINITY, f64::max);
        let norm: f64 = joint.iter().map(|(_, j)| (j - max).exp()).sum();
        let mut probabilities: Vec<(Intent, f64)> =
            joint.into_iter().map(|(i, j)| (i, (j - max).exp() / norm)).collect();
        probabilities.sort_by(|a, b| b.1.total_cmp(&a.1));
        Scores { probabilities, coverage: known / total }
    }

    /// The probability of every intent for this message, most probable first.
    pub fn probabilities(&self, message: &str) -> Vec<(Intent, f64)> {
        self.scores(message).probabilities
    }
}

const PT_WORDS: &[&str] = &[
    "o",
    "os",
    "as",
    "de",
    "do",
    "da",
    "dos",
    "das",
    "em",
    "no",
    "na",
    "nos",
    "nas",
    "um",
    "uma",
    "que",
    "e",
    "com",
    "para",
    "por",
    "qual",
    "quais",
    "quem",
    "como",
    "onde",
    "quanto",
    "voce",
    "eu",
    "meu",
    "minha",
    "tem",
    "ha",
    "sao",
    "foi",
    "esta",
    "isso",
    "esse",
    "essa",
    "mais",
    "acima",
    "ate",
    "sobre",
    "gastos",
    "contratos",
    "oi",
    "ola",
    "obrigado",
    "obrigada",
    "bom",
    "boa",
    "dia",
    "tarde",
    "noite",
    "ajuda",
    "relatorio",
    "nao",
    "sim",
    "me",
    "fornecedor",
    "empresa",
    "orgao",
    "ministerio",
    "investigue",
    "mostre",
    "faca",
    "ja",
    "ainda",
];
const EN_WORDS: &[&str] = &[
    "the",
    "of",
    "in",
    "on",
    "at",
    "is",
    "are",
    "was",
    "were",
    "and",
    "to",
    "for",
    "with",
    "what",
    "which",
    "who",
    "how",
    "where",
    "much",
    "many",
    "you",
    "i",
    "my",
    "me",
    "do",
    "does",
    "did",
    "there",
    "any",
    "this",
    "that",
    "it",
    "above",
    "over",
    "below",
    "under",
    "about",
    "spending",
    "contracts",
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank",
    "good",
    "morning",
    "evening",
    "help",
    "report",
    "not",
    "yes",
    "supplier",
    "company",
    "agency",
    "ministry",
    "investigate",
    "show",
    "find",
    "please",
    "biggest",
    "largest",
    "top",
    "still",
    "yet",
    "your",
];

/// [`PT_WORDS`] and [`EN_WORDS`], hashed.
static PT_SET: WordSet = WordSet::new(PT_WORDS);
static EN_SET: WordSet = WordSet::new(EN_WORDS);

/// The language of a message by a stop-word score (Portuguese accents count for Portuguese);
/// `None` when the message gives no evidence either way (a number, a name, a tie).
pub fn detect_language(message: &str) -> Option<Language> {
    let accents = message.chars().filter(|c| !c.is_ascii() && "ãõçáéíóúâêôàÃÕÇÁÉÍÓÚÂÊÔ".contains(*c)).count();
    let (mut pt, mut en) = (accents as f64, 0.0);
    for_each_word(message, |w| {
        // A word in both lists ("me") says nothing.
        let (p, e) = (PT_SET.contains(w), EN_SET.contains(w));
        if p && !e {
            pt += 1.0;
        } else if e && !p {
            en += 1.0;
        }
        true
    });
    if pt > en {
        Some(Language::Pt)
    } else if en > pt {
        Some(Language::En)
    } else {
        None
    }
}
