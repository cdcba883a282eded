//! Counts of a table's positions by value and side to move, over all placements.

use super::*;

/// One side to move of one table, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SideStats {
    /// Legal positions, over all placements on distinct squares (no symmetry folded).
    pub positions: u64,
    /// Positions stored (one per class of symmetric positions).
    pub stored: u64,
    /// Positions the side to move wins, over all placements.
    pub wins: u64,
    /// Drawn positions, over all placements.
    pub draws: u64,
    /// Positions the side to move loses, over all placements.
    pub losses: u64,
    /// The longest distance to mate, in plies, if any position is decided.
    pub longest: Option<u32>,
    /// A position at that distance.
    pub longest_fen: Option<String>,
    /// Its index, while counting.
    #[serde(skip)]
    longest_index: Option<u64>,
    /// The first index that holds a value though it is no position, while counting.
    #[serde(skip)]
    damaged_at: Option<u64>,
}

/// Statistics of one table: White to move, then Black.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableStats {
    /// The material.
    pub material: String,
    /// White to move (the side named first), then Black.
    pub sides: [SideStats; 2],
}

/// Counts a table's positions by value and side to move; an error when a value is stored where
/// the index has no position (a damaged file whose digest was made to match).
pub fn table_stats(material: Material, entries: &[Entry]) -> Result<TableStats, TablebaseError> {
    let index = TableIndex::new(material);
    let half = index.len() / 2;
    let sides = [0u64, 1].map(|side| {
        let range = side * half..(side + 1) * half;
        let mut s = range
            .into_par_iter()
            .fold(SideStats::default, |mut s, i| {
                let Some(dtm) = entries[i as usize].dtm() else { return s };
                let Some(p) = index.placement(i) else {
                    s.damaged_at = s.damaged_at.min(Some(i)).or(Some(i));
                    return s;
                };
                let weight = if material.has_pawns() {
                    2
                } else if index.stabilizer(&p) == 2 {
                    4
                } else {
                    8
                };
                s.positions += weight;
                s.stored += 1;
                match dtm {
                    Dtm::Win(_) => s.wins += weight,
                    Dtm::Loss(_) => s.losses += weight,
                    Dtm::Draw => s.draws += weight,
                }
                if let Some(n) = dtm.plies().filter(|&n| s.longest.is_none_or(|l| n > l)) {
                    s.longest = Some(n);
                    s.longest_index = Some(i);
                }
                s
            })
            .reduce(SideStats::default, |a, b| {
                let (longest, longest_index) = if b.longest > a.longest {
                    (b.longest, b.longest_index)
                } else {
                    (a.longest, a.longest_index)
                };
                let damaged_at = match (a.damaged_at, b.damaged_at) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
                SideStats {
                    damaged_at,
                    positions: a.positions + b.positions,
                    stored: a.stored + b.stored,
                    wins: a.wins + b.wins,
                    draws: a.draws + b.draws,
                    losses: a.losses + b.losses,
                    longest,
                    longest_fen: None,
                    longest_index,
                }
            });
        s.longest_fen =
            s.longest_index.and_then(|i| index.board(&index.placement(i)?)).map(|b| b.to_string());
        s
    });
    if let Some(at) = sides.iter().filter_map(|s| s.damaged_at).min() {
        return Err(TablebaseError::Damaged {
            material,
            message: format!("entry {at} holds a value, but the index has no position there"),
        });
    }
    Ok(TableStats { material: material.to_string(), sides })
}
