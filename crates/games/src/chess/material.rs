//! Materials: which pieces a table holds (`KQvKR`), named with the stronger side first, so that
//! `KRvKQ` is the same table seen with the colours swapped. A material knows the tables its
//! captures and promotions lead to, which must be built before it.

use std::fmt;
use std::str::FromStr;

use cozy_chess::{Board, Color, Piece};

/// The pieces besides the kings, in the order names list them.
pub const PIECES: [Piece; 5] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight, Piece::Pawn];

/// The most pieces, kings included, that a table may hold.
pub const MAX_PIECES: usize = 5;

/// The letter of a piece in material names.
pub fn letter(piece: Piece) -> char {
    match piece {
        Piece::King => 'K',
        Piece::Queen => 'Q',
        Piece::Rook => 'R',
        Piece::Bishop => 'B',
        Piece::Knight => 'N',
        Piece::Pawn => 'P',
    }
}

/// How many of each piece (besides the king) each side has: `counts[side][i]` for `PIECES[i]`,
/// side 0 being the first named (White in the table's own orientation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [[u8; 5]; 2],
}

/// A material name that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("material '{text}': {message} (write it like KQvKR: a king, then the pieces, for each side)")]
pub struct MaterialError {
    text: String,
    message: String,
}

impl Material {
    /// The material of a board, White first (not necessarily the table's orientation).
    pub fn of(board: &Board) -> Material {
        let mut counts = [[0; 5]; 2];
        for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
            for (i, &piece) in PIECES.iter().enumerate() {
                counts[side][i] = board.colored_pieces(color, piece).len() as u8;
            }
        }
        Material { counts }
    }

    /// The material of a list of pieces (kings are not counted), White first.
    pub fn of_pieces(pieces: impl IntoIterator<Item = (Color, Piece)>) -> Material {
        let mut counts = [[0; 5]; 2];
        for (color, piece) in pieces {
            if let Some(i) = PIECES.iter().position(|&p| p == piece) {
                counts[usize::from(color == Color::Black)][i] += 1;
            }
        }
        Material { counts }
    }

    /// The same pieces with the sides swapped.
    pub fn swapped(self) -> Material {
        Material { counts: [self.counts[1], self.counts[0]] }
    }

    /// The name of the table holding this material: the stronger side first.
    pub fn canonical(self) -> Material {
        if self.strength(0) >= self.strength(1) {
            self
        } else {
            self.swapped()
        }
    }

    /// Whether this is its table's orientation.
    pub fn is_canonical(self) -> bool {
        self.canonical() == self
    }

    /// Orders the sides: total value first, then the counts from the queens down.
    fn strength(self, side: usize) -> (u32, [u8; 5]) {
        const VALUE: [u32; 5] = [9, 5, 3, 3, 1];
        let value = self.counts[side].iter().zip(VALUE).map(|(&n, v)| u32::from(n) * v).sum();
        (value, self.counts[side])
    }

    /// How many `PIECES[i]` side `side` has.
    pub fn count(self, side: usize, piece: usize) -> u8 {
        self.counts[side][piece]
    }

    /// Pieces on the board, kings included.
    pub fn pieces(self) -> usize {
        2 + self.counts.iter().flatten().map(|&n| usize::from(n)).sum::<usize>()
    }

    /// Whether the table has pawns (then only the left-right mirror is a symmetry).
    pub fn has_pawns(self) -> bool {
        self.counts[0][4] + self.counts[1][4] > 0
    }

    /// The canonical tables that one capture, promotion or both lead to from this one, without
    /// the bare kings (always a draw).
    pub fn successors(self) -> Vec<Material> {
        let mut out = Vec::new();
        let mut add = |m: Material| {
            let m = m.canonical();
            if m.pieces() > 2 && !out.contains(&m) {
                out.push(m);
            }
        };
        for mover in 0..2 {
            let captures = |m: Material| {
                (0..5).filter(move |&i| m.counts[1 - mover][i] > 0).map(move |i| {
                    let mut c = m;
                    c.counts[1 - mover][i] -= 1;
                    c
                })
            };
            captures(self).for_each(&mut add);
            if self.counts[mover][4] > 0 {
                for promoted in 0..4 {
                    let mut p = self;
                    p.counts[mover][4] -= 1;
                    p.counts[mover][promoted] += 1;
                    add(p);
                    captures(p).for_each(&mut add);
                }
            }
        }
        out.sort();
        out
    }

    /// Every canonical table of 3 to `pieces` pieces, in an order where each comes after the
    /// tables it leads to (fewer pieces first, then fewer pawns).
    pub fn all_up_to(pieces: usize) -> Vec<Material> {
        let mut out = Vec::new();
        let extra = pieces.saturating_sub(2);
        for counts in multisets(2 * 5, extra) {
            let mut m = Material { counts: [[0; 5]; 2] };
            for (i, &n) in counts.iter().enumerate() {
                m.counts[i / 5][i % 5] = n;
            }
            let m = m.canonical();
            if m.pieces() > 2 && !out.contains(&m) {
                out.push(m);
            }
        }
        sort_for_building(&mut out);
        out
    }

    /// Every table `targets` need, themselves included, in building order.
    pub fn closure(targets: &[Material]) -> Vec<Material> {
        let mut out: Vec<Material> = Vec::new();
        let mut todo: Vec<Material> = targets.iter().map(|m| m.canonical()).collect();
        while let Some(m) = todo.pop() {
            if !out.contains(&m) {
                out.push(m);
                todo.extend(m.successors());
            }
        }
        sort_for_building(&mut out);
        out
    }
}

