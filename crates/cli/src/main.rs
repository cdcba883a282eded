//! The `gamegraph` command: solve game trees, game graphs and built-in games from the terminal.
//!
//! Every command only parses its arguments, calls the `gamegraph` library and prints; the
//! algorithms live in the library so the web front end and other programs get the same answers.

mod bench;
mod game_commands;
mod graph_command;
mod io;
mod tree_command;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Solve two-player, perfect-information games: game trees with minimax and alpha-beta, game
/// graphs by retrograde analysis (win / lose / draw, stakes, minimax values, cycles included),
/// and built-in games (tic-tac-toe, Nim).
#[derive(Parser, Debug)]
#[command(name = "gamegraph", version, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Minimax or alpha-beta on a game tree such as 'A(B(4 9 6) C(3 7 5) D(8 2 10))' (root MAX).
    Tree(TreeArgs),
    /// Solve a game graph file by retrograde analysis and print every position's value.
    Graph(GraphArgs),
    /// Value of one position of a built-in game, with the value of every move.
    Solve(SolveArgs),
    /// Strongly solve a built-in game (every reachable position) and optionally save the database.
    Build(BuildArgs),
    /// Play a built-in game in the terminal against perfect play.
    Play(PlayArgs),
    /// Measure the engines.
    Bench(BenchArgs),
    /// List the built-in games with their position and move notations.
    Games(GamesArgs),
}

/// Output format shared by the commands.
#[derive(Args, Debug, Clone, Copy)]
struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct TreeArgs {
    /// The tree: leaves are integers (MAX's point of view), inner nodes an optional label and
    /// children in parentheses. '-' reads it from standard input.
    tree: String,
    /// Search algorithm.
    #[arg(long, value_enum, default_value_t = AlgoArg::Alphabeta)]
    algo: AlgoArg,
    /// Order in which children are searched.
    #[arg(long, value_enum, default_value_t = OrderArg::Natural)]
    order: OrderArg,
    /// Print Graphviz (values on nodes, pruned edges dashed) instead of a report.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    /// With --json, include every step of the search (window on entry, value on exit, prunes).
    #[arg(long)]
    trace: bool,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum AlgoArg {
    Minimax,
    Alphabeta,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OrderArg {
    Natural,
    Best,
    Worst,
}

#[derive(Args, Debug)]
struct GraphArgs {
    /// The graph file; '-' reads standard input.
    file: PathBuf,
    /// Value model: outcome (win/lose/draw), stakes (the seed's p) or minimax (zero-sum payoff).
    #[arg(long, value_enum, default_value_t = ModelArg::Stakes)]
    model: ModelArg,
    /// File format: 'text' (a -> b c / b = 3 / a) or 'edges' (u v / u = p, numeric ids).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Print CSV: name,outcome,value,remoteness,best.
    #[arg(long, conflicts_with_all = ["json", "dot"])]
    csv: bool,
    /// Print Graphviz with positions coloured by outcome.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ModelArg {
    Outcome,
    Stakes,
    Minimax,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum FormatArg {
    Text,
    Edges,
}

/// The game and the exploration limit shared by solve, build and play.
#[derive(Args, Debug, Clone)]
struct GameArgs {
    /// The game: see 'gamegraph games'.
    game: String,
    /// Stop with an error when more positions than this are reachable.
    #[arg(long, default_value_t = 20_000_000, value_name = "POSITIONS")]
    limit: usize,
}

#[derive(Args, Debug)]
struct SolveArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position in the game's notation (the start if omitted).
    position: Option<String>,
    /// Read values from a database written by 'gamegraph build --out' instead of solving.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BuildArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Solve everything reachable from this position instead of the start.
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
    /// Write the database here (atomically: a complete file or none).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position to play from (the start if omitted).
    position: Option<String>,
    /// Which moves you make; the engine makes the others.
    #[arg(long, value_enum, default_value_t = Seat::First)]
    you: Seat,
    /// One JSON object per line for each position (its value, every move's value, the move
    /// played), for programs that play through a pipe.
    #[arg(long)]
    json: bool,
}

/// Who makes the moves in `play`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Seat {
    /// You move first (from the given position); the engine answers.
    First,
    /// The engine moves first.
    Second,
    /// You make every move (the engine only shows the values).
    Both,
    /// The engine plays both sides.
    None,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(subcommand)]
    what: BenchCommand,
}

#[derive(Subcommand, Debug)]
enum BenchCommand {
    /// Build a reproducible random graph with cycles and solve it in every model.
    Graph(BenchGraphArgs),
}

#[derive(Args, Debug)]
struct BenchGraphArgs {
    /// Number of positions.
    #[arg(long, default_value_t = 1_000_000)]
    nodes: usize,
    /// Number of moves.
    #[arg(long, default_value_t = 10_000_000)]
    edges: usize,
    /// Random seed: the same seed gives the same graph.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct GamesArgs {
    #[command(flatten)]
    output: JsonFlag,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tree(args) => tree_command::run(&args),
        Command::Graph(args) => graph_command::run(&args),
        Command::Solve(args) => game_commands::solve(&args),
        Command::Build(args) => game_commands::build(&args),
        Command::Play(args) => game_commands::play(&args),
        Command::Bench(BenchArgs { what: BenchCommand::Graph(args) }) => bench::graph(&args),
        Command::Games(args) => game_commands::list(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One line: the chain of causes, outermost first.
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
