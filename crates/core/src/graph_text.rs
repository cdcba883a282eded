//! Reading game graphs from text: the named format (`a -> b c`, `b = 3`) and numeric edge lists
//! (`0 1`, `1 = 3`). Errors name the line and column.

use std::collections::HashMap;

use crate::game::Stake;
use crate::graph::GameGraph;

/// Text that cannot be read, with the 1-based line and column of the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// An error at `line`, `column` (both 1-based).
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self { line, column, message: message.into() }
    }
}

/// A game graph whose positions have names.
#[derive(Debug, Clone)]
pub struct NamedGraph {
    /// The graph; node `i` is called `names[i]`.
    pub graph: GameGraph,
    /// The name of every node, in id order; empty where nodes are called by their ids (graphs
    /// of millions of nodes built from arrays, where the names would cost more than the graph).
    pub names: Vec<String>,
}

impl NamedGraph {
    /// A graph whose nodes are called by their ids.
    pub fn numbered(graph: GameGraph) -> Self {
        Self { graph, names: Vec::new() }
    }

    /// The id of the node called `name`.
    pub fn id(&self, name: &str) -> Option<u32> {
        if self.names.is_empty() {
            return name.parse().ok().filter(|&u: &u32| (u as usize) < self.graph.nodes());
        }
        self.names.iter().position(|n| n == name).map(|i| i as u32)
    }

    /// The name of node `u`.
    pub fn name(&self, u: u32) -> String {
        self.names.get(u as usize).cloned().unwrap_or_else(|| u.to_string())
    }
}

/// A word of a line and its 1-based column.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    column: usize,
}

/// Splits a line (comment already removed) into names, `->` and `=`.
fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut word: Option<(usize, usize)> = None; // (byte, column) where the current name started
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (byte, ch) = chars[i];
        let operator = match ch {
            '-' if chars.get(i + 1).map(|&(_, c)| c) == Some('>') => 2,
            '=' => 1,
            _ => 0,
        };
        if ch.is_whitespace() || operator > 0 {
            if let Some((start, column)) = word.take() {
                tokens.push(Token { text: &line[start..byte], column });
            }
            if operator > 0 {
                tokens.push(Token { text: &line[byte..byte + operator], column: i + 1 });
                i += operator;
                continue;
            }
        } else if word.is_none() {
            word = Some((byte, i + 1));
        }
        i += 1;
    }
    if let Some((start, column)) = word {
        tokens.push(Token { text: &line[start..], column });
    }
    tokens
}

/// The lines of `source` without comments, numbered from 1, with their tokens; blank lines skipped.
fn statements(source: &str) -> impl Iterator<Item = (usize, Vec<Token<'_>>)> {
    // A byte order mark is not part of the first name.
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    source.lines().enumerate().filter_map(|(i, line)| {
        let code = line.split('#').next().unwrap_or("");
        let tokens = tokenize(code);
        (!tokens.is_empty()).then_some((i + 1, tokens))
    })
}

fn parse_stake(line: usize, token: Token<'_>) -> Result<Stake, ParseError> {
    match token.text.parse::<i64>() {
        Ok(v) if v > Stake::MIN as i64 && v <= Stake::MAX as i64 => Ok(v as Stake),
        Ok(_) => Err(ParseError::new(
            line,
            token.column,
            format!("stake {} is out of range (|p| < 2^31)", token.text),
        )),
        Err(_) => Err(ParseError::new(
            line,
            token.column,
            format!("expected an integer stake, found '{}'", token.text),
        )),
    }
}

/// Collects edges and stakes, checking that no node has both and no stake is given twice.
#[derive(Default)]
struct Collector {
    edges: Vec<(u32, u32)>,
    stakes: Vec<Option<(Stake, usize)>>,
    has_moves: Vec<Option<usize>>,
}

impl Collector {
    fn ensure(&mut self, node: u32) {
        let n = node as usize + 1;
        if self.stakes.len() < n {
            self.stakes.resize(n, None);
            self.has_moves.resize(n, None);
        }
    }

    fn edge(&mut self, from: u32, to: u32, line: usize, column: usize, name: &str) -> Result<(), ParseError> {
        self.ensure(from.max(to));
        if let Some((_, stake_line)) = self.stakes[from as usize] {
            return Err(ParseError::new(
                line,
                column,
                format!(
                    "'{name}' has a stake (line {stake_line}) and moves: a node with moves cannot be final"
                ),
            ));
        }
        self.has_moves[from as usize].get_or_insert(line);
        self.edges.push((from, to));
        Ok(())
    }

