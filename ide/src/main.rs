//! `onyx-ide`: the IDE on a repository of its own (made with the kernel on first start),
//! served by a stone and a gem inside this process, or with `--connect` on a remote gem. The
//! binary is the one part of the IDE that uses the server (`onyx-server-agent`, for the
//! embedded stone and gem); the library speaks only the protocol.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use clap::Parser;
use eframe::egui;
use onyx_ide::gems::Gems;
use onyx_ide::layout;
use onyx_ide::{Ide, Link, Show};
use onyx_server_agent::Setup;
use onyx_server_agent::embedded::{Embedded, Serving};

/// The application's name: the window's title, and where eframe keeps a remote gem's panes.
const APP: &str = "Onyx";

/// What went wrong, as the terminal shows it.
type Result<T> = std::result::Result<T, String>;

/// The Onyx IDE.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The repository folder of the embedded stone (created with the kernel if it holds
    /// none); by default `onyx/repository` in the user's data folder.
    #[arg(long, env = "ONYX_REPOSITORY")]
    repository: Option<PathBuf>,
    /// Where the embedded stone listens (`127.0.0.1:PORT`), so that gems started from a
    /// terminal (`onyx gem --stone ADDR`) find it at every start; by default a port the
    /// system picks, shown in the Sessions pane.
    #[arg(long, env = "ONYX_STONE_LISTEN", conflicts_with = "connect")]
    stone_listen: Option<std::net::SocketAddr>,
    /// Work in a remote gem instead, through its agent (`host:port` or `https://host:port`).
    #[arg(long)]
    connect: Option<String>,
    /// The user to log in as (the password comes from ONYX_PASSWORD, or is asked for with
    /// --connect; the embedded repository's DataCurator has `swordfish`).
    #[arg(long, default_value = "DataCurator")]
    user: String,
    /// Close the window after this many seconds (for scripted screenshots).
    #[arg(long, hide = true)]
    close_after: Option<u64>,
    /// Open a pane at start (for scripted screenshots; see `Show`).
    #[arg(long, hide = true)]
    show: Option<Show>,
    /// Print how long after start the first frame with the gem's answers was drawn, and close
    /// (the start-up benchmark, `scripts/bench-ide-start.sh`).
    #[arg(long, hide = true)]
    report_start: bool,
}

