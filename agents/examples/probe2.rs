use std::time::Instant;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::detect::duplicates::word_set;
use vigia_agents::detect::category::categorise;
fn main() {
    let data = generate(&DemoSpec { seed: 7, contracts: 100_000, ..DemoSpec::default() });
    let t = Instant::now();
    let mut n = 0;
    for c in &data.dataset.contracts { n += word_set(&c.object).len(); }
    println!("word_set {:.3}s avg {}", t.elapsed().as_secs_f64(), n / 100_000);
    let t = Instant::now();
    let mut k = 0;
    for c in &data.dataset.contracts { k += categorise(&c.object) as usize; }
    println!("categorise {:.3}s {k}", t.elapsed().as_secs_f64());
    let mut runs = std::collections::HashMap::new();
    for c in &data.dataset.contracts { *runs.entry(c.supplier.document.as_str()).or_insert(0usize) += 1; }
    let mut v: Vec<usize> = runs.values().copied().collect(); v.sort(); v.reverse();
    println!("suppliers {} top {:?}", v.len(), &v[..10]);
    let t = Instant::now();
    let mut order: Vec<usize> = (0..100_000).collect();
    let cs = &data.dataset.contracts;
    order.sort_by(|&a, &b| cs[a].supplier.document.cmp(&cs[b].supplier.document).then(a.cmp(&b)));
    println!("sort {:.3}s", t.elapsed().as_secs_f64());
}