/// Fewer pieces first (captures), then fewer pawns (promotions), then by name.
fn sort_for_building(materials: &mut [Material]) {
    materials.sort_by_key(|m| (m.pieces(), m.counts[0][4] + m.counts[1][4], m.to_string()));
}

/// Every way to put at most `total` items into `slots` slots, as counts.
fn multisets(slots: usize, total: usize) -> Vec<Vec<u8>> {
    if slots == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for here in 0..=total {
        for mut rest in multisets(slots - 1, total - here) {
            rest.insert(0, here as u8);
            out.push(rest);
        }
    }
    out
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for side in 0..2 {
            if side == 1 {
                f.write_str("v")?;
            }
            f.write_str("K")?;
            for (i, &piece) in PIECES.iter().enumerate() {
                for _ in 0..self.counts[side][i] {
                    write!(f, "{}", letter(piece))?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    /// Reads `KQvKR` (either side first; letters in any order after each king).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |message: &str| MaterialError { text: text.to_string(), message: message.to_string() };
        let sides: Vec<&str> = text.split(['v', 'V']).collect();
        let [first, second] = sides[..] else {
            return Err(error("expected two sides separated by 'v'"));
        };
        let mut counts = [[0u8; 5]; 2];
        for (side, part) in [first, second].into_iter().enumerate() {
            let mut letters = part.chars();
            if letters.next().map(|c| c.to_ascii_uppercase()) != Some('K') {
                return Err(error("each side starts with its king, K"));
            }
            for c in letters {
                let i = PIECES
                    .iter()
                    .position(|&p| letter(p) == c.to_ascii_uppercase())
                    .ok_or_else(|| error(&format!("'{c}' is not a piece (Q, R, B, N or P)")))?;
                counts[side][i] += 1;
            }
        }
        let material = Material { counts };
        if material.pieces() > MAX_PIECES {
            return Err(error(&format!("{} pieces; tables hold at most {MAX_PIECES}", material.pieces())));
        }
        if material.pieces() < 3 {
            return Err(error("the bare kings are a draw and have no table"));
        }
        Ok(material)
    }
}

/// Reads a table list: materials separated by commas, or `3`, `4`, `5` for every table of up to
/// that many pieces. The result is canonical and without repeats.
pub fn parse_tables(spec: &str) -> Result<Vec<Material>, MaterialError> {
    let mut out: Vec<Material> = Vec::new();
    for part in spec.split(',').map(str::trim) {
        let found = match part.parse::<usize>() {
            Ok(n) if (3..=MAX_PIECES).contains(&n) => Material::all_up_to(n),
            Ok(_) => {
                return Err(MaterialError {
                    text: part.to_string(),
                    message: format!("a piece count is 3 to {MAX_PIECES}"),
                })
            }
            Err(_) => vec![part.parse::<Material>()?.canonical()],
        };
        for m in found {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_5_tables_of_3_pieces_and_35_of_3_or_4() {
        assert_eq!(Material::all_up_to(3).len(), 5);
        assert_eq!(Material::all_up_to(4).len(), 35);
        // 110 tables of exactly five pieces, as the published 5-piece sets list.
        assert_eq!(Material::all_up_to(5).len() - 35, 110);
    }

    #[test]
    fn names_fold_the_colours() {
        let m: Material = "KRvKQ".parse().unwrap();
        assert_eq!(m.canonical().to_string(), "KQvKR");
        assert_eq!("kqrvk".parse::<Material>().unwrap().to_string(), "KQRvK");
        assert!("KQK".parse::<Material>().is_err());
        assert!("KQvKX".parse::<Material>().is_err());
        assert!("KQQQvKQ".parse::<Material>().is_err());
        assert!("KvK".parse::<Material>().is_err());
    }

    #[test]
    fn successors_are_captures_and_promotions() {
        let names = |m: &str| -> Vec<String> {
            let mut names: Vec<String> =
                m.parse::<Material>().unwrap().successors().iter().map(|m| m.to_string()).collect();
            names.sort();
            names
        };
        assert_eq!(names("KPvK"), ["KBvK", "KNvK", "KQvK", "KRvK"]);
        assert_eq!(names("KQvKR"), ["KQvK", "KRvK"]);
        let all = Material::all_up_to(4);
        for (i, m) in all.iter().enumerate() {
            for s in m.successors() {
                assert!(all[..i].contains(&s), "{s} comes before {m}");
            }
        }
    }
}
