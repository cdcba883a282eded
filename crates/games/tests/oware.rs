//! Awari / Oware databases against oracles written here: the published example position, a
//! brute-force per-threshold solver, and un-moves against inverted forward moves.

use std::collections::HashMap;

use gamegraph_games::oware::database::{build, Database};
use gamegraph_games::oware::layer::{solve_layer, Silent};
use gamegraph_games::oware::rules::{stones, Ending, Rules};
use gamegraph_games::oware::{Pits, Ranking};

/// Every indexed board with `n` stones.
fn layer(ranking: &Ranking, n: usize) -> Vec<Pits> {
    (0..ranking.len(n)).map(|r| ranking.unrank(n, r)).collect()
}

#[test]
fn unsowings_are_exactly_the_inverted_non_capturing_moves() {
    let ranking = Ranking::new();
    for rules in Rules::ALL {
        for n in 0..=8 {
            let boards = layer(&ranking, n);
            let mut expected: HashMap<Pits, Vec<Pits>> = HashMap::new();
            for p in &boards {
                for m in rules.sowings(p).as_slice().iter().filter(|m| m.captured == 0) {
                    expected.entry(m.child).or_default().push(*p);
                }
            }
            for c in &boards {
                let mut got = Vec::new();
                rules.unsowings(c, |p| got.push(*p));
                let mut want = expected.remove(c).unwrap_or_default();
                got.sort();
                want.sort();
                assert_eq!(got, want, "{rules} rules, predecessors of {c:?}");
            }
        }
    }
}

