//! A dense layer ([`gamegraph::dense::DenseLayer`]) solved over a cluster, as
//! [`gamegraph::dense::solve_layer`] solves it on one machine: each worker takes a range of the
//! indices, counts their moves and finds their exits in its own forward pass, and the kernel
//! runs from the finals and exits; each worker ends with the labels of its range.
//!
//! - [`solve_layer`]: one layer, each worker keeping its range's labels;
//! - [`solve_game`]: a user's whole game (a [`DenseIndex`] with [`Unmoves`]), its solution
//!   gathered on process 0;
//! - [`build_layers`]: a database built layer after layer (Oware by stone count), each worker
//!   writing its range of each layer's file.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use gamegraph::dense::{
    forward_pass, CounterCells, DenseError, DenseLayer, GameLayer, LayerSeeds, LayeredBuild, OwnedRange,
    Reached, ShareFile, StoredRange,
};
use gamegraph::game::{DenseIndex, Unmoves};
use gamegraph::retrograde::DenseStore;
use gamegraph::{Model, Solution};
use timely::worker::Worker;

use crate::blocks::write_blocks;
use crate::exits::{complete_asking, forward_asking};
use crate::kernel::{
    all_levels, barrier, everyone, gather, label_of, propagate, to_first, Node, Ownership, Share,
};
use crate::{Cluster, ClusterError};

/// Solves `layer` in the minimax model on this worker and the others (every worker calls it
/// with the same layer), into a store of type `S` as [`gamegraph::dense::solve_layer`] would on
/// one machine: returns the ranges of indices this worker owns (one in each of the layer's
/// segments, [`DenseLayer::segment`]) and the labels of their indices, at each range's local
/// offset (the store's other cells are never decided). The forward pass is the one-machine one,
/// run on each of this worker's ranges (on the process's rayon threads), or, for a layer that
/// holds only this worker's share of the layers its moves reach ([`DenseLayer::asks`]), one
/// that asks the owners of the positions they reach ([`crate::exits`]); an error (a position
/// with more moves than `S` counts) is this worker's, the others may still be waiting for it.
/// `progress` is told of two units an index this worker owns, as the one-machine solve tells
/// of two an index of the layer: one as its forward pass goes, one when the kernel is done.
pub fn solve_layer<L, S>(
    worker: &mut Worker,
    layer: Arc<L>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<OwnedRange>, S), DenseError>
where
    L: DenseLayer + Send + Sync + 'static,
    S: CounterCells<Node = Node> + 'static,
{
    let (index, peers) = (worker.index(), worker.peers());
    let ownership = layer_ownership(&*layer, peers);
    let ranges = ownership.owned(index, layer.len());
    let len = ranges.last().map_or(0, |r| r.local + r.len);
    let mut store = S::with_len(len);
    let seeds = if layer.asks() {
        forward_asking(worker, &layer, ownership, &ranges, &mut store, progress)?
    } else {
        let mut seeds = LayerSeeds::default();
        for range in &ranges {
            let cells = &mut store.cells_mut()[range.local..range.local + range.len];
            seeds.append(forward_pass::<L, S, Node>(&*layer, range.start, cells, progress)?);
        }
        seeds
    };
    let levels = all_levels(worker, seeds.levels());
    let walked = Arc::clone(&layer);
    let predecessors = move |local: usize, out: &mut Vec<Node>| {
        let mut scratch = L::Scratch::default();
        walked.predecessors(ownership.global(index, local), &mut scratch, |p| out.push(p));
    };
    let kept = Box::new(move |local: usize| layer.exit_kept(ownership.global(index, local)));
    let share = Share { index, ownership, store, predecessors, kept };
    let store = propagate(worker, share, &levels, seeds.by_level(len, &|_| {}));
    progress(ranges.iter().map(|r| r.len as u64).sum());
    Ok((ranges, store))
}

/// Which worker owns which index of `layer`, over `peers` workers: consecutive ranges within
/// each of its segments.
fn layer_ownership<L: DenseLayer>(layer: &L, peers: usize) -> Ownership {
    Ownership::segments(layer.len(), layer.segment(), peers)
}

