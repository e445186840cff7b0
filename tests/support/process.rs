//! Processes a test starts (tansu, `factgate run`, the CMS script): killed and reaped when the
//! guard is dropped, also when the test panics, with their output in log files whose tails are
//! printed when the test fails.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, timeout};

/// A child process and its logs.
pub struct Guarded {
    pub name: String,
    pub child: Child,
    /// Its stdout (when not piped), then its stderr.
    pub logs: Vec<PathBuf>,
}

impl Guarded {
    /// Starts `command` with its stdout and stderr in `dir/{name}.stdout` and `.stderr`.
    pub fn spawn(name: &str, command: &mut Command, dir: &Path) -> Guarded {
        let stdout = dir.join(format!("{name}.stdout"));
        command.stdout(std::fs::File::create(&stdout).expect("creating a log file"));
        let mut guarded = Self::spawn_piped(name, command, dir);
        guarded.logs.insert(0, stdout);
        guarded
    }

    /// Starts `command` with its stdout as the caller set it and its stderr in
    /// `dir/{name}.stderr`.
    pub fn spawn_piped(name: &str, command: &mut Command, dir: &Path) -> Guarded {
        let stderr = dir.join(format!("{name}.stderr"));
        let child = command
            .stdin(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("creating a log file"))
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        Guarded {
            name: name.to_owned(),
            child,
            logs: vec![stderr],
        }
    }

    /// Fails the test if the process has exited.
    pub fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} exited early ({status}); see its logs below", self.name);
        }
    }

    /// SIGKILL, then wait for the process to be gone.
    pub async fn kill_hard(&mut self) {
        self.child.start_kill().expect("sending SIGKILL");
        timeout(Duration::from_secs(10), self.child.wait())
            .await
            .expect("the killed process is reaped within 10 s")
            .expect("waiting for the killed process");
    }

    /// SIGTERM (a clean shutdown, as an orchestrator asks), then wait up to `limit` for the
    /// process to exit.
    pub async fn terminate(&mut self, limit: Duration) -> ExitStatus {
        let pid = self.child.id().expect("the process is running");
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("running kill");
        assert!(sent.success(), "kill -TERM {pid}");
        timeout(limit, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("{} did not exit within {limit:?} of SIGTERM", self.name))
            .expect("waiting for the process")
    }

    /// What the process wrote to its stderr so far.
    pub fn stderr(&self) -> String {
        self.logs
            .last()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .unwrap_or_default()
    }

    /// Waits until the process's stdout holds `needle`.
    pub async fn wait_for_stdout(&mut self, needle: &str, limit: Duration) {
        let until = Instant::now() + limit;
        loop {
            let text = std::fs::read_to_string(&self.logs[0]).unwrap_or_default();
            if text.contains(needle) {
                return;
            }
            self.assert_running();
            assert!(
                Instant::now() < until,
                "{} did not print {needle:?} within {limit:?}",
                self.name
            );
            sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        // Reap it, so no process outlives the test; a SIGKILLed child exits at once.
        for _ in 0..50 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if std::thread::panicking() {
            for log in &self.logs {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = &lines[lines.len().saturating_sub(40)..];
                eprintln!("----- {} (last {} lines)", log.display(), tail.len());
                for line in tail {
                    eprintln!("{line}");
                }
            }
        }
    }
}

/// Starts `factgate run` with `args` (`--roles …`, `--no-http`) and the configuration file
/// `config`, its environment cleared of `FACTGATE_…` and `RUST_LOG`, its logs in `dir`.
pub fn start_factgate(name: &str, args: &[&str], config: &Path, dir: &Path) -> Guarded {
    let mut command = Command::new(env!("CARGO_BIN_EXE_factgate"));
    command
        .arg("run")
        .args(args)
        .arg("--config")
        .arg(config)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FACTGATE_") {
            command.env_remove(key);
        }
    }
    Guarded::spawn(name, &mut command, dir)
}
