//! Heartbeats between the processes of a run: each process tells every other one, twice a
//! second, that it is alive, and a process that falls silent for longer than the cluster's
//! `hang_timeout` ends the run everywhere.
//!
//! TCP finds a peer that died (its connections close) or a machine that vanished (keepalive
//! probes, [`crate::cluster::DEAD_PEER_TIMEOUT`]), but not a process that is frozen while its
//! machine runs on (stopped by a signal, swapped out, stuck in a debugger): its kernel still
//! answers the probes and acknowledges data. The beats are UDP datagrams to the port of each
//! process's `host:port` line, sent and read by a thread of their own, so they stop only when the
//! whole process stops. When a peer is silent too long, this process shuts its connections down:
//! timely's threads then fail as they do for a dead peer, and the run's error names the silent
//! process.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a process sends its beat to every other process.
pub const BEAT_EVERY: Duration = Duration::from_millis(500);

/// The shortest hang timeout that makes sense: a few heartbeat periods, so that one datagram
/// late or lost does not end a healthy run.
pub const MIN_HANG_TIMEOUT: Duration = Duration::from_secs(2);

/// What a beat says: a tag, then the sender's process index (8 bytes, little-endian).
const TAG: &[u8; 8] = b"ggbeat01";

/// The heartbeat thread of one run; stopped when dropped.
pub(crate) struct Heartbeat {
    stop: Arc<AtomicBool>,
    silent: Arc<Mutex<Option<String>>>,
    thread: Option<JoinHandle<()>>,
    /// The thread's socket and its address, to wake the thread when it must stop instead of
    /// waiting for its read to time out (which would add up to a beat's interval to every run).
    waker: Option<(UdpSocket, SocketAddr)>,
}

impl Heartbeat {
    /// Starts beating from process `me` to the other processes of `hosts` and listening for
    /// theirs; if one is silent for `timeout`, shuts `connections` (this process's connections to
    /// the others) down. The error says why it could not start.
    pub(crate) fn start(
        hosts: &[String],
        me: usize,
        timeout: Duration,
        connections: Vec<TcpStream>,
    ) -> Result<Self, String> {
        let fail = |e: String| format!("heartbeat of process {me}: {e}");
        let socket =
            UdpSocket::bind(&hosts[me]).map_err(|e| fail(format!("cannot bind UDP {}: {e}", hosts[me])))?;
        socket.set_read_timeout(Some(BEAT_EVERY)).map_err(|e| fail(e.to_string()))?;
        let mut peers: Vec<(usize, SocketAddr)> = Vec::new();
        for (index, host) in hosts.iter().enumerate().filter(|&(i, _)| i != me) {
            let address = host.to_socket_addrs().ok().and_then(|mut a| a.next());
            peers.push((index, address.ok_or_else(|| fail(format!("cannot resolve {host}")))?));
        }
        let waker = socket.try_clone().ok().zip(socket.local_addr().ok()).map(|(waker, mut at)| {
            if at.ip().is_unspecified() {
                at.set_ip(if at.is_ipv4() { Ipv4Addr::LOCALHOST.into() } else { Ipv6Addr::LOCALHOST.into() });
            }
            (waker, at)
        });
        let stop = Arc::new(AtomicBool::new(false));
        let silent = Arc::new(Mutex::new(None));
        let beat = Beat {
            socket,
            me,
            peers,
            hosts: hosts.to_vec(),
            timeout,
            connections,
            stop: Arc::clone(&stop),
            silent: Arc::clone(&silent),
        };
        let thread = std::thread::Builder::new()
            .name("gamegraph:heartbeat".into())
            .spawn(move || beat.run())
            .map_err(|e| fail(e.to_string()))?;
        Ok(Self { stop, silent, thread: Some(thread), waker })
    }

    /// Why the run was ended, if a peer fell silent.
    pub(crate) fn silent_peer(&self) -> Option<String> {
        self.silent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some((socket, at)) = &self.waker {
            let _ = socket.send_to(&[], at);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The state of the heartbeat thread.
struct Beat {
    socket: UdpSocket,
    me: usize,
    /// The other processes and where their beats go.
    peers: Vec<(usize, SocketAddr)>,
    hosts: Vec<String>,
    timeout: Duration,
    connections: Vec<TcpStream>,
    stop: Arc<AtomicBool>,
    silent: Arc<Mutex<Option<String>>>,
}

impl Beat {
    /// Sends beats and reads the others' until stopped or until a peer is silent too long.
    fn run(self) {
        let started = Instant::now();
        // Every peer counts as heard at the start: it may still be handing its sockets to timely.
        let mut heard = vec![started; self.hosts.len()];
        let mut sent: Option<Instant> = None;
        let mut message = TAG.to_vec();
        message.extend_from_slice(&(self.me as u64).to_le_bytes());
        let mut buffer = [0u8; 16];
        while !self.stop.load(Ordering::Relaxed) {
            if sent.is_none_or(|at| at.elapsed() >= BEAT_EVERY) {
                // A lost datagram is not an error: the next one follows.
                for (_, address) in &self.peers {
                    let _ = self.socket.send_to(&message, address);
                }
                sent = Some(Instant::now());
            }
            if let Ok((16, _)) = self.socket.recv_from(&mut buffer) {
                if &buffer[..8] == TAG {
                    let from = u64::from_le_bytes(buffer[8..].try_into().expect("8 bytes")) as usize;
                    if let Some(at) = heard.get_mut(from) {
                        *at = Instant::now();
                    }
                }
            }
            if let Some(&(index, _)) = self.peers.iter().find(|(i, _)| heard[*i].elapsed() > self.timeout) {
                self.end_run(index);
                return;
            }
        }
    }

    /// Records why, and shuts every connection of this process down so that the run fails.
    fn end_run(&self, index: usize) {
        let why = format!(
            "process {index} at {} sent no heartbeat for {} s: it is frozen or cut off",
            self.hosts[index],
            self.timeout.as_secs_f64()
        );
        *self.silent.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        for connection in &self.connections {
            let _ = connection.shutdown(std::net::Shutdown::Both);
        }
    }
}