/// Solves every position of `game`'s dense index on the workers of `cluster`, as
/// [`gamegraph::dense::solve_game`] does on one machine, with the same labels: each worker
/// counts the moves of its range of the index and walks back from it with un-moves, and the
/// workers then send their labels to process 0. Every process calls it with the same game; process 0
/// gets the solution, the others `None`.
///
/// Process 0 holds every label at the end, so the game must fit one machine's [`Solution`];
/// a game whose labels do not is solved a range a worker with [`solve_layer`] on a
/// [`GameLayer`], each worker keeping (or writing) its own range.
pub fn solve_game<G>(game: Arc<G>, cluster: &Cluster) -> Result<Option<Solution<u64>>, ClusterError>
where
    G: DenseIndex + Unmoves + Send + Sync + 'static,
{
    let positions = game.index_len();
    let layer = Arc::new(GameLayer(game));
    let results = cluster.run(move |worker| {
        let (index, ownership) = (worker.index(), layer_ownership(&*layer, worker.peers()));
        // A game layer has no exits, and its store counts any number of moves.
        let (_, store) = solve_layer::<_, DenseStore<u64>>(worker, Arc::clone(&layer), &|_| {})
            .expect("a whole game solves without a dense error");
        gather(worker, index, ownership, &store)
    })?;
    if cluster.process != 0 {
        return Ok(None);
    }
    let mut labels = vec![None; usize::try_from(positions).expect("the labels fit in memory")];
    for decided in results.into_iter().flatten() {
        labels[decided.0 as usize] = Some(label_of(&decided));
    }
    Ok(Some(Solution::from_labels(Model::Minimax, labels)))
}

/// What the leader of [`build_layers`] tells as the build goes (to show its progress).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LayerEvent {
    /// Layer `layer`, of `positions` indices, starts: the layers before it that did not start
    /// were complete already.
    Started {
        /// The layer.
        layer: usize,
        /// Its indices.
        positions: u64,
    },
    /// The layer that started is `units` further on, out of two units an index in all: the
    /// leader's own progress, taken for every worker's. The units of a layer add up to
    /// `2 * positions` before it is [`LayerEvent::Done`].
    Advanced {
        /// How far.
        units: u64,
    },
    /// Layer `layer` is complete, `seconds` after it started.
    Done {
        /// The layer.
        layer: usize,
        /// Its indices.
        positions: u64,
        /// Seconds it took.
        seconds: f64,
    },
}

/// What [`build_layers`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayersBuilt {
    /// Layers found complete and kept.
    pub resumed: usize,
    /// Layers solved now, in order.
    pub built: Vec<usize>,
}

