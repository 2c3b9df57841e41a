//! The crate's layout holds: `detect/` names nothing of `agents/` (detectors never call agents),
//! and every detector file sits in the group of what it finds.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_detect_source_names_the_agents() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/detect"), &mut files);
    assert!(files.len() > 20, "the detect sources were read");
    // The agents' modules, and the crate-root re-exports that name them.
    let forbidden: Vec<String> = ["agents", "agent::", "AgentId", "instantiate", "Agent;", "Agent}", "Agent,"]
        .iter()
        .map(|m| ["crate::", m].concat())
        .collect();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for needle in &forbidden {
            assert!(!text.contains(needle.as_str()), "{} names {needle}", path.display());
        }
    }
}

#[test]
fn every_registered_detector_lives_in_a_group_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/detect");
    let groups = ["price", "pattern", "temporal", "relationship", "compliance"];
    let mut files = Vec::new();
    sources(&root, &mut files);
    for name in crate::detect::NAMES {
        let kind = crate::detect::by_name(name).map(|d| d.kind());
        assert!(kind.is_some(), "{name} resolves");
        let declared = files.iter().filter(|p| {
            p.parent().and_then(|d| d.file_name()).is_some_and(|d| groups.iter().any(|g| d == *g))
                && std::fs::read_to_string(p).is_ok_and(|t| t.contains(&format!("\"{name}\"")))
        });
        assert!(declared.count() >= 1, "{name} is declared in a group folder");
    }
}
