//! Chess endgame tables against oracles nobody here wrote: the published longest mates and the
//! KRK counts of a public data set (written into `docs/chess.md`), and against a brute-force
//! solver written here, which knows neither the kernel nor the un-move generator.

use std::collections::HashMap;

use cozy_chess::{Board, BoardBuilder, Color, Piece, Square};
use gamegraph::rng::SplitMix64;
use gamegraph_games::chess::generate::{build_table, leaves_table, ChildTables};
use gamegraph_games::chess::index::{Placement, TableIndex};
use gamegraph_games::chess::material::Material;
use gamegraph_games::chess::tablebase::{table_stats, verify_table, verify_table_until, LoadedTables};
use gamegraph_games::chess::{kings_touch, Dtm, Entry};

/// Builds `names` and every table they lead to.
fn build(names: &[&str]) -> LoadedTables {
    let targets: Vec<Material> = names.iter().map(|n| n.parse().unwrap()).collect();
    let mut loaded = LoadedTables::new();
    for m in Material::closure(&targets) {
        let entries = build_table(m, &loaded, &|_| {}, &|| false).unwrap();
        loaded.insert(m, entries);
    }
    loaded
}

fn material(name: &str) -> Material {
    name.parse().unwrap()
}

/// The entries of one table.
fn entries(loaded: &LoadedTables, name: &str) -> Vec<gamegraph_games::chess::Entry> {
    loaded.entries(material(name)).expect("built")
}

/// Black-to-move positions of a table stored once per symmetry class, by value.
fn black_to_move(loaded: &LoadedTables, name: &str) -> Vec<Dtm> {
    let index = TableIndex::new(material(name));
    (index.len() / 2..index.len())
        .filter_map(|i| index.placement(i).and_then(|p| index.board(&p)))
        .map(|board| loaded.entry(&board).dtm().unwrap())
        .collect()
}

#[test]
fn krk_and_kqk_match_the_public_counts() {
    let loaded = build(&["KRvK", "KQvK"]);
    let krk = black_to_move(&loaded, "KRvK");
    assert_eq!(krk.len(), 28_056, "KRK positions with Black to move, up to symmetry");
    assert_eq!(krk.iter().filter(|d| **d == Dtm::Draw).count(), 2_796);
    // By the depth of White's win in moves (0: Black is mated): the public KRK data set.
    let expected = [27, 78, 246, 81, 198, 471, 592, 683, 1433, 1712, 1985, 2854, 3597, 4194, 4553, 2166, 390];
    let mut found = [0; 17];
    for d in &krk {
        if let Dtm::Loss(plies) = d {
            found[(plies / 2) as usize] += 1;
        }
    }
    assert_eq!(found, expected);
    let kqk = black_to_move(&loaded, "KQvK");
    assert_eq!(kqk.len(), 28_056);
    assert_eq!(kqk.iter().filter(|d| **d == Dtm::Draw).count(), 2_896);
}

#[test]
fn longest_mates_are_the_published_ones() {
    let loaded = build(&["KPvK", "KBBvK", "KBNvK", "KQvKR"]);
    for (name, moves) in
        [("KQvK", 10), ("KRvK", 16), ("KPvK", 28), ("KBBvK", 19), ("KBNvK", 33), ("KQvKR", 35)]
    {
        let m = material(name);
        let stats = table_stats(m, &entries(&loaded, name)).expect("a sound table");
        let longest_win = stats.sides[0].longest.unwrap();
        assert_eq!(longest_win.div_ceil(2), moves, "{name}: the longest mate, in moves");
    }
}

#[test]
fn symmetric_materials_and_identical_pieces_are_consistent() {
    // Every value checks out against its children (which the builder never looks at).
    let loaded = build(&["KQvKQ", "KBBvK", "KPvK"]);
    for name in ["KQvKQ", "KBBvK", "KPvK"] {
        assert!(verify_table(material(name), &entries(&loaded, name), &loaded, 1).is_empty(), "{name}");
    }
}