/// Builds the layers of a layered database up to `last` on every worker of `cluster`, every
/// process sharing the database's directory `dir`: each worker completes what it holds of the
/// layers before that needs it ([`LayeredBuild::completing`], asking the other workers as the
/// forward pass does), solves its range of a layer and writes it: into the layer's partial file
/// by range, or, for a file of compressed blocks ([`LayeredBuild::share_file`]), the blocks of
/// its range of the file ([`crate::blocks`]). Then process 0's first worker (the leader) makes
/// the file complete, and the others read it before the next layer. `open(leader)` opens the build
/// as a worker sees it; the leader opens it first, so that it clears what an interrupted run left
/// before the others look. The leader tells `event` of each layer it starts and finishes.
/// Process 0 gets what was built, the other processes `None`.
///
/// Processes that do not share `dir` would each write only their ranges of a file that the
/// leader completes as if all were there: before any layer is solved, every worker checks that it
/// finds a file the leader has just written into `dir`, and if one does not, every process stops
/// with [`ClusterError::DirectoryNotShared`] and nothing is solved.
///
/// A worker that cannot go on (its storage fails) would leave the others waiting for it: it
/// prints the error and ends its process, and the other processes then stop on the broken
/// connection.
pub fn build_layers<B, O, E>(
    cluster: &Cluster,
    dir: &Path,
    last: usize,
    open: O,
    event: E,
) -> Result<Option<LayersBuilt>, ClusterError>
where
    B: LayeredBuild,
    O: Fn(bool) -> Result<B, B::Error> + Send + Sync + 'static,
    E: Fn(LayerEvent) + Send + Sync + 'static,
{
    let process = cluster.process;
    let shared = dir.to_path_buf();
    let results = cluster.run(move |worker| {
        let fail = |e: &dyn std::fmt::Display| -> ! {
            eprintln!("error: {e}");
            std::process::exit(1)
        };
        let leader = process == 0 && worker.index() == 0;
        let opened = leader.then(|| open(true).unwrap_or_else(|e| fail(&e)));
        let unshared = processes_not_sharing(worker, process, leader, &shared).unwrap_or_else(|e| fail(&e));
        if !unshared.is_empty() {
            return Err(unshared);
        }
        let mut build = opened.unwrap_or_else(|| open(false).unwrap_or_else(|e| fail(&e)));
        let (index, peers) = (worker.index(), worker.peers());
        let share = move |r: Reached| Ownership::segments(r.len, r.segment, peers).owned(index, r.len);
        build.hold_share(Arc::new(share)).unwrap_or_else(|e| fail(&e));
        let mut built = Vec::new();
        // The layers left (after the first, some may be complete already).
        while build.next() <= last {
            let n = build.next();
            let started = Instant::now();
            // What this worker holds of the layers before, completed (a chess table's share
            // read from a version 4 file).
            while let Some(completing) = build.completing() {
                let completing = Arc::new(completing);
                complete_asking(worker, &completing).unwrap_or_else(|e| fail(&e));
                build.completed(&completing);
            }
            let layer = Arc::new(build.layer());
            let positions = layer.len();
            let told = Told::new(positions, worker.peers());
            let progress = |units| {
                if leader {
                    let units = told.tell(units);
                    if units > 0 {
                        event(LayerEvent::Advanced { units });
                    }
                }
            };
            if leader {
                event(LayerEvent::Started { layer: n, positions });
            }
            let (ranges, store) = solve_layer::<_, B::Store>(worker, Arc::clone(&layer), &progress)
                .unwrap_or_else(|e| fail(&e));
            let path = build.partial_path();
            let ownership = layer_ownership(&*layer, worker.peers());
            // What the layer reads of the layers before it is not needed to finish it.
            let blocked = match build.share_file(layer, &ranges, store) {
                ShareFile::ByRange(layer, store) => {
                    let mut file = None;
                    build
                        .stored(&layer, &ranges, store, &mut |range| write_range(&path, &mut file, &range))
                        .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
                    None
                }
                ShareFile::Blocked(file, entries) => {
                    let (file, part) = (Arc::new(file), part_path(&path, worker.index()));
                    let (order, lens) =
                        write_blocks(worker, Arc::clone(&file), ownership, &ranges, entries, &part)
                            .unwrap_or_else(|e| fail(&format!("{}: {e}", part.display())));
                    Some((file, order, to_first(worker, lens)))
                }
            };
            barrier(worker);
            if leader {
                match blocked {
                    None => build.finish(n),
                    Some((file, order, mut lens)) => {
                        lens.sort_unstable();
                        let blocks: Vec<(usize, u64)> =
                            lens.into_iter().map(|(_, w, len)| (w, len)).collect();
                        let parts: Vec<_> = (0..worker.peers()).map(|w| part_path(&path, w)).collect();
                        build.finish_blocked(n, &file, &order, &blocks, &parts)
                    }
                }
                .unwrap_or_else(|e| fail(&e));
                event(LayerEvent::Advanced { units: told.rest() });
                event(LayerEvent::Done { layer: n, positions, seconds: started.elapsed().as_secs_f64() });
            }
            barrier(worker);
            if !leader {
                build.reload(n).unwrap_or_else(|e| fail(&e));
            }
            built.push(n);
        }
        Ok(leader.then_some(LayersBuilt { resumed: last + 1 - built.len(), built }))
    })?;
    let mut built = None;
    for result in results {
        match result {
            Ok(b) => built = built.or(b),
            Err(processes) => {
                return Err(ClusterError::DirectoryNotShared { dir: dir.display().to_string(), processes })
            }
        }
    }
    Ok(built)
}

