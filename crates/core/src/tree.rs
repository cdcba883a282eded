//! Game trees as in the seed document: `A(B(4 9 6) C(3 7 5) D(8 2 10))`, root MAX, leaves valued
//! from MAX's point of view. A tree is searched by the same [`crate::search`] code as any game, so
//! what a student sees here is what the engine does.

use std::fmt::Write as _;

use crate::game::{Evaluate, Game, MoveOrdering, Payoff, Stake};
use crate::graph_text::ParseError;
use crate::rng::SplitMix64;
use crate::score::INFINITY;
use crate::search::{search, Algorithm, SearchOptions, SearchResult, StepKind};
use crate::search_context::SearchContext;

/// Deepest nesting accepted, so that parsing and searching never exhaust the stack.
pub const MAX_DEPTH: usize = 2_000;

/// Largest leaf magnitude accepted, so that negation and sums stay far from overflow.
pub const MAX_LEAF: i64 = 1_000_000_000;

/// A node of a [`Tree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    /// The node's name, if it has one.
    pub label: Option<String>,
    /// The children's ids, in written order; empty for a leaf.
    pub children: Vec<u32>,
    /// A leaf's value from MAX's point of view.
    pub value: Option<i32>,
    /// Distance from the root: even depths are MAX to move, odd ones MIN.
    pub depth: u32,
}

/// A game tree; node 0 is the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    nodes: Vec<TreeNode>,
}

impl Tree {
    /// Reads the tree notation: a leaf is an integer; an inner node is an optional label followed
    /// by its children in parentheses, separated by spaces or commas.
    pub fn parse(source: &str) -> Result<Tree, ParseError> {
        let mut parser =
            TreeParser { chars: source.chars().collect(), at: 0, line: 1, column: 1, nodes: Vec::new() };
        parser.skip_space();
        parser.node(0)?;
        parser.skip_space();
        if parser.at < parser.chars.len() {
            return Err(parser.error(format!("unexpected '{}' after the tree", parser.chars[parser.at])));
        }
        Ok(Tree { nodes: parser.nodes })
    }

    /// A uniform tree with `branching` children per inner node, leaves at `depth`, leaf values drawn
    /// from `low..=high` by a generator seeded with `seed` (same seed, same tree).
    pub fn random(branching: u32, depth: u32, low: i32, high: i32, seed: u64) -> Tree {
        let mut rng = SplitMix64(seed);
        let mut nodes = vec![TreeNode { label: None, children: Vec::new(), value: None, depth: 0 }];
        let mut next = 0;
        while next < nodes.len() {
            let d = nodes[next].depth;
            if d == depth {
                let span = (high as i64 - low as i64 + 1).max(1) as u64;
                nodes[next].value = Some((low as i64 + rng.below(span) as i64) as i32);
            } else {
                for _ in 0..branching.max(1) {
                    let id = nodes.len() as u32;
                    nodes.push(TreeNode { label: None, children: Vec::new(), value: None, depth: d + 1 });
                    nodes[next].children.push(id);
                }
            }
            next += 1;
        }
        Tree { nodes }
    }

    /// The tree in the notation [`Tree::parse`] reads: `(( 4 9 6) ...)` with labels where nodes
    /// have them.
    pub fn to_notation(&self) -> String {
        let mut out = String::new();
        // An explicit stack: (node, next child to write).
        let mut stack = vec![(0u32, 0usize)];
        while let Some((id, next)) = stack.pop() {
            let node = &self.nodes[id as usize];
            if next == 0 {
                if let Some(label) = &node.label {
                    out.push_str(label);
                }
                if let Some(v) = node.value {
                    let _ = write!(out, "{v}");
                    continue;
                }
                out.push('(');
            }
            if next < node.children.len() {
                if next > 0 {
                    out.push(' ');
                }
                stack.push((id, next + 1));
                stack.push((node.children[next], 0));
            } else {
                out.push(')');
            }
        }
        out
    }

    /// Every node, by id.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// The name of the move to child `index` of `node`: the child's label, else its 0-based index.
    pub fn move_name(&self, node: u32, index: u32) -> String {
        let child = self.nodes[node as usize].children[index as usize];
        self.nodes[child as usize].label.clone().unwrap_or_else(|| index.to_string())
    }

