//! `gamegraph serve`: the web page and its JSON API.

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// A directory of Oware score files (from 'build oware --db DIR') for exact Oware values.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.db {
        // Refuse a bad database now rather than on the first Oware request.
        gamegraph_games::oware::Database::open(dir)?;
    }
    let config = gamegraph_web::ServerConfig { database: args.db.clone() };
    let addr = std::net::SocketAddr::new(args.host, args.port);
    gamegraph_web::serve(addr, config, |bound| {
        println!("gamegraph: serving http://{bound}/ (Ctrl-C to stop)");
    })
    .map_err(|e| anyhow::anyhow!("cannot serve on {addr}: {e}"))
}