    fn stake(
        &mut self,
        node: u32,
        stake: Stake,
        line: usize,
        column: usize,
        name: &str,
    ) -> Result<(), ParseError> {
        self.ensure(node);
        if let Some(move_line) = self.has_moves[node as usize] {
            return Err(ParseError::new(
                line,
                column,
                format!("'{name}' has moves (line {move_line}) and a stake: only final nodes have stakes"),
            ));
        }
        if let Some((_, first)) = self.stakes[node as usize] {
            return Err(ParseError::new(
                line,
                column,
                format!("the stake of '{name}' is already given on line {first}"),
            ));
        }
        self.stakes[node as usize] = Some((stake, line));
        Ok(())
    }

    fn finish(mut self, nodes: usize) -> GameGraph {
        self.stakes.resize(nodes, None);
        let stakes = self.stakes.into_iter().map(|s| s.map_or(0, |(p, _)| p)).collect();
        GameGraph::from_edges(nodes, &self.edges, stakes)
    }
}

/// Refuses a name with a control character (NUL, escape, ...), naming where it is.
fn check_name(line: usize, token: Token<'_>) -> Result<(), ParseError> {
    match token.text.chars().position(char::is_control) {
        None => Ok(()),
        Some(at) => Err(ParseError::new(
            line,
            token.column + at,
            format!(
                "a control character (U+{:04X}) in a node name",
                token.text.chars().nth(at).map_or(0, u32::from)
            ),
        )),
    }
}

/// Reads the named format: one statement per line, `#` starts a comment.
///
/// - `a -> b c`: moves from `a` to `b` and to `c` (a node may have several such lines);
/// - `b = 3`: `b` is final and the player to move there loses 3;
/// - `a`: declares a node.
///
/// A node without moves is final with stake 0 unless given one.
pub fn parse_text<'s>(source: &'s str) -> Result<NamedGraph, ParseError> {
    let mut ids: HashMap<&'s str, u32> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut collector = Collector::default();
    let mut intern = |name: &'s str, collector: &mut Collector| -> u32 {
        let next = names.len() as u32;
        let id = *ids.entry(name).or_insert_with(|| {
            names.push(name.to_string());
            next
        });
        collector.ensure(id);
        id
    };
    for (line, tokens) in statements(source) {
        let head = tokens[0];
        if head.text == "->" || head.text == "=" {
            return Err(ParseError::new(
                line,
                head.column,
                format!("expected a node name before '{}'", head.text),
            ));
        }
        for &token in &tokens {
            check_name(line, token)?;
        }
        let from = intern(head.text, &mut collector);
        match tokens.get(1) {
            None => {}
            Some(op) if op.text == "->" => {
                let targets = &tokens[2..];
                if targets.is_empty() {
                    let end = op.column + 2;
                    return Err(ParseError::new(line, end, "expected at least one node after '->'"));
                }
                for t in targets {
                    if t.text == "->" || t.text == "=" {
                        return Err(ParseError::new(
                            line,
                            t.column,
                            format!("unexpected '{}' among the moves", t.text),
                        ));
                    }
                    let to = intern(t.text, &mut collector);
                    collector.edge(from, to, line, head.column, head.text)?;
                }
            }
            Some(op) if op.text == "=" => {
                let Some(&value) = tokens.get(2) else {
                    return Err(ParseError::new(line, op.column + 1, "expected an integer stake after '='"));
                };
                if let Some(extra) = tokens.get(3) {
                    return Err(ParseError::new(line, extra.column, "unexpected text after the stake"));
                }
                let stake = parse_stake(line, value)?;
                collector.stake(from, stake, line, head.column, head.text)?;
            }
            Some(other) => {
                return Err(ParseError::new(
                    line,
                    other.column,
                    format!("expected '->' or '=' after '{}', found '{}'", head.text, other.text),
                ));
            }
        }
    }
    let nodes = names.len();
    Ok(NamedGraph { graph: collector.finish(nodes), names })
}

fn parse_id(line: usize, token: Token<'_>) -> Result<u32, ParseError> {
    match token.text.parse::<u32>() {
        Ok(v) if v < u32::MAX => Ok(v),
        _ => Err(ParseError::new(
            line,
            token.column,
            format!("expected a node number (0 to 4294967294), found '{}'", token.text),
        )),
    }
}