    /// The name of the node reached by `path` (child indices from the root): its moves' names
    /// joined with `/`; the root is the empty string.
    pub fn path_name(&self, path: &[u32]) -> String {
        let mut node = 0u32;
        let mut parts = Vec::with_capacity(path.len());
        for &i in path {
            parts.push(self.move_name(node, i));
            node = self.nodes[node as usize].children[i as usize];
        }
        parts.join("/")
    }

    /// The node reached by `path`.
    pub fn node_at(&self, path: &[u32]) -> u32 {
        path.iter().fold(0u32, |node, &i| self.nodes[node as usize].children[i as usize])
    }

    /// The minimax value of every node, from MAX's point of view.
    pub fn minimax_values(&self) -> Vec<i32> {
        let mut values = vec![0; self.nodes.len()];
        // Children always have larger ids than their parent, so a reverse sweep is bottom-up.
        for id in (0..self.nodes.len()).rev() {
            let node = &self.nodes[id];
            values[id] = match node.value {
                Some(v) => v,
                None => {
                    let children = node.children.iter().map(|&c| values[c as usize]);
                    if node.depth.is_multiple_of(2) {
                        children.max().unwrap_or(0)
                    } else {
                        children.min().unwrap_or(0)
                    }
                }
            };
        }
        values
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.value.is_some()).count()
    }

    /// Searches the whole tree with `algorithm`, children visited in `order`.
    pub fn analyze(&self, algorithm: Algorithm, order: MoveOrder) -> TreeAnalysis {
        let game = TreeGame::new(self, order);
        let options = SearchOptions { algorithm, depth: u32::MAX, record_pruned: true, trace: true };
        let result = search(&game, &0, options);
        TreeAnalysis::new(self, algorithm, order, result)
    }
}

impl Tree {
    /// Leaves evaluated by `algorithm` with children in `order`, without recording a trace (for
    /// measurements on large trees).
    pub fn analyze_counts(&self, algorithm: Algorithm, order: MoveOrder) -> u64 {
        let game = TreeGame::new(self, order);
        search(&game, &0, SearchOptions::new(algorithm, u32::MAX)).leaves
    }
}

/// In which order a node's children are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MoveOrder {
    /// As written.
    #[default]
    Natural,
    /// Best child first for the player to move (the most pruning).
    Best,
    /// Worst child first (no pruning at all on uniform trees).
    Worst,
}

impl MoveOrder {
    /// `natural`, `best` or `worst`.
    pub fn name(self) -> &'static str {
        match self {
            MoveOrder::Natural => "natural",
            MoveOrder::Best => "best",
            MoveOrder::Worst => "worst",
        }
    }

    /// Every order, in documentation order.
    pub const ALL: [MoveOrder; 3] = [MoveOrder::Natural, MoveOrder::Best, MoveOrder::Worst];
}

impl std::fmt::Display for MoveOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for MoveOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MoveOrder::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown order '{s}' (expected natural, best or worst)"))
    }
}

/// A tree seen as a [`Game`]: positions are node ids, moves are child indices.
struct TreeGame<'t> {
    tree: &'t Tree,
    order: MoveOrder,
    values: Vec<i32>,
}

impl<'t> TreeGame<'t> {
    fn new(tree: &'t Tree, order: MoveOrder) -> Self {
        let values = match order {
            MoveOrder::Natural => Vec::new(),
            _ => tree.minimax_values(),
        };
        Self { tree, order, values }
    }

    /// `value` (MAX's view) from the point of view of the player to move at `node`.
    fn for_mover(&self, node: u32, value: i32) -> i32 {
        if self.tree.nodes[node as usize].depth.is_multiple_of(2) {
            value
        } else {
            -value
        }
    }
}

impl Game for TreeGame<'_> {
    type Position = u32;
    type Move = u32;

    fn start(&self) -> u32 {
        0
    }

    fn moves(&self, pos: &u32, moves: &mut Vec<u32>) {
        moves.extend(0..self.tree.nodes[*pos as usize].children.len() as u32);
    }

    fn play(&self, pos: &u32, mv: u32) -> u32 {
        self.tree.nodes[*pos as usize].children[mv as usize]
    }

    fn final_loss(&self, pos: &u32) -> Stake {
        -self.for_mover(*pos, self.tree.nodes[*pos as usize].value.unwrap_or(0))
    }
}

