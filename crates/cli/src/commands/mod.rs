//! One module per command, each owning its arguments.

pub mod bench;
pub mod build;
pub mod games;
pub mod graph;
pub mod perft;
pub mod play;
pub mod search;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod tree;
pub mod uci;
pub mod verify;
