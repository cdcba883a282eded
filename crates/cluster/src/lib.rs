//! Retrograde analysis beyond one machine: the kernel of [`gamegraph::retrograde`] run over every
//! worker thread of every process of a cluster, on timely dataflow.
//!
//! Positions are split over the workers by number (worker `n % workers` owns position `n`). Each
//! worker keeps the move counters and labels of its own positions only, and the predecessors of
//! its own positions; the decision of a position is sent, through timely's exchange, to the
//! workers that own its predecessors. The kernel's synchronous rounds are timely timestamps: round
//! `r` is processed once timely's progress tracking says no message of round `r` can still arrive,
//! so there is no barrier or termination protocol of our own, and the labels (outcome, level,
//! remoteness) are the same, bit for bit, as the one-machine kernel's.
//!
//! - [`cluster`]: where a computation runs (one process with several workers, or a host file).
//! - [`kernel`]: one worker's share of a layer and the distributed propagation.
//! - [`heartbeat`]: a process frozen while its machine runs on ends the run on every process.
//! - [`graph`]: explicit game graphs solved over a cluster.
//! - [`dense`]: a layer of a dense index (an Oware stone count) solved over a cluster, each worker
//!   ending with the values of its range.
//! - [`blocks`]: a layer's file written in compressed blocks, each worker compressing the
//!   blocks of its range of the file.
//! - [`exits`]: the forward pass of a layer whose moves that leave it are valued by the owners
//!   of the positions they reach, so that no worker reads another's share.

pub mod blocks;
pub mod cluster;
pub mod dense;
pub mod exits;
pub mod graph;
pub mod heartbeat;
pub mod kernel;

pub use cluster::{Cluster, ClusterError};