impl Payoff for TreeGame<'_> {
    fn final_score(&self, pos: &u32) -> i32 {
        -self.final_loss(pos)
    }
}

impl Evaluate for TreeGame<'_> {
    fn evaluate(&self, _pos: &u32) -> i32 {
        0 // never called: trees are searched to their leaves
    }
}

impl MoveOrdering for TreeGame<'_> {
    fn order_moves(&self, pos: &u32, moves: &mut [u32], _depth: u32, _context: &mut SearchContext<'_>) {
        if self.order == MoveOrder::Natural {
            return;
        }
        let children = &self.tree.nodes[*pos as usize].children;
        // Child values for the player to move here: higher is better for him.
        let key = |mv: &u32| self.for_mover(*pos, self.values[children[*mv as usize] as usize]);
        match self.order {
            MoveOrder::Best => moves.sort_by_key(|mv| std::cmp::Reverse(key(mv))),
            MoveOrder::Worst => moves.sort_by_key(key),
            MoveOrder::Natural => {}
        }
    }
}

/// One step of a tree search, with values and window from MAX's point of view; serialised as
/// front ends show it (`step` is `enter`, `leaf`, `update`, `exit` or `prune`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TreeStep {
    /// What happened.
    #[serde(rename = "step")]
    pub kind: StepKind,
    /// The node's path name (see [`Tree::path_name`]).
    pub node: String,
    /// The node's id.
    pub id: u32,
    /// Lower end of the window; `None` is minus infinity.
    pub alpha: Option<i32>,
    /// Upper end of the window; `None` is plus infinity.
    pub beta: Option<i32>,
    /// The value found, for leaves and exits.
    pub value: Option<i32>,
}

/// The result of [`Tree::analyze`], from MAX's point of view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeAnalysis {
    /// The algorithm run.
    pub algorithm: Algorithm,
    /// The order children were visited in.
    pub order: MoveOrder,
    /// The root's value.
    pub value: i32,
    /// The best root move's name (label, or 0-based index), `None` for a lone leaf.
    pub best: Option<String>,
    /// Leaves evaluated.
    pub leaves: u64,
    /// Nodes visited.
    pub nodes: u64,
    /// Path names of the subtrees not searched.
    pub pruned: Vec<String>,
    /// Every step.
    pub trace: Vec<TreeStep>,
    /// The value returned by each visited node (a bound where the search cut), by node id.
    pub returned: Vec<Option<i32>>,
    /// Whether each node lies in a pruned subtree, by node id.
    pub is_pruned: Vec<bool>,
}

impl TreeAnalysis {
    fn new(tree: &Tree, algorithm: Algorithm, order: MoveOrder, result: SearchResult<u32>) -> Self {
        let to_max = |path: &[u32], v: i32| if path.len().is_multiple_of(2) { v } else { -v };
        let bound = |v: i32| (v.abs() != INFINITY).then_some(v);
        let mut returned = vec![None; tree.nodes.len()];
        let mut is_pruned = vec![false; tree.nodes.len()];
        let trace = result
            .trace
            .iter()
            .map(|s| {
                let value = s.value.map(|v| to_max(&s.path, v));
                let (alpha, beta) = if s.path.len() % 2 == 0 {
                    (bound(s.alpha), bound(s.beta))
                } else {
                    (bound(s.beta).map(|b| -b), bound(s.alpha).map(|a| -a))
                };
                let node = tree.node_at(&s.path);
                match s.kind {
                    StepKind::Leaf | StepKind::Exit => returned[node as usize] = value,
                    StepKind::Prune => mark_subtree(tree, node, &mut is_pruned),
                    StepKind::Enter | StepKind::Update => {}
                }
                TreeStep { kind: s.kind, node: tree.path_name(&s.path), id: node, alpha, beta, value }
            })
            .collect();
        Self {
            algorithm,
            order,
            value: result.value,
            best: result.best.map(|mv| tree.move_name(0, mv)),
            leaves: result.leaves,
            nodes: result.nodes,
            pruned: result.pruned.iter().map(|p| tree.path_name(p)).collect(),
            trace,
            returned,
            is_pruned,
        }
    }

