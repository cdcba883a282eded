//! The `gamegraph` command: solve game trees, game graphs and built-in games from the terminal.
//!
//! Every command only parses its arguments, calls the `gamegraph` library (positions of built-in
//! games are valued by `gamegraph_games::analysis`, the same oracle the web page asks) and
//! prints. One file per command in `commands/`, each owning its arguments; `args` holds the
//! argument groups several commands share and `terminal` the shared input and output helpers.

mod args;
// First, so that its `say!` macro is in scope in the commands.
#[macro_use]
mod terminal;
mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{bench, build, games, graph, perft, play, search, serve, solve, stats, tree, uci, verify};

/// Solve two-player, perfect-information games: game trees with minimax and alpha-beta, game
/// graphs by retrograde analysis (win / lose / draw, stakes, minimax values, cycles included),
/// and built-in games (tic-tac-toe, Nim, Connect 4, Othello, Awari / Oware with endgame databases,
/// chess with endgame tables of up to five pieces).
#[derive(Parser, Debug)]
#[command(name = "gamegraph", version, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Minimax or alpha-beta on a game tree such as 'A(B(4 9 6) C(3 7 5) D(8 2 10))' (root MAX).
    Tree(tree::TreeArgs),
    /// Solve a game graph file by retrograde analysis and print every position's value.
    Graph(graph::GraphArgs),
    /// Value of one position of a built-in game, with the value of every move.
    Solve(solve::SolveArgs),
    /// Strongly solve a built-in game (every reachable position) and optionally save the database;
    /// for a game with a database directory, build it (Oware by stone count, chess tables).
    Build(build::BuildArgs),
    /// Check a game's database directory (Oware, chess): checksums, and stored values against
    /// their children's.
    Verify(verify::VerifyArgs),
    /// Win / draw / loss counts of a game's database directory (Oware by stone count, chess by
    /// table and side to move, with the longest mate).
    Stats(stats::StatsArgs),
    /// Play a built-in game in the terminal against the engine: perfect play where the game is
    /// solved (whole, by a database, or by an exact search in time), a limited search elsewhere.
    Play(play::PlayArgs),
    /// Depth-limited alpha-beta search of a position (iterative deepening, table, all cores).
    Search(search::SearchArgs),
    /// Count the leaves of the game tree to a depth (perft): the check of a move generator.
    Perft(perft::PerftArgs),
    /// Measure the engines.
    Bench(bench::BenchArgs),
    /// List the built-in games with their notations and options.
    Games(games::GamesArgs),
    /// Serve the web page: play every game with each move's value, watch minimax and alpha-beta
    /// on trees, draw solved graphs (JSON API under /api).
    Serve(serve::ServeArgs),
    /// Speak the Universal Chess Interface on standard input and output, for chess GUIs and
    /// tools (options Hash, Threads, TablebasePath).
    Uci(uci::UciArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tree(args) => tree::run(&args),
        Command::Graph(args) => graph::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Build(args) => build::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Perft(args) => perft::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Games(args) => games::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Uci(args) => uci::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output has gone (`| head -1`): nothing more to say.
        Err(err) if err.downcast_ref::<terminal::OutputClosed>().is_some() => ExitCode::SUCCESS,
        Err(err) => {
            // One line: the chain of causes, outermost first.
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