/// The check finds every value changed in a table, and nothing in the table as built: with pawns
/// on both sides, so that captures, promotions, double steps and the en passant captures after
/// them all come into play.
#[test]
fn verify_finds_every_changed_value_and_only_where_moves_disagree() {
    let loaded = build(&["KPvKP"]);
    let m = material("KPvKP");
    let built = entries(&loaded, "KPvKP");
    assert!(verify_table(m, &built, &loaded, 1).is_empty());
    // A check told to stop stops, with no result rather than a partial one.
    assert_eq!(verify_table_until(m, &built, &loaded, 1, &|| true), None);
    let index = TableIndex::new(m);
    let mut rng = SplitMix64(60);
    let mut changed = built.clone();
    let mut fens = Vec::new();
    while fens.len() < 40 {
        let i = rng.below(index.len());
        let Some(board) = index.placement(i).and_then(|p| index.board(&p)) else { continue };
        let wrong = match built[i as usize].dtm().unwrap() {
            Dtm::Win(n) => Dtm::Win(n + 2),
            Dtm::Loss(n) if fens.len() % 2 == 0 => Dtm::Loss(n + 2),
            Dtm::Loss(_) => Dtm::Draw,
            Dtm::Draw => Dtm::Win(1),
        };
        changed[i as usize] = Entry::of(wrong);
        fens.push(board.to_string());
    }
    let found: Vec<String> =
        verify_table(m, &changed, &loaded, usize::MAX).into_iter().map(|x| x.fen).collect();
    for fen in &fens {
        assert!(found.contains(fen), "{fen} was changed and not found");
    }
}

/// The brute-force solver: positions numbered by their own scheme, every move generated forward
/// by cozy-chess, values found threshold by threshold (mated in 0, wins in 1, losses in 2, ...)
/// until nothing changes; what stays open is a draw. Moves out of the material are valued by
/// `outside`.
struct BruteForce {
    values: Vec<Option<Dtm>>,
}

impl BruteForce {
    fn solve(
        len: usize,
        board_at: impl Fn(usize) -> Option<Board>,
        number: impl Fn(&Board) -> usize,
        outside: impl Fn(&Board) -> Dtm,
    ) -> Self {
        // Per position: the numbers of its children inside, the values of those outside.
        let mut inside: Vec<Vec<u32>> = vec![Vec::new(); len];
        let mut exits: Vec<Vec<Dtm>> = vec![Vec::new(); len];
        let mut values: Vec<Option<Dtm>> = vec![None; len];
        let mut legal = vec![false; len];
        for i in 0..len {
            let Some(board) = board_at(i) else { continue };
            legal[i] = true;
            let mut any = false;
            board.generate_moves(|moves| {
                for mv in moves {
                    any = true;
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    if leaves_table(&board, mv) {
                        exits[i].push(outside(&child));
                    } else {
                        inside[i].push(number(&child) as u32);
                    }
                }
                false
            });
            if !any {
                values[i] = Some(if board.checkers().is_empty() { Dtm::Draw } else { Dtm::Loss(0) });
            }
        }
        // Exits reach at most this far; two quiet thresholds in a row beyond it end the search.
        let farthest = exits.iter().flatten().filter_map(|d| d.plies()).max().unwrap_or(0);
        let mut quiet = 0;
        for n in 1u32.. {
            let decided: Vec<(usize, Dtm)> = (0..len)
                .filter(|&i| legal[i] && values[i].is_none())
                .filter_map(|i| {
                    let children: Vec<Option<Dtm>> = inside[i]
                        .iter()
                        .map(|&c| values[c as usize])
                        .chain(exits[i].iter().map(|&d| Some(d)))
                        .collect();
                    if n % 2 == 1 {
                        children.contains(&Some(Dtm::Loss(n - 1))).then_some((i, Dtm::Win(n)))
                    } else {
                        let all_won = children.iter().all(|c| matches!(c, Some(Dtm::Win(k)) if *k < n));
                        all_won.then_some((i, Dtm::Loss(n)))
                    }
                })
                .collect();
            quiet = if decided.is_empty() { quiet + 1 } else { 0 };
            for (i, d) in decided {
                values[i] = Some(d);
            }
            if quiet >= 2 && n > farthest + 1 {
                break;
            }
        }
        for (i, v) in values.iter_mut().enumerate() {
            if legal[i] && v.is_none() {
                *v = Some(Dtm::Draw);
            }
        }
        Self { values }
    }
}

/// Every placement of `pieces` (White's king, Black's king, then the others) on distinct squares,
/// with either side to move, numbered in base 64 without any symmetry.
struct AllPlacements {
    pieces: Vec<(Color, Piece)>,
}

impl AllPlacements {
    fn len(&self) -> usize {
        2 * 64usize.pow(self.pieces.len() as u32)
    }

    fn board(&self, mut i: usize) -> Option<Board> {
        let mut builder = BoardBuilder::empty();
        builder.side_to_move = if i.is_multiple_of(2) { Color::White } else { Color::Black };
        i /= 2;
        for &(color, piece) in &self.pieces {
            let square = Square::index(i % 64);
            i /= 64;
            let cell = builder.square_mut(square);
            if cell.is_some() {
                return None;
            }
            *cell = Some((piece, color));
        }
        builder.build().ok().filter(|b| !kings_touch(b))
    }

