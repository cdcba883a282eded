//! Chess values as players read them: distances to mate in moves and plies (`win in 16 (31
//! plies)`), moves best first, mates in SAN; and estimates of positions beyond the tables,
//! marked as such. Front ends print these; they hold no chess wording of their own.

use std::time::Instant;

use cozy_chess::Board;
use gamegraph::{Notation, Outcome};
use serde_json::json;

use super::mate::MateSearch;
use super::san::san;
use super::{Chess, Dtm};
use crate::analysis::{Analysis, ForcedWin, ForcedWinLimits, ForcedWins, Value};

/// The distance to mate of an exact value whose distance is known (a draw otherwise).
pub fn dtm_of(value: &Value) -> Dtm {
    match (value.exact, value.outcome, value.remoteness) {
        (true, Some(Outcome::Win), Some(n)) => Dtm::Win(n),
        (true, Some(Outcome::Lose), Some(n)) => Dtm::Loss(n),
        _ => Dtm::Draw,
    }
}

/// A value as a player says it: `win in 16 (31 plies)`, `loss in 12 (24 plies)`, `loss:
/// checkmated`, `draw`; a value that is not exact, `~35 (searched 8 plies, not exact)`.
pub fn words(value: &Value) -> String {
    if value.exact && value.remoteness.is_none() && value.outcome != Some(Outcome::Draw) {
        // Proven by a search beyond the tables, without its distance.
        return format!("{} {}", value.outcome.map_or("?", Outcome::name), value.shown());
    }
    if !value.exact {
        return match value.depth {
            Some(depth) => format!("{} (searched {depth} plies, not exact)", value.shown()),
            None => format!("{} (not exact)", value.shown()),
        };
    }
    let dtm = dtm_of(value);
    match (dtm, dtm.moves(), dtm.plies()) {
        (Dtm::Win(_), Some(m), Some(p)) => format!("win in {m} ({p} plies)"),
        (Dtm::Loss(0), ..) => "loss: checkmated".into(),
        (Dtm::Loss(_), Some(m), Some(p)) => format!("loss in {m} ({p} plies)"),
        _ => "draw".into(),
    }
}

/// How a value ranks for the player it belongs to: exact values by their distance to mate
/// (fastest win first, slowest loss last), estimates by their value between draws and losses.
fn rank(value: &Value) -> (i64, i64) {
    if value.exact && value.remoteness.is_some() {
        (dtm_of(value).rank(), 0)
    } else {
        (Dtm::Draw.rank(), i64::from(value.value.unwrap_or(0)))
    }
}

/// The board, the position's value, then every move's, best first.
pub fn describe(chess: &Chess, board: &Board, a: &Analysis) -> String {
    let mut moves: Vec<_> = a.moves.iter().collect();
    moves.sort_by_key(|m| std::cmp::Reverse(rank(&m.value)));
    let mut text = format!("{}\n{}: {}", chess.render(board), a.position, words(&a.value));
    for m in moves {
        let best = if a.best.contains(&m.notation) { "  (best)" } else { "" };
        text.push_str(&format!("\n  {:>6}  {}{best}", m.notation, words(&m.value)));
    }
    text
}

/// An analysis as JSON: the value as a distance to mate (`{"outcome": "win", "plies": 31}`)
/// with the moves to mate, every move best first, the best moves; and for a value that is not
/// exact, the estimate and its depth.
pub fn json(a: &Analysis) -> serde_json::Value {
    let value = |v: &Value| {
        let dtm = dtm_of(v);
        let mut out = json!({"value": dtm, "moves_to_mate": dtm.moves(), "exact": v.exact});
        if !v.exact || v.remoteness.is_none() {
            out["estimate"] = json!(v.value);
            out["depth"] = json!(v.depth);
        }
        out
    };
    let mut moves: Vec<_> = a.moves.iter().collect();
    moves.sort_by_key(|m| std::cmp::Reverse(rank(&m.value)));
    let moves: Vec<_> = moves
        .iter()
        .map(|m| {
            let mut out = value(&m.value);
            out["move"] = json!(m.notation);
            out["position"] = json!(m.position);
            out
        })
        .collect();
    let mut out = value(&a.value);
    out["position"] = json!(a.position);
    out["moves"] = json!(moves);
    out["best"] = json!(a.best);
    out
}

/// `FEN; win 31` (plies), `FEN; draw`, `FEN; loss 32`; an estimate `FEN; ~35 (searched 8
/// plies, not exact)`.
pub fn record(text: &str, value: &Value) -> String {
    if value.exact && (value.remoteness.is_some() || value.outcome == Some(Outcome::Draw)) {
        format!("{text}; {}", dtm_of(value))
    } else {
        format!("{text}; {}", words(value))
    }
}

/// Every first move of `board` that forces mate in at most `moves` moves, in SAN, found by
/// searching every move, with a table and a time within `limits`.
pub fn forced_mates(chess: &Chess, board: &Board, moves: u32, limits: ForcedWinLimits) -> ForcedWins {
    let started = Instant::now();
    let mut search = MateSearch::with_limits(limits.table_mib, limits.time);
    let found = search.mating_moves_by_length(board, moves);
    ForcedWins {
        position: chess.format_position(board),
        within: moves,
        moves: found
            .iter()
            .map(|&(mv, n)| ForcedWin {
                notation: san(board, mv),
                uci: chess.format_move(board, mv),
                mate_in: n,
            })
            .collect(),
        nodes: search.nodes(),
        seconds: started.elapsed().as_secs_f64(),
        complete: !search.out_of_time(),
    }
}