    /// Graphviz drawing: values on nodes, pruned subtrees grey with dashed edges.
    pub fn to_dot(&self, tree: &Tree) -> String {
        let mut out = String::from("digraph tree {\n  node [shape=box, fontname=\"Helvetica\"];\n");
        for (id, node) in tree.nodes.iter().enumerate() {
            let shape = if node.value.is_some() {
                "plaintext"
            } else if node.depth.is_multiple_of(2) {
                "triangle"
            } else {
                "invtriangle"
            };
            let name = node.label.clone().unwrap_or_default();
            let value = match (self.returned[id], node.value) {
                (Some(v), _) => v.to_string(),
                (None, Some(v)) => v.to_string(),
                (None, None) => "?".into(),
            };
            let style = if self.is_pruned[id] { ", color=grey, fontcolor=grey" } else { "" };
            let label = if name.is_empty() { value } else { format!("{name}\\n{value}") };
            let _ = writeln!(out, "  n{id} [label=\"{label}\", shape={shape}{style}];");
            for &c in &node.children {
                let style = if self.is_pruned[c as usize] { " [style=dashed, color=grey]" } else { "" };
                let _ = writeln!(out, "  n{id} -> n{c}{style};");
            }
        }
        out.push_str("}\n");
        out
    }
}

fn mark_subtree(tree: &Tree, root: u32, marks: &mut [bool]) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        marks[n as usize] = true;
        stack.extend(&tree.nodes[n as usize].children);
    }
}

/// Recursive-descent reader for the tree notation, tracking line and column.
struct TreeParser {
    chars: Vec<char>,
    at: usize,
    line: usize,
    column: usize,
    nodes: Vec<TreeNode>,
}

impl TreeParser {
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.line, self.column, message)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.at += 1;
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c.is_whitespace() || c == ',') {
            self.bump();
        }
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|&c| keep(c)) {
            s.push(c);
            self.bump();
        }
        s
    }

    /// Reads one node at `depth`, returning its id.
    fn node(&mut self, depth: usize) -> Result<u32, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("the tree is nested deeper than {MAX_DEPTH} levels")));
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(TreeNode { label: None, children: Vec::new(), value: None, depth: depth as u32 });
        match self.peek() {
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let (line, column) = (self.line, self.column);
                let text = self.take_while(|c| c == '-' || c.is_ascii_digit());
                let value = text
                    .parse::<i64>()
                    .ok()
                    .filter(|v| v.unsigned_abs() <= MAX_LEAF as u64)
                    .ok_or_else(|| {
                        ParseError::new(
                            line,
                            column,
                            format!("'{text}' is not a leaf value (an integer of at most 10^9 in magnitude)"),
                        )
                    })?;
                self.nodes[id as usize].value = Some(value as i32);
                return Ok(id);
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let (line, column) = (self.line, self.column);
                let label = self.take_while(|c| c.is_alphanumeric() || c == '_' || c == '\'');
                self.skip_space();
                if self.peek() != Some('(') {
                    let message =
                        format!("label '{label}' must be followed by '(' and children (leaves are integers)");
                    return Err(ParseError::new(line, column, message));
                }
                self.nodes[id as usize].label = Some(label);
            }
            Some('(') => {}
            Some(c) => return Err(self.error(format!("expected a leaf value, a label or '(', found '{c}'"))),
            None => return Err(self.error("expected a tree, found the end of the input")),
        }
        self.bump(); // '('
        self.skip_space();
        while self.peek() != Some(')') {
            if self.peek().is_none() {
                return Err(self.error("missing ')'"));
            }
            let child = self.node(depth + 1)?;
            self.nodes[id as usize].children.push(child);
            self.skip_space();
        }
        if self.nodes[id as usize].children.is_empty() {
            return Err(self.error("a node needs at least one child: '()' is empty"));
        }
        self.bump(); // ')'
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        let source = "A(B(4 9 6) C(3 7 5) D(8 2 10))";
        assert_eq!(Tree::parse(source).unwrap().to_notation(), source);
        let random = Tree::random(3, 4, -9, 9, 7);
        let text = random.to_notation();
        let parsed = Tree::parse(&text).unwrap();
        assert_eq!(parsed.to_notation(), text);
        assert_eq!(parsed.leaf_count(), 81);
        assert_eq!(parsed.minimax_values()[0], random.minimax_values()[0]);
        assert_eq!(Tree::parse("7").unwrap().to_notation(), "7");
    }
}
