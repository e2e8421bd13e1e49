//! `descent serve [--runs DIR] [--port P] [--bind ADDR]`: the local web application over the
//! runs under DIR (`web`). Prints its address on stdout, then serves until interrupted.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::web::host_check::HostCheck;
use crate::web::play::AgentCache;
use crate::web::{ServerState, router};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The directory whose runs are shown (a run directory, or one holding runs).
    #[arg(long, default_value = "checkpoints")]
    runs: PathBuf,
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. The default serves this machine only; the server has no
    /// authentication, so bind another address only on a network you trust.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
}

/// # Errors
/// The runs directory is missing, or the address cannot be bound.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.runs.is_dir(),
        "--runs {}: not a directory (expected a run directory or one holding runs, e.g. checkpoints)",
        args.runs.display()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async {
        let address = SocketAddr::new(args.bind, args.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| {
                format!("cannot listen on {address} (is the port in use? try --port 0)")
            })?;
        let local = listener.local_addr()?;
        println!(
            "descent serve: http://{local}/ (runs under {})",
            args.runs.display()
        );
        let state = ServerState {
            root: args.runs.clone(),
            agents: AgentCache::new(&args.runs),
            hosts: HostCheck::new(local.ip(), local.port()),
            searches: Default::default(),
        };
        // The first Ctrl-C ends the server at once, requests in flight included (an agent's
        // search among them is at most `MAX_MOVE_TIME`, and is not waited for).
        tokio::select! {
            () = crate::web::connections::serve(listener, router(state)) => anyhow::Ok(()),
            _ = tokio::signal::ctrl_c() => {
                eprintln!("descent serve: stopped");
                Ok(())
            }
        }
    })?;
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}
