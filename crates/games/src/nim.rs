//! Nim with any number of heaps, normal play: a move takes one or more stones from one heap, and
//! the player who cannot move loses.
//!
//! Notation: heap sizes separated by commas (`3,4,5`); a move is `HEAP:COUNT` with 1-based heaps
//! (`2:3` takes three stones from the second heap).

use gamegraph::game::{
    Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey, Selectivity,
};
use gamegraph::SearchContext;

/// Largest heap accepted by the notation, so that positions stay small and moves countable.
pub const MAX_HEAP: u16 = 10_000;

/// Largest number of heaps accepted by the notation.
pub const MAX_HEAPS: usize = 64;

/// The rules of Nim, with the heaps a game starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nim {
    start: Vec<u16>,
}

impl Default for Nim {
    /// The classic 3, 4, 5.
    fn default() -> Self {
        Self { start: vec![3, 4, 5] }
    }
}

impl Nim {
    /// Nim starting from `heaps`.
    pub fn new(heaps: Vec<u16>) -> Self {
        Self { start: heaps }
    }
}

/// A move: take `count` stones from heap `heap` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Take {
    /// The heap, 0-based.
    pub heap: u8,
    /// How many stones, at least one.
    pub count: u16,
}

impl Game for Nim {
    type Position = Vec<u16>;
    type Move = Take;

    fn start(&self) -> Vec<u16> {
        self.start.clone()
    }

    fn moves(&self, heaps: &Vec<u16>, moves: &mut Vec<Take>) {
        for (i, &h) in heaps.iter().enumerate() {
            moves.extend((1..=h).map(|count| Take { heap: i as u8, count }));
        }
    }

    fn play(&self, heaps: &Vec<u16>, mv: Take) -> Vec<u16> {
        let mut next = heaps.clone();
        next[mv.heap as usize] -= mv.count;
        next
    }
}

impl Notation for Nim {
    fn name(&self) -> String {
        "nim".into()
    }

    fn parse_position(&self, text: &str) -> Result<Vec<u16>, NotationError> {
        let mut heaps = Vec::new();
        let mut column = 1;
        for field in text.trim_end().split(',') {
            let start = column + (field.len() - field.trim_start().len());
            let trimmed = field.trim();
            match trimmed.parse::<u16>() {
                Ok(h) if h <= MAX_HEAP => heaps.push(h),
                _ => {
                    return Err(NotationError::new(
                        start,
                        format!("'{trimmed}' is not a heap size (a whole number from 0 to {MAX_HEAP})"),
                    ))
                }
            }
            if heaps.len() > MAX_HEAPS {
                return Err(NotationError::new(start, format!("at most {MAX_HEAPS} heaps")));
            }
            column += field.chars().count() + 1;
        }
        Ok(heaps)
    }

    fn format_position(&self, heaps: &Vec<u16>) -> String {
        heaps.iter().map(u16::to_string).collect::<Vec<_>>().join(",")
    }

    fn parse_move(&self, heaps: &Vec<u16>, text: &str) -> Result<Take, NotationError> {
        let text = text.trim();
        let Some((heap, count)) = text.split_once(':') else {
            return Err(NotationError::new(
                1,
                format!("'{text}' is not a move: write HEAP:COUNT, such as 2:3"),
            ));
        };
        let heap_no = match heap.trim().parse::<usize>() {
            Ok(h) if (1..=heaps.len()).contains(&h) => h,
            _ => {
                return Err(NotationError::new(
                    1,
                    format!("'{heap}' is not a heap number from 1 to {}", heaps.len()),
                ))
            }
        };
        let size = heaps[heap_no - 1];
        match count.trim().parse::<u16>() {
            Ok(c) if c >= 1 && c <= size => Ok(Take { heap: (heap_no - 1) as u8, count: c }),
            _ => Err(NotationError::new(
                heap.len() + 2,
                format!("heap {heap_no} has {size} stones: take from 1 to {size}, not '{count}'"),
            )),
        }
    }

    fn format_move(&self, _heaps: &Vec<u16>, mv: Take) -> String {
        format!("{}:{}", mv.heap + 1, mv.count)
    }

    fn render(&self, heaps: &Vec<u16>) -> String {
        heaps
            .iter()
            .enumerate()
            .map(|(i, &h)| format!("heap {}: {:>3} {}", i + 1, h, "|".repeat(h.min(60) as usize)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl ExactHints for Nim {}

impl Payoff for Nim {}

impl Evaluate for Nim {
    /// Sign of the nim-sum: the whole theory of the game in one line, as a heuristic.
    fn evaluate(&self, heaps: &Vec<u16>) -> i32 {
        if heaps.iter().fold(0, |x, &h| x ^ h) != 0 {
            1
        } else {
            -1
        }
    }
}

impl MoveOrdering for Nim {
    /// Moves that leave a zero nim-sum first.
    fn order_moves(
        &self,
        heaps: &Vec<u16>,
        moves: &mut [Take],
        _depth: u32,
        _context: &mut SearchContext<'_>,
    ) {
        let sum = heaps.iter().fold(0, |x, &h| x ^ h);
        moves.sort_by_key(|m| {
            let h = heaps[m.heap as usize];
            (h - m.count) != (h ^ sum)
        });
    }
}

impl Selectivity for Nim {}

impl PositionKey for Nim {
    /// The heaps mixed into 64 bits (FNV-1a over the sizes).
    fn key(&self, heaps: &Vec<u16>) -> u64 {
        heaps.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &x| {
            (h ^ u64::from(x) ^ 0x5A00).wrapping_mul(0x0000_0100_0000_01B3)
        })
    }
}

impl Nim {
    /// One row per heap, one cell per stone: clicking a stone takes it and every stone right of it.
    pub fn board_view(&self, heaps: &Vec<u16>) -> crate::BoardView {
        const SHOWN: u16 = 40;
        let cols = heaps.iter().copied().max().unwrap_or(0).clamp(1, SHOWN) as usize;
        let mut cells = Vec::with_capacity(heaps.len() * cols);
        for (i, &h) in heaps.iter().enumerate() {
            for k in 0..cols as u16 {
                if k < h.min(SHOWN) {
                    let take = h - k;
                    cells.push(crate::Cell::new("", "stone", Some(format!("{}:{take}", i + 1))));
                } else {
                    cells.push(crate::Cell::new("", "none", None));
                }
            }
        }
        let note =
            heaps.iter().any(|&h| h > SHOWN).then(|| format!("heaps: {}", self.format_position(heaps)));
        crate::BoardView { rows: heaps.len(), cols, cells, to_move: "the player to move".into(), note }
    }
}
