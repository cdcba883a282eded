//! `gamegraph serve`: the web page and its JSON API.

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address or host name to listen on (localhost, 127.0.0.1, 0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// A directory of Oware score files (from 'build oware --db DIR') for exact Oware values.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// A directory of chess endgame tables (from 'build chess --tables SPEC --db DIR') for exact
    /// distances to mate.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.db {
        // Refuse a bad database now rather than on the first Oware request.
        gamegraph_games::oware::Database::open(dir)?;
    }
    let mut config = gamegraph_web::ServerConfig::new(args.db.clone());
    if let Some(dir) = &args.tables {
        gamegraph_games::chess::Tablebase::shared(dir)?;
        config = config.with_database("chess", dir.clone());
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