/// The embedded gem allocates and frees small objects all the time (see the `onyx` binary).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { onyx_vm::keep_freed_pages() };
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("onyx-ide: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let password = std::env::var("ONYX_PASSWORD").ok();
    // Where the panes and workspaces are kept: beside the embedded repository, or in the
    // user's data folder for a remote gem.
    let (embedded, address, password, kept) = match &args.connect {
        Some(address) => {
            let password = match password {
                Some(p) => p,
                None => ask_password(&args.user, address)?,
            };
            (None, address.clone(), password, None)
        }
        None => {
            let dir = args.repository.clone().map_or_else(default_repository, Ok)?;
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            let password = password.unwrap_or_else(|| "swordfish".into());
            let serving = Serving { stone: args.stone_listen, ..Serving::default() };
            let embedded = Embedded::start_with(&dir, Setup::default(), serving, &args.user, &password)
                .map_err(|e| e.to_string())?;
            let address = embedded.gem.clone();
            (Some(embedded), address, password, Some(dir.join("ide.ron")))
        }
    };
    // Logged in before the window opens: a gem that cannot be reached, or a refused login, is
    // an error on the terminal rather than an empty window.
    let window: Arc<OnceLock<egui::Context>> = Arc::default();
    let repaint = Arc::clone(&window);
    let wake = Arc::new(move || {
        if let Some(ctx) = repaint.get() {
            ctx.request_repaint();
        }
    });
    let link = match Link::connect(&address, &args.user, &password, wake) {
        Ok(link) => link,
        Err(e) => {
            stop(embedded)?;
            return Err(e.to_string());
        }
    };
    // An embedded stone's Sessions pane starts more gems on it, which stop with the others.
    let embedded = Arc::new(Mutex::new(embedded));
    let link = if embedded.lock().unwrap_or_else(PoisonError::into_inner).is_some() {
        let servers = Arc::clone(&embedded);
        link.with_gems(Gems::new(Arc::new(move || {
            match servers.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
                Some(servers) => servers.add_gem().map_err(|e| e.to_string()),
                None => Err("the IDE is closing".into()),
            }
        })))
    } else {
        link
    };
    let close_at = args.close_after.map(|s| Instant::now() + Duration::from_secs(s));
    // A scripted run (screenshots, --close-after) starts from the default panes and keeps
    // nothing.
    let keep = args.show.is_none() && close_at.is_none();
    // The panes are made, and ask the gem what they show, before the window is: the answers
    // come while it opens. So the layout kept is read here, from the file eframe keeps it in,
    // rather than from the storage eframe hands over once the window is made.
    // (For a remote gem, eframe keeps them in its own place for an app's storage.)
    let kept_in = kept.clone().or_else(|| eframe::storage_dir(APP).map(|dir| dir.join("app.ron")));
    let layout = kept_in.as_deref().filter(|_| keep).and_then(layout::read).unwrap_or_default();
    let mut ide = Ide::restored(link, layout);
    if let Some(what) = &args.show {
        ide.show(what);
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]).with_title(APP),
        persistence_path: kept,
        ..Default::default()
    };
    let report_start = args.report_start.then_some(started);
    let shown = eframe::run_native(
        APP,
        options,
        Box::new(move |cc| {
            // Set once, here; replies that came before are drawn by the first frame.
            let _ = window.set(cc.egui_ctx.clone());
            Ok(Box::new(Window { ide, close_at, report_start, keep }))
        }),
    )
    .map_err(|e| format!("the window failed: {e}"));
    let embedded = embedded.lock().unwrap_or_else(PoisonError::into_inner).take();
    stop(embedded)?;
    shown
}

/// Stops the embedded stone and gem, if any.
fn stop(embedded: Option<Embedded>) -> Result<()> {
    embedded.map_or(Ok(()), |e| e.stop().map_err(|e| e.to_string()))
}

/// `onyx/repository` in the user's data folder.
fn default_repository() -> Result<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share")))
        .ok_or("no data folder (set HOME, or give --repository)")?;
    Ok(data.join("onyx").join("repository"))
}

fn ask_password(user: &str, address: &str) -> Result<String> {
    eprint!("password of {user} at {address}: ");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).map_err(|e| format!("cannot read the password: {e}"))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

struct Window {
    ide: Ide,
    close_at: Option<Instant>,
    /// When the process started, if the start-up time is to be reported.
    report_start: Option<Instant>,
    /// Whether the panes and workspaces are kept for the next start.
    keep: bool,
}

impl eframe::App for Window {
    /// Keeps the panes and workspaces (eframe calls this now and then, and on closing).
    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.keep {
            eframe::set_value(storage, layout::KEY, &self.ide.layout());
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ide.ui(ui);
        // A scripted run (--close-after) closes when its time is up, whatever it left.
        let scripted_end = self.close_at.is_some_and(|at| Instant::now() >= at);
        if ui.input(|i| i.viewport().close_requested()) && !scripted_end && !self.ide.may_close() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
        // The question on closing over uncommitted changes was answered, and the commit or
        // abort is done.
        if self.ide.wants_close() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        // The first frame that shows what the gem answered (the packages, the transaction).
        if let Some(started) = self.report_start
            && !self.ide.is_waiting()
        {
            println!("first frame with the gem's answers after {} ms", started.elapsed().as_millis());
            self.report_start = None;
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if let Some(at) = self.close_at {
            if Instant::now() >= at {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ui.ctx().request_repaint_after(Duration::from_millis(200));
        }
    }
}
