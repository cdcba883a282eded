//! `gamegraph serve`: the web page and its JSON API.

use std::path::PathBuf;

use anyhow::{bail, Result};
use gamegraph_games::GAMES;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address or host name to listen on (localhost, 127.0.0.1, 0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// A database directory written by 'build GAME --db DIR' (Oware score files, chess endgame
    /// tables), for exact values of that game; as GAME=DIR, or DIR alone to let the directory
    /// say whose it is. Repeat it for several games.
    #[arg(long, value_name = "[GAME=]DIR", visible_alias = "tables")]
    pub db: Vec<String>,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let mut config = gamegraph_web::ServerConfig::default();
    for given in &args.db {
        let (game, dir) = database_of(given)?;
        config = config.with_database(game, dir);
    }
    // A name (localhost) or an address; the first address it resolves to.
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&(args.host.as_str(), args.port))
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            anyhow::anyhow!("--host {}: not an address or a name this machine resolves", args.host)
        })?;
    gamegraph_web::serve(addr, config, |bound| {
        println!("gamegraph: serving http://{bound}/ (Ctrl-C to stop)");
    })
    .map_err(|e| anyhow::anyhow!("cannot serve on {addr}: {e}"))
}

/// The game and directory of a `--db` value, the directory opened (a bad one is refused now
/// rather than at the first request): `GAME=DIR`, or `DIR` for the game whose databases it
/// holds.
fn database_of(given: &str) -> Result<(&'static str, PathBuf)> {
    if let Some((name, dir)) = given.split_once('=').filter(|(name, _)| gamegraph_games::entry(name).is_ok())
    {
        let databases = crate::terminal::database_directory(name, "serve --db")?;
        databases.check(dir.as_ref())?;
        return Ok((gamegraph_games::entry(name)?.name, PathBuf::from(dir)));
    }
    let dir = PathBuf::from(given);
    let mut refused = Vec::new();
    for entry in GAMES {
        let Some(databases) = gamegraph_games::databases(entry) else { continue };
        match databases.check(&dir) {
            Ok(()) => return Ok((entry.name, dir)),
            Err(e) => refused.push(format!("as {}: {e}", databases.describe())),
        }
    }
    bail!("--db {given}: not a database directory ({})", refused.join("; "))
}