    fn number(&self, board: &Board) -> usize {
        let mut used = Vec::new();
        let mut n = 0;
        for &(color, piece) in self.pieces.iter().rev() {
            let square = (board.colored_pieces(color, piece))
                .into_iter()
                .find(|s| !used.contains(s))
                .expect("the board holds these pieces");
            used.push(square);
            n = n * 64 + square as usize;
        }
        2 * n + usize::from(board.side_to_move() == Color::Black)
    }
}

/// The brute force over every placement of a 3-piece material agrees with the builder on every
/// legal board.
#[test]
fn three_piece_tables_equal_a_brute_force_over_every_placement() {
    let loaded = build(&["KQvK", "KRvK", "KPvK"]);
    let mut solved: HashMap<&str, (AllPlacements, BruteForce)> = HashMap::new();
    for (name, piece) in [
        ("KQvK", Piece::Queen),
        ("KRvK", Piece::Rook),
        ("KBvK", Piece::Bishop),
        ("KNvK", Piece::Knight),
        ("KPvK", Piece::Pawn),
    ] {
        let all = AllPlacements {
            pieces: vec![(Color::White, Piece::King), (Color::Black, Piece::King), (Color::White, piece)],
        };
        let outside = |child: &Board| -> Dtm {
            // A capture leaves the bare kings; a promotion, a table solved above.
            if child.occupied().len() == 2 {
                return Dtm::Draw;
            }
            let name = if !child.pieces(Piece::Queen).is_empty() {
                "KQvK"
            } else if !child.pieces(Piece::Rook).is_empty() {
                "KRvK"
            } else if !child.pieces(Piece::Bishop).is_empty() {
                "KBvK"
            } else {
                "KNvK"
            };
            let (all, brute) = &solved[name];
            brute.values[all.number(child)].unwrap()
        };
        let brute = BruteForce::solve(all.len(), |i| all.board(i), |b| all.number(b), outside);
        let mut compared = 0;
        for i in 0..all.len() {
            if let Some(board) = all.board(i) {
                assert_eq!(loaded.entry(&board).dtm(), brute.values[i], "{name}: {board}");
                compared += 1;
            }
        }
        assert!(compared > 300_000, "{name}: {compared} boards");
        solved.insert(name, (all, brute));
    }
}

/// A 4-piece table with identical pieces and symmetric boards, against the brute force over its
/// stored positions (the numbering is the index's; the solving is not the kernel's).
#[test]
fn a_four_piece_table_equals_the_brute_force() {
    let loaded = build(&["KNNvK"]);
    let m = material("KNNvK");
    let index = TableIndex::new(m);
    let number = |b: &Board| index.index(&index.placement_of(b).unwrap()) as usize;
    let brute = BruteForce::solve(
        index.len() as usize,
        |i| index.placement(i as u64).and_then(|p| index.board(&p)),
        number,
        |child| loaded.entry(child).dtm().unwrap(),
    );
    let built = entries(&loaded, "KNNvK");
    assert_eq!(built.len(), brute.values.len());
    let decided = brute.values.iter().filter(|v| matches!(v, Some(Dtm::Win(_)))).count();
    assert!(decided > 0, "KNNvK has forced mates");
    for (i, v) in brute.values.iter().enumerate() {
        assert_eq!(built[i].dtm(), *v, "KNNvK index {i}");
    }
}

/// Un-moves are exactly the inverse of the legal moves that stay in the table: on random
/// positions, every board obtained by moving one piece of the side that just moved back to any
/// empty square, that is legal and has a legal move (no capture, no promotion) to the position,
/// is an un-move, once, and nothing else is.
#[test]
fn unmoves_invert_the_legal_moves() {
    let mut rng = SplitMix64(14);
    for name in ["KRvK", "KPvK", "KBBvK", "KQvKR", "KPvKP", "KRPvKR", "KNNvKB"] {
        let index = TableIndex::new(material(name));
        let mut tried = 0;
        while tried < 300 {
            let Some(p) = index.placement(rng.below(index.len())) else { continue };
            tried += 1;
            let mut unmoves: Vec<Placement> = Vec::new();
            index.unmove_placements(&p, |q| unmoves.push(q));
            let target = index.board(&p).unwrap();
            let mut expected: Vec<Placement> = Vec::new();
            let mover = !p.to_move;
            for (i, slot) in index.slots().iter().enumerate() {
                if slot.color != mover {
                    continue;
                }
                for from in 0..64u8 {
                    let mut q = p;
                    q.squares[i] = from;
                    q.to_move = mover;
                    if p.squares[..index.slots().len()].contains(&from) {
                        continue;
                    }
                    let Some(board) = index.board(&q).filter(|b| !kings_touch(b)) else { continue };
                    let mut reaches = false;
                    board.generate_moves(|moves| {
                        for mv in moves {
                            if !leaves_table(&board, mv) {
                                let mut child = board.clone();
                                child.play_unchecked(mv);
                                // The same pieces on the same squares (a double push leaves
                                // an en passant file, which tables do not keep).
                                reaches |=
                                    index.placement_of(&child).is_some_and(|c| index.same_board(&c, &p));
                            }
                        }
                        false
                    });
                    if reaches {
                        expected.push(q);
                    }
                }
            }
            let key = |v: &mut Vec<Placement>| {
                v.sort_by_key(|q| (q.squares, q.to_move as u8));
            };
            key(&mut unmoves);
            key(&mut expected);
            assert_eq!(unmoves, expected, "{name}: un-moves of {target}");
        }
    }
}