/// Reads a numeric edge list: `u v` per move, `u = p` for the stake of a final `u`, `#` comments.
/// Nodes are `0..=max id`; the names are the numbers.
pub fn parse_edges(source: &str) -> Result<NamedGraph, ParseError> {
    let mut collector = Collector::default();
    let mut nodes = 0usize;
    // Every id below the largest becomes a node, so the ids bound the memory: they may exceed
    // what the list mentions, but not by orders of magnitude. Checked as each id is read, before
    // anything is allocated for it.
    // The statements, counted without tokenizing them: lines with something before any '#'.
    let lines = source
        .strip_prefix('\u{feff}')
        .unwrap_or(source)
        .lines()
        .filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty())
        .count();
    let limit = IMPLICIT_NODES.saturating_add(lines.saturating_mul(2));
    let node = |line: usize, token: Token<'_>| -> Result<u32, ParseError> {
        let id = parse_id(line, token)?;
        if id as usize >= limit {
            return Err(ParseError::new(
                line,
                token.column,
                format!(
                    "node {id} is too large for a list of {lines} lines: ids stay below {limit} \
                     (a million plus two per line), so number the nodes densely"
                ),
            ));
        }
        Ok(id)
    };
    for (line, tokens) in statements(source) {
        let from = node(line, tokens[0])?;
        let second = tokens.get(1).ok_or_else(|| {
            ParseError::new(
                line,
                tokens[0].column + tokens[0].text.len(),
                "expected a target node or '= stake'",
            )
        })?;
        if second.text == "=" {
            let Some(&value) = tokens.get(2) else {
                return Err(ParseError::new(line, second.column + 1, "expected an integer stake after '='"));
            };
            if let Some(extra) = tokens.get(3) {
                return Err(ParseError::new(line, extra.column, "unexpected text after the stake"));
            }
            let stake = parse_stake(line, value)?;
            collector.stake(from, stake, line, tokens[0].column, tokens[0].text)?;
            nodes = nodes.max(from as usize + 1);
        } else {
            let to = node(line, *second)?;
            if let Some(extra) = tokens.get(2) {
                return Err(ParseError::new(line, extra.column, "unexpected text after the edge"));
            }
            collector.edge(from, to, line, tokens[0].column, tokens[0].text)?;
            nodes = nodes.max(from.max(to) as usize + 1);
        }
    }
    let names = (0..nodes).map(|i| i.to_string()).collect();
    Ok(NamedGraph { graph: collector.finish(nodes), names })
}

/// How many nodes an edge list may have beyond two per line: ids need not be dense, but every id
/// below the largest becomes a node.
pub const IMPLICIT_NODES: usize = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_moves_stakes_declarations_and_comments() {
        let g = parse_text("# the cycle fixture\nA -> B F\nB->A\nF = 1 # final\nlonely\n").unwrap();
        assert_eq!(g.names, ["A", "B", "F", "lonely"]);
        assert_eq!(g.graph.successors(0), &[1, 2]);
        assert_eq!(g.graph.successors(1), &[0]);
        assert_eq!(g.graph.stake(2), Some(1));
        assert_eq!(g.graph.stake(3), Some(0));
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_control_characters_refused() {
        let g = parse_text("\u{feff}A -> B\nB -> A\n").unwrap();
        assert_eq!(g.names, ["A", "B"]);
        let err = parse_text("A -> B\nB -> x\u{0}y\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 7), "{err}");
        assert!(parse_text("A\u{1b}[31m -> B\n").is_err());
    }

    #[test]
    fn edge_list_ids_are_bounded_by_the_list() {
        let err = parse_edges("0 1\n0 4294967294\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 3), "{err}");
        assert!(parse_edges("0 1000000000\n").is_err());
        let g = parse_edges("0 1000003\n1 2\n").unwrap();
        assert_eq!(g.graph.nodes(), 1_000_004);
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = parse_text("a -> b\nb = x\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 5));
        let err = parse_text("a -> b\na = 2\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 1));
        assert!(err.message.contains("line 1"), "{err}");
        let err = parse_text("b = 1\nb -> c\n").unwrap_err();
        assert_eq!(err.line, 2);
        let err = parse_text("a ->\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 5));
        let err = parse_text("a b\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 3));
        let err = parse_text("x = 1 2\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 7));
        let err = parse_text("x = 99999999999\n").unwrap_err();
        assert!(err.message.contains("out of range"));
        let err = parse_text("  = 3\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 3));
    }

    #[test]
    fn edge_lists_are_numeric() {
        let g = parse_edges("0 1\n0 2\n# c\n2 = -4\n").unwrap();
        assert_eq!(g.graph.nodes(), 3);
        assert_eq!(g.graph.stake(2), Some(-4));
        assert_eq!(g.graph.stake(1), Some(0));
        let err = parse_edges("0 1\n1 -2\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 3));
        let err = parse_edges("7\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 2));
        let err = parse_edges("0 1 2\n").unwrap_err();
        assert_eq!((err.line, err.column), (1, 5));
    }
}