/// What the leader of [`build_layers`] has told of a layer's progress: its own units, times the
/// number of workers, never past the layer's `2 * positions` units until it is done.
struct Told {
    total: u64,
    peers: u64,
    told: std::sync::atomic::AtomicU64,
}

impl Told {
    fn new(positions: u64, peers: usize) -> Self {
        Self { total: 2 * positions, peers: peers as u64, told: Default::default() }
    }

    /// The units to show for `units` of the leader's own: as many for each worker, but one
    /// short of the whole at most, the rest being told when the layer is done.
    fn tell(&self, units: u64) -> u64 {
        use std::sync::atomic::Ordering::Relaxed;
        let ceiling = self.total.saturating_sub(1);
        let next = |told: u64| (told + units * self.peers).min(ceiling).max(told);
        let before =
            self.told.fetch_update(Relaxed, Relaxed, |told| Some(next(told))).expect("always updated");
        next(before) - before
    }

    /// The units left to tell, once the layer is done.
    fn rest(&self) -> u64 {
        self.total - self.told.swap(self.total, std::sync::atomic::Ordering::Relaxed)
    }
}

/// The file the leader of [`build_layers`] writes into the build's directory for every worker to
/// find there.
const SHARED_CHECK: &str = ".building-shared-check";

/// The processes that do not see the directory the leader sees as `dir` (none when they all
/// share it): the leader writes a fresh token into it, every worker reads it back, and every
/// worker learns who did not find it. Every worker calls it once; the leader's write may fail.
fn processes_not_sharing(
    worker: &mut Worker,
    process: usize,
    leader: bool,
    dir: &Path,
) -> std::io::Result<Vec<usize>> {
    let check = dir.join(SHARED_CHECK);
    let mut written = Vec::new();
    if leader {
        let token = fresh_token();
        std::fs::write(&check, token.to_string())
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", check.display())))?;
        written.push(token);
    }
    let token = everyone(worker, written);
    let found = std::fs::read_to_string(&check).ok().and_then(|text| text.trim().parse::<u64>().ok());
    let sees = found.is_some() && found.as_ref() == token.first();
    let mut unshared: Vec<usize> =
        everyone(worker, vec![(process, sees)]).into_iter().filter(|p| !p.1).map(|p| p.0).collect();
    unshared.sort_unstable();
    unshared.dedup();
    if leader {
        // Every worker has read it by now.
        std::fs::remove_file(&check)?;
    }
    Ok(unshared)
}

/// A number no earlier build's check file holds (in all likelihood): the clock and the process
/// id, through the standard library's randomly keyed hasher.
fn fresh_token() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    hasher.write_u128(now.as_nanos());
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// The file worker `index` writes its compressed blocks of a layer into: named after the
/// layer's partial file.
fn part_path(partial: &Path, index: usize) -> std::path::PathBuf {
    let mut name = partial.as_os_str().to_owned();
    name.push(format!(".{index}"));
    name.into()
}

/// Writes one worker's `range` into the partial file at `path`, opened into `file` by its first
/// part (and made its full length by whichever worker comes first; the others write their ranges
/// beside).
fn write_range(
    path: &std::path::Path,
    file: &mut Option<std::fs::File>,
    range: &StoredRange,
) -> std::io::Result<()> {
    if file.is_none() {
        let opened = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path)?;
        opened.set_len(range.file_len)?;
        *file = Some(opened);
    }
    let file = file.as_ref().expect("opened above");
    std::os::unix::fs::FileExt::write_all_at(file, &range.bytes, range.offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leader's units stand for every worker's, never fill the bar before the layer is
    /// done, and add up to two units an index once the rest is told.
    #[test]
    fn the_leader_tells_a_layer_whole_and_never_beyond() {
        let told = Told::new(10, 2);
        let shown: Vec<u64> = [4, 4, 4, 1].into_iter().map(|units| told.tell(units)).collect();
        assert_eq!(shown, [8, 8, 3, 0]);
        assert_eq!(told.rest(), 1);
        assert_eq!(told.rest(), 0, "told once");
        let empty = Told::new(0, 3);
        assert_eq!((empty.tell(5), empty.rest()), (0, 0));
    }
}