/// A version 1 table whose values were changed where the index has no position, with its digest
/// made to match, is refused by name by the statistics, not a panic. In versions 2 and 3 those indices
/// hold whatever compresses best and are never read: the same change counts the same positions.
#[test]
fn statistics_refuse_a_damaged_table_whose_digest_matches() {
    use gamegraph_games::chess::file::{self, TableFile};
    use gamegraph_games::chess::tablebase::{self, read_manifest, Silent, MANIFEST};
    use gamegraph_games::databases::DatabaseDirectory;
    let dir = tempfile::tempdir().unwrap();
    let krk = material("KRvK");
    tablebase::build(dir.path(), &[krk], &Silent).unwrap();
    let mut manifest = read_manifest(dir.path()).unwrap().unwrap();
    let entry = manifest.tables.iter_mut().find(|t| t.material == "KRvK").unwrap();
    let path = dir.path().join(&entry.file);
    TableFile::open(&path, krk, entry.entries, None).unwrap();
    let mut entries = tablebase::Tablebase::open(dir.path()).unwrap().values(krk).unwrap();
    let index = TableIndex::new(krk);
    let hole = (0..index.len()).find(|&i| index.placement(i).is_none()).expect("an index without a position");
    entries[hole as usize] = gamegraph_games::chess::Entry::of(Dtm::Win(3));
    let sound = gamegraph_games::chess::directory::EndgameTables.stats(dir.path()).unwrap().to_json();
    let mut stats_with = |format: file::Format| {
        let mut bytes = Vec::new();
        let (sha256, size) = file::write_format(&mut bytes, krk, &entries, format).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let entry = manifest.tables.iter_mut().find(|t| t.material == "KRvK").unwrap();
        (entry.sha256, entry.bytes) = (sha256, size);
        std::fs::write(dir.path().join(MANIFEST), serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
        gamegraph_games::chess::directory::EndgameTables.stats(dir.path())
    };
    let err = match stats_with(file::Format::Version1) {
        Ok(_) => panic!("a damaged table was counted"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("KRvK table is damaged") && err.contains(&format!("entry {hole}")), "{err}");
    let counted = stats_with(file::Format::Version3).expect("version 3 never reads those indices").to_json();
    assert_eq!(counted["tables"], sound["tables"]);
}

/// A table build told to stop (a user's Ctrl-C) stops inside the table, with nothing built;
/// told once its forward pass is half done, it stops there.
#[test]
fn a_table_build_stops_when_told() {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let loaded = build(&["KQvK"]);
    let stopped = build_table(material("KQvK"), &loaded, &|_| {}, &|| true);
    assert_eq!(stopped.err(), Some(gamegraph::dense::DenseError::Interrupted));
    let done = AtomicU64::new(0);
    let half = TableIndex::new(material("KRvK")).len() / 2;
    let stopped = build_table(
        material("KRvK"),
        &loaded,
        &|units| {
            done.fetch_add(units, Relaxed);
        },
        &|| done.load(Relaxed) >= half,
    );
    assert_eq!(stopped.err(), Some(gamegraph::dense::DenseError::Interrupted));
    assert!(done.load(Relaxed) < 2 * TableIndex::new(material("KRvK")).len(), "stopped before the end");
}

/// A build of several tables labels each one with its place in the build and, once a table is
/// built, the time left in all; tables found complete count as places but not as work left.
#[test]
fn a_build_says_its_place_and_time_left_in_all() {
    use gamegraph_games::databases::Progress;
    use std::sync::Mutex;
    struct Labels(Mutex<Vec<String>>);
    impl Progress for Labels {
        fn started(&self, what: &str, _: u64) {
            self.0.lock().unwrap().push(what.to_string());
        }
        fn advanced(&self, _: u64) {}
        fn finished(&self, _: &str) {}
    }
    let dir = tempfile::tempdir().unwrap();
    let build = |names: &[&str]| {
        let labels = Labels(Mutex::new(Vec::new()));
        let targets: Vec<Material> = names.iter().map(|n| material(n)).collect();
        gamegraph_games::chess::directory::build(dir.path(), &targets, &labels).unwrap();
        labels.0.into_inner().unwrap()
    };
    let first = build(&["KQvK", "KRvK"]);
    assert_eq!(first.len(), 2, "{first:?}");
    assert!(first[0].ends_with(" (1/2)"), "{first:?}");
    assert!(first[1].ends_with(" s left in all)") && first[1].contains(" (2/2, about "), "{first:?}");
    // KPvK promotes into KBvK and KNvK, built first, then KQvK and KRvK are found complete.
    let second = build(&["KPvK"]);
    assert_eq!(second.len(), 3, "{second:?}");
    assert_eq!(second[0], "KBvK (1/5)");
    assert!(
        second[1].starts_with("KNvK (2/5, about ") && second[2].starts_with("KPvK (5/5, about "),
        "{second:?}"
    );
}

/// The value of `board`'s best capture for its side to move, its children read in `loaded`.
fn best_capture(board: &Board, loaded: &LoadedTables) -> Option<Dtm> {
    let theirs = board.colors(!board.side_to_move());
    let mut best: Option<Dtm> = None;
    board.generate_moves(|moves| {
        for mv in moves.into_iter().filter(|mv| theirs.has(mv.to)) {
            let mut child = board.clone();
            child.play_unchecked(mv);
            let value = loaded.entry(&child).dtm().expect("a position").negated();
            if best.is_none_or(|b| value.rank() > b.rank()) {
                best = Some(value);
            }
        }
        false
    });
    best
}

/// A build marks exactly the positions whose best capture gives their value, and the files,
/// which leave those values out where a worse one compresses better, give back the values the
/// build found to every reader: whole tables (as verify and stats read them), tables loaded as
/// a build loads the tables it leads to, and probes.
#[test]
fn files_that_leave_capture_values_out_read_back_the_built_values() {
    use gamegraph_games::chess::tablebase::{self, Silent, Tablebase};
    let targets = [material("KRvKP"), material("KBNvK")];
    let dir = tempfile::tempdir().unwrap();
    tablebase::build(dir.path(), &targets, &Silent).unwrap();
    let tables = Tablebase::open(dir.path()).unwrap();
    let mut loaded = LoadedTables::new();
    let mut rng = SplitMix64(59);
    let (mut marked, mut lowered) = (0, 0);
    for m in Material::closure(&targets) {
        let built = build_table(m, &loaded, &|_| {}, &|| false).unwrap();
        loaded.insert(m, built.clone());
        let index = TableIndex::new(m);
        let values: Vec<_> = built.iter().map(|e| e.unmarked()).collect();
        for (i, e) in built.iter().enumerate().filter(|(_, e)| e.dtm().is_some()) {
            let board = index.board(&index.placement(i as u64).unwrap()).unwrap();
            let by_capture = best_capture(&board, &loaded) == e.dtm();
            assert_eq!(e.is_by_capture(), by_capture, "{m}: {board}");
            marked += usize::from(by_capture);
        }
        assert_eq!(tables.values(m).unwrap(), values, "{m}: whole");
        let stored = tables.table(m).unwrap().file.all().unwrap();
        lowered += stored.iter().zip(&values).filter(|(s, v)| s != v).count();
        let mut as_built = LoadedTables::new();
        tables.load(&mut as_built, m, [true, true]).unwrap();
        for i in (0..index.len()).filter(|&i| values[i as usize].dtm().is_some()) {
            let board = index.board(&index.placement(i).unwrap()).unwrap();
            assert_eq!(as_built.entry(&board), values[i as usize], "{m}: loaded, {board}");
        }
        for _ in 0..300 {
            let i = rng.below(index.len());
            let Some(board) = index.placement(i).and_then(|p| index.board(&p)) else { continue };
            assert_eq!(Some(tables.probe(&board).unwrap()), values[i as usize].dtm(), "{m}: probed, {board}");
        }
    }
    assert!(marked > 10_000 && lowered > 1_000, "{marked} positions marked, {lowered} entries stored lower");
}