/// The value of every board up to `max` stones by the definition of docs/models.md, section 3, without
/// the kernel: for each threshold v, the least fixpoints X_v (the mover can force a payoff of at
/// least v) and Y_v (the opponent can), by sweeping until nothing changes.
fn brute_force(rules: Rules, max: usize) -> HashMap<Pits, i8> {
    let ranking = Ranking::new();
    let mut values: HashMap<Pits, i8> = HashMap::new();
    for n in 0..=max {
        let boards = layer(&ranking, n);
        // Each board's moves: (captured, child, child is in this layer).
        let moves: Vec<Vec<(i8, Pits)>> = boards
            .iter()
            .map(|p| rules.sowings(p).as_slice().iter().map(|m| (m.captured as i8, m.child)).collect())
            .collect();
        let fixed: Vec<Option<i8>> = boards
            .iter()
            .map(|p| match rules.ending(p) {
                Some(Ending::OpponentTakes) => Some(-(n as i8)),
                Some(Ending::MoverTakes) => Some(n as i8),
                None => None,
            })
            .collect();
        let mut value = vec![0i8; boards.len()];
        let index: HashMap<Pits, usize> = boards.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        for v in 1..=n as i8 {
            let (mut x, mut y) = (vec![false; boards.len()], vec![false; boards.len()]);
            loop {
                let mut changed = false;
                for i in 0..boards.len() {
                    let payoff_at_least = |c: i8, child: &Pits, x: &[bool], y: &[bool], at_least: bool| {
                        if c == 0 {
                            let j = index[child];
                            if at_least {
                                y[j]
                            } else {
                                x[j]
                            }
                        } else {
                            let p = c - values[child];
                            if at_least {
                                p >= v
                            } else {
                                p <= -v
                            }
                        }
                    };
                    let (xi, yi) = match fixed[i] {
                        Some(f) => (f >= v, f <= -v),
                        None => (
                            moves[i].iter().any(|(c, ch)| payoff_at_least(*c, ch, &x, &y, true)),
                            moves[i].iter().all(|(c, ch)| payoff_at_least(*c, ch, &x, &y, false)),
                        ),
                    };
                    if xi != x[i] || yi != y[i] {
                        (x[i], y[i]) = (xi, yi);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            for i in 0..boards.len() {
                if x[i] {
                    value[i] = v;
                } else if y[i] && value[i] <= 0 {
                    value[i] = -v;
                }
            }
        }
        values.extend(boards.into_iter().zip(value));
    }
    values
}

#[test]
fn layers_equal_a_brute_force_solver_up_to_8_stones() {
    let ranking = Ranking::new();
    for rules in Rules::ALL {
        let expected = brute_force(rules, 8);
        let mut solved: Vec<Vec<u8>> = Vec::new();
        for n in 0..=8 {
            let lower: Vec<&[u8]> = solved.iter().map(Vec::as_slice).collect();
            let values = solve_layer(rules, &ranking, n, &lower, &Silent).unwrap();
            let mut nonzero = 0;
            for (r, &v) in values.iter().enumerate() {
                let pits = ranking.unrank(n, r as u64);
                assert_eq!(v as i8, expected[&pits], "{rules} rules, {pits:?}");
                nonzero += usize::from(v != 0);
            }
            assert!(n < 2 || nonzero > 0, "layers have decided positions");
            solved.push(values);
        }
    }
}

#[test]
fn the_published_example_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let report = build(dir.path(), Rules::Vu, 16, &Silent).unwrap();
    assert_eq!(report.built, (0..=16).collect::<Vec<_>>());
    let db = Database::open(dir.path()).unwrap();
    let example: Pits = [1, 1, 1, 1, 1, 2, 4, 2, 3, 0, 0, 0];
    assert_eq!(db.value(&example), Some(0));
    let moves: Vec<i8> = db.move_values(&example).unwrap().into_iter().map(|(_, v)| v).collect();
    assert_eq!(moves, vec![-1, -1, -2, -2, -2, 0]);
    for (n, layer) in db.manifest().layers.iter().enumerate() {
        let n = n as u64;
        let c = |a: u64, b: u64| (0..b).fold(1u64, |acc, i| acc * (a - i) / (i + 1));
        assert_eq!(layer.positions, c(n + 11, 11) - if n + 5 >= 11 { c(n + 5, 11) } else { 0 });
        let file = std::fs::metadata(dir.path().join(&layer.file)).unwrap();
        assert_eq!(file.len(), layer.positions);
    }
    db.verify_checksums().unwrap();
    let (checked, wrong, _) = db.verify_values(16, None);
    assert_eq!((checked, wrong), (db.manifest().layers[16].positions, 0));
    assert_eq!(stones(&example), 16);
}

/// A build told to stop (a user's Ctrl-C, through [`Progress::interrupted`]) stops inside the
/// stone count it solves, with an error that says so, keeps the stone counts it finished, whole,
/// and the next build resumes after them; a check of the database stops too.
#[test]
fn an_interrupted_build_keeps_what_it_finished_and_resumes() {
    use gamegraph_games::databases::{BuildRequest, Progress, VerifyRequest};
    use gamegraph_games::GameOptions;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    /// Asks to stop once `after` pieces of work have started.
    struct StopAfter {
        started: AtomicU32,
        after: u32,
    }
    impl Progress for StopAfter {
        fn started(&self, _: &str, _: u64) {
            self.started.fetch_add(1, Relaxed);
        }
        fn advanced(&self, _: u64) {}
        fn finished(&self, _: &str) {}
        fn interrupted(&self) -> bool {
            self.started.load(Relaxed) >= self.after
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let databases = gamegraph_games::databases(gamegraph_games::entry("oware").unwrap()).unwrap();
    let mut options = GameOptions::default();
    options.set("stones", 8);
    let request = BuildRequest::here(&options);
    let stop = StopAfter { started: 0.into(), after: 4 };
    let error = databases.build(dir.path(), &request, &stop).err().expect("interrupted");
    assert!(error.to_string().contains("interrupted"), "{error}");
    // Told to stop once the fourth stone count (3 stones) started: it stops inside it.
    assert_eq!(Database::open(dir.path()).unwrap().stones(), 2, "stone counts 0 to 2 kept");
    let stop = StopAfter { started: 0.into(), after: 2 };
    assert!(databases.verify(dir.path(), &VerifyRequest::default(), &stop).is_err());
    let report = databases.build(dir.path(), &request, &gamegraph_games::databases::Silent).unwrap().unwrap();
    let report = report.to_json();
    assert_eq!(report["resumed"], 3);
    assert_eq!(report["built"], serde_json::json!([3, 4, 5, 6, 7, 8]));
}
