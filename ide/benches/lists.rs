//! How long a frame of the IDE takes while a class list scrolls under the mouse wheel: a
//! package of 10,000 classes, the hierarchy of `Object` (every class, indented), and, as the
//! peer in the same run, a package of 100 classes. A frame is what the IDE does for the window
//! each time it draws: the UI pass and its tessellation into triangles (what is handed to the
//! GPU is the same for every list, as only the rows in view are drawn). The IDE runs against a
//! stone and a gem embedded in this process.
//!
//! `cargo bench -p onyx-ide --bench lists [-- ROUNDS]` (default 5 rounds of 300 frames each).

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use onyx_ide::{Ide, Link, Show};
use onyx_server_agent::Setup;
use onyx_server_agent::embedded::Embedded;

/// What went wrong, as the terminal shows it.
type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const FRAMES: usize = 300;
const SCREEN: egui::Vec2 = egui::vec2(1280.0, 800.0);
/// Over the class list of a browser in a window of `SCREEN`.
const OVER_THE_CLASSES: egui::Pos2 = egui::pos2(480.0, 220.0);
/// Scrolled per frame: a brisk turn of the wheel.
const WHEEL: f32 = 60.0;

fn main() -> Result<()> {
    let rounds: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir()?;
    let server = Embedded::start(dir.path(), Setup::default(), "DataCurator", "swordfish")?;
    let started = Instant::now();
    evaluate(
        &server.gem,
        "1 to: 10000 do: [:i | Object subclass: ('Many', i printString) asSymbol \
         instanceVariableNames: '' classVariableNames: '' package: 'Many']. \
         1 to: 100 do: [:i | Object subclass: ('Few', i printString) asSymbol \
         instanceVariableNames: '' classVariableNames: '' package: 'Few']",
    )?;
    println!("defined 10,100 classes in {:.1} s", started.elapsed().as_secs_f64());
    let lists = [
        ("package of 100 classes (peer)", Show::Browser { class: "Few1".into(), selector: None }, "Few99"),
        ("package of 10,000 classes", Show::Browser { class: "Many1".into(), selector: None }, "Many9999"),
        ("hierarchy of Object (every class)", Show::Hierarchy("Object".into()), "Many9999"),
    ];
    let mut frames: Vec<Vec<Duration>> = vec![Vec::new(); lists.len()];
    for round in 0..rounds {
        for (i, (name, show, last)) in lists.iter().enumerate() {
            let (times, reached) = scroll(&server.gem, show, last)?;
            if !reached {
                return Err(format!("{name}: {last} never came into view: the list did not scroll").into());
            }
            println!("round {}: {name}: median {:.2} ms", round + 1, ms(median(&times)));
            frames[i].extend(times);
        }
    }
    println!("\n| list | median frame | 95th percentile | slowest | frames/s the median allows |");
    println!("|---|---:|---:|---:|---:|");
    for ((name, ..), times) in lists.iter().zip(&mut frames) {
        times.sort();
        let (median, p95) = (times[times.len() / 2], times[times.len() * 95 / 100]);
        let slowest = times.last().copied().unwrap_or_default();
        println!(
            "| {name} | {:.2} ms | {:.2} ms | {:.2} ms | {:.0} |",
            ms(median),
            ms(p95),
            ms(slowest),
            1.0 / median.as_secs_f64()
        );
    }
    let peer = median(&frames[0]);
    for ((name, ..), times) in lists.iter().zip(&frames).skip(1) {
        println!("{name}: {:.2}x the peer's median frame", median(times).as_secs_f64() / peer.as_secs_f64());
    }
    Ok(server.stop()?)
}

/// Opens `show` in a new IDE, waits for it, then scrolls its class list for `FRAMES` frames;
/// answers each frame's time and whether the row `last` came into view.
fn scroll(gem: &str, show: &Show, last: &str) -> Result<(Vec<Duration>, bool)> {
    let ctx = egui::Context::default();
    let mut ide = Ide::new(link(gem)?);
    ide.show(show);
    let mut clock = 0.0;
    let mut frame = |ide: &mut Ide, events: Vec<egui::Event>| {
        clock += 1.0 / 60.0;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SCREEN)),
            time: Some(clock),
            events,
            ..Default::default()
        };
        let output = ctx.run_ui(input, |ui| ide.ui(ui));
        let shows_last =
            output.shapes.iter().any(|s| matches!(&s.shape, egui::Shape::Text(t) if t.galley.text().trim() == last));
        let triangles = ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(triangles);
        shows_last
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while ide.is_waiting() {
        frame(&mut ide, Vec::new());
        if Instant::now() > deadline {
            return Err("the gem did not answer".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // Warm up: fonts laid out, the list's rows in view.
    for _ in 0..30 {
        frame(&mut ide, vec![egui::Event::PointerMoved(OVER_THE_CLASSES)]);
    }
    let (mut times, mut reached) = (Vec::with_capacity(FRAMES), false);
    for _ in 0..FRAMES {
        let wheel = egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -WHEEL),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        };
        let started = Instant::now();
        reached |= frame(&mut ide, vec![egui::Event::PointerMoved(OVER_THE_CLASSES), wheel]);
        times.push(started.elapsed());
    }
    // The rest of the list, less than the list's height a frame (no row is jumped over), to
    // see that it was the list that scrolled.
    for _ in 0..10_000 {
        if reached {
            break;
        }
        let page = egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -120.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        };
        reached = frame(&mut ide, vec![egui::Event::PointerMoved(OVER_THE_CLASSES), page]);
    }
    Ok((times, reached))
}

fn link(gem: &str) -> Result<Link> {
    Ok(Link::connect(gem, "DataCurator", "swordfish", Arc::new(|| {}))?)
}

/// Evaluates `code` in the gem through an IDE's workspace, and waits for it.
fn evaluate(gem: &str, code: &str) -> Result<()> {
    let ctx = egui::Context::default();
    let mut ide = Ide::new(link(gem)?);
    ide.show(&Show::Print(code.into()));
    let deadline = Instant::now() + Duration::from_secs(600);
    for frame in 0.. {
        let _ = ctx.run_ui(egui::RawInput::default(), |ui| ide.ui(ui));
        // The workspace sends its code when first drawn.
        if frame > 2 && !ide.is_waiting() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{code}: no answer").into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
