//! `factgate run`: the stream processor, until Ctrl-C or SIGTERM.

use crate::config::Config;
use crate::internal_events as events;
use crate::pipeline::{Role, Running};
use anyhow::Context;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs `roles` with the configuration at `config_path` (the defaults when `None`, `FACTGATE_…`
/// overrides on top), serving HTTP when `serve_http`, and prints a banner of where it listens
/// once running.
///
/// # Errors
/// The configuration is invalid, logging cannot be set up, or the stream processor stopped on an
/// error (the brokers were not reached in time, a role failed).
pub fn run(
    roles: &[Role],
    config_path: Option<&Path>,
    serve_http: bool,
) -> anyhow::Result<ExitCode> {
    let config = Config::load(config_path).context("loading the configuration")?;
    let telemetry = crate::telemetry::init(&config).context("setting up logs and traces")?;
    if let Some(endpoint) = telemetry.endpoint() {
        events::traces_exported_to(endpoint);
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime.block_on(async {
        let listen = config.http.listen;
        let admin_listen = config.http.admin_listen;
        crate::pipeline::run(
            config,
            roles,
            serve_http,
            super::shutdown_signal(),
            |running| {
                let banner = banner(running, roles, serve_http.then_some((listen, admin_listen)));
                // The banner is for whoever started the process; a stdout closed by the reader (a
                // supervisor that stopped reading, a pipe to `head`) must not stop a running gate.
                let mut stdout = std::io::stdout().lock();
                if let Err(err) = stdout
                    .write_all(banner.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    events::banner_not_printed(&err);
                }
            },
        )
        .await
        .context("the stream processor stopped")
    });
    // A consumer stuck closing against an unreachable broker must not keep the process alive.
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    // The spans of the last messages are still queued: send them before exiting.
    telemetry.shutdown();
    outcome?;
    Ok(ExitCode::SUCCESS)
}

/// What the process prints once running: the brokers, the HTTP addresses (`listening`: the API's
/// and the admin endpoint's, when served) and the roles.
fn banner(
    running: &Running,
    roles: &[Role],
    listening: Option<(std::net::SocketAddr, std::net::SocketAddr)>,
) -> String {
    let mut banner = String::new();
    if running.embedded.is_some() {
        banner += &format!(
            "embedded Kafka broker: bootstrap.servers={}\n",
            running.bootstrap
        );
        banner += "the embedded broker keeps everything in memory: drafts in flight are lost when \
                   this process stops; for production set kafka.bootstrap_servers to a Kafka cluster\n";
    } else {
        banner += &format!("Kafka brokers: {}\n", running.bootstrap);
    }
    if let Some((listen, admin_listen)) = listening {
        banner += &format!(
            "HTTP endpoint (login required): http://{listen}/v1/decisions/{{article_id}}, pages at http://{listen}/ui/\n"
        );
        banner +=
            &format!("metrics and probes: http://{admin_listen}/metrics, /healthz, /readyz\n");
    }
    let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
    banner += &format!("roles: {}\n", names.join(","));
    banner
}
