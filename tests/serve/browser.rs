//! `descent serve` in a real browser: headless Chromium driven through chromedriver (WebDriver)
//! opens a training run, sees its loss curve drawn, steps through one of its self-play games on
//! the drawn board, and plays whole games against an agent by clicking the cells of the drawn
//! board — tic-tac-toe (squares), Hex (hexagons) and Awale (pits) — until the result shows,
//! and two whole turns of Connect6, where a turn is two stones; it sees Connect Four's discs in
//! red and yellow and a long Awale game's move list wrapped in the window, every move numbered.
//!
//! Needs `chromium` and `chromedriver` (Debian: `apt-get install chromium chromium-driver`;
//! `.ci/run` installs them). Without them the test says so and passes, unless
//! `DESCENT_REQUIRE_BROWSER=1` (set by `.ci/run`), where their absence is a failure. The
//! WebDriver commands go through `common::webdriver`.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::server::Server;
use crate::common::small_run;
use crate::common::webdriver::Session;

fn browser_tools() -> Option<(String, String)> {
    let find = |names: &[&str]| {
        names.iter().find_map(|name| {
            let output = Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .ok()?;
            let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
            (!path.is_empty()).then_some(path)
        })
    };
    Some((
        find(&["chromium", "chromium-browser", "google-chrome"])?,
        find(&["chromedriver"])?,
    ))
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The text of `css`'s element; found again when the page redrew it meanwhile (the run page
/// redraws its charts at every poll, which makes an element found before stale).
fn text_of(session: &Session, css: &str) -> String {
    read(session, css, None)
}

/// The attribute `name` of `css`'s element (or its text), found again while it is stale.
fn read(session: &Session, css: &str, name: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let element = session.wait_for(css);
        let value = match name {
            Some(name) => session
                .attribute(&element, name)
                .map(Option::unwrap_or_default),
            None => session.text(&element),
        };
        match value {
            Ok(value) => return value,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("{css}: {e}"),
        }
    }
}

/// Waits until the text of `css`'s element contains `needle`.
fn wait_for_text(session: &Session, css: &str, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = text_of(session, css);
        if text.contains(needle) {
            return;
        }
        assert!(Instant::now() < deadline, "{css}: {text:?}, not {needle:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Finds `css` (waiting for it) and clicks it.
fn click(session: &Session, css: &str) {
    let element = session.wait_for(css);
    session
        .click(&element)
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

#[test]
fn a_person_watches_a_run_and_plays_a_game_in_chromium() {
    let Some((chromium, chromedriver)) = browser_tools() else {
        crate::common::skip::skip(
            "DESCENT_REQUIRE_BROWSER",
            "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)",
        );
        return;
    };
    let root = tempfile::tempdir().unwrap();
    // One evaluation at the end, so that the strength chart has a point.
    let evaluation = "evaluation: {games: 2, iterations_per_move: 5}\n";
    small_run(root.path(), "tiny", evaluation, 4);
    let server = Server::start(root.path());
    let port = free_port();
    let _driver = Driver(
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let session = Session::start(&format!("127.0.0.1:{port}"), &chromium);
    drive(&session, &server.url);
    boards_carry_their_labels(&session, &server.url);
    what_players_expect_to_see(&session, &server.url, root.path());
    deep_links_to_games_stay_true(&session, &server.url, &root.path().join("tiny"));
}

/// Connect Four's discs are red and yellow, as the boxed game's; a long Awale game's move list
/// wraps inside the window, every move numbered.
fn what_players_expect_to_see(session: &Session, url: &str, root: &std::path::Path) {
    session.goto("about:blank");
    session.goto(&format!(
        "{url}/#/play?game=connect_four&agent=random&side=p0"
    ));
    click(session, "#board-drawing .cell.target");
    session.wait_for("#board-drawing .piece.yellow");
    let fill = |class: &str| {
        let script = format!(
            "const fill = getComputedStyle(document.querySelector('#board-drawing .piece.{class}')).fill; \
             return fill.match(/\\d+/g).map(Number).reduce((a, c) => a * 256 + c, 0);"
        );
        session.number(&script).unwrap() as u32
    };
    assert_eq!(fill("red"), 0xd32f2f, "the first player's disc is red");
    assert_eq!(
        fill("yellow"),
        0xfdd835,
        "the second player's disc is yellow"
    );

    let config = root.join("awale.yaml");
    let yaml = "game: awale\nseed: 3\nsearch: {iters: 2}\nnetwork: {architecture: resnet-b0c8-fc16}\n\
                replay: {games: 1, duplication: 1, batch_size: 32}\nevaluation: {at_end: false}\n";
    std::fs::write(&config, yaml).unwrap();
    crate::common::train_games(config.to_str().unwrap(), &root.join("awale-run"), 1);
    session.goto("about:blank");
    session.goto(&format!("{url}/#/run/awale-run/game/1"));
    session.wait_for("#viewer-drawing svg.board");
    let plies: usize = text_of(session, "#viewer-info")
        .split_whitespace()
        .skip_while(|word| *word != "of")
        .nth(1)
        .and_then(|n| {
            n.trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .ok()
        })
        .expect("the viewer says how many plies the game has");
    assert!(plies > 40, "a long game: {plies} plies");
    let numbers = session.find_all(".moves .move-number").unwrap().len();
    assert_eq!(numbers, plies, "every move numbered");
    let inside = "const moves = document.querySelector('.moves'); \
                  const box = moves.getBoundingClientRect(); \
                  return (moves.scrollWidth <= moves.clientWidth && box.right <= window.innerWidth) ? 1 : 0;";
    assert_eq!(
        session.number(inside).unwrap(),
        1.0,
        "the move list wraps in the window"
    );
}

/// A link to a game names it by its number: after the run has grown it shows the same game,
/// and a number the run does not have says so in the page (it showed another game, or
/// "Loading…").
fn deep_links_to_games_stay_true(session: &Session, url: &str, run: &std::path::Path) {
    let moves_of = |session: &Session| {
        session.goto("about:blank");
        session.goto(&format!("{url}/#/run/tiny/game/3"));
        session.wait_for("#viewer-drawing svg.board");
        assert!(text_of(session, "h1").contains("game 3"));
        text_of(session, ".moves")
    };
    let before = moves_of(session);
    let out = crate::common::descent(&[
        "train",
        "--resume",
        run.to_str().unwrap(),
        "--max-games",
        "12",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert_eq!(
        moves_of(session),
        before,
        "game 3 after the run grew to 12 games"
    );
    session.goto("about:blank");
    session.goto(&format!("{url}/#/run/tiny/game/999"));
    wait_for_text(session, "#viewer-missing", "no game 999");
}

fn drive(session: &Session, url: &str) {
    // The list of runs, then the run: its loss curve is drawn from the metrics.
    session.goto(&format!("{url}/"));
    click(session, "#runs-list a.run");
    let path = read(session, "#chart-loss path.line", Some("d"));
    assert_eq!(path.matches('L').count(), 3, "4 games, 4 points: {path}");
    assert!(text_of(session, "#run-summary").contains("4 games learned"));
    // Round ticks along each axis, not only the ends; win − loss on its whole range, with
    // its zero line; no version-lag chart for a run whose games never lag.
    let ticks = session.find_all("#chart-loss text.tick").unwrap().len();
    assert!(ticks >= 5, "{ticks} tick labels on the loss chart");
    session.wait_for("#chart-score line.zero");
    assert!(session.find("#chart-lag").is_err());

    // A self-play game on the drawn board, one move forward: its first stone appears, and
    // the move is marked.
    session.goto(&format!("{url}/#/run/tiny/game/1"));
    session.wait_for("#viewer-drawing svg.board");
    assert!(
        session.find("#viewer-drawing .piece").is_err(),
        "ply 0: an empty board"
    );
    assert_eq!(text_of(session, ".moves .move-number"), "1.");
    click(session, "#viewer-next");
    session.wait_for("#viewer-drawing .cell.last .piece");
    assert!(text_of(session, "#viewer-info").contains("search value"));

    // Whole games against MCTS, clicking the cells the page offers, with an undo in the first.
    session.goto(&format!(
        "{url}/#/play?game=tic_tac_toe&agent=mcts:iters=300&side=p0"
    ));
    click(session, "#board-drawing .cell.target");
    click(session, "#undo");
    play_to_the_end(session, 9);
    let status = text_of(session, "#status");
    assert!(
        status.contains("agent's value") && status.contains("game over"),
        "{status}"
    );
    for (game, side, name, moves) in [("hex", "p0", "Black", 121), ("awale", "p1", "North", 400)] {
        // A new document, so that nothing of the finished game's page is read.
        session.goto("about:blank");
        session.goto(&format!(
            "{url}/#/play?game={game}&agent=mcts:iters=50&side={side}"
        ));
        session.wait_for("#board-drawing svg.board");
        let sides = text_of(session, "#sides");
        assert!(sides.contains(&format!("You: {name} ({side})")), "{sides}");
        play_to_the_end(session, moves);
    }
    // Connect6: the agent answers with its whole turn of two stones; the person's turns of
    // two stones are two clicks.
    session.goto("about:blank");
    session.goto(&format!("{url}/#/play?game=connect6&agent=random&side=p0"));
    session.wait_for("#board-drawing svg.board");
    for (clicks, status) in [
        (1, "ply 3 · Black (p0) to move"),
        (2, "ply 7 · Black (p0) to move"),
    ] {
        for click in 0..clicks {
            if click > 0 {
                wait_for_text(session, "#status", "ply 4 · Black (p0) to move");
            }
            self::click(session, "#board-drawing .cell.target");
        }
        wait_for_text(session, "#status", status);
    }
    let error = session.find("#error").unwrap();
    assert!(
        session.attribute(&error, "hidden").unwrap().is_some(),
        "no error shown"
    );
}

/// The labels each notation needs are drawn: Awale's house letters, draughts' square numbers,
/// Othello's disc counts, Arimaa's step of the turn; a 19 × 19 board fits the window.
fn boards_carry_their_labels(session: &Session, url: &str) {
    for (game, names, caption) in [
        ("awale", 12, None),
        ("draughts", 50, None),
        ("othello", 0, Some("Black 2 · White 2")),
        (
            "arimaa%28setup%3Dfalse%29",
            0,
            Some("Gold: turn 1, step 1 of 4"),
        ),
    ] {
        session.goto("about:blank");
        session.goto(&format!("{url}/#/play?game={game}&agent=random&side=p0"));
        session.wait_for("#board-drawing svg.board");
        let found = session.find_all("#board-drawing .cell-name").unwrap();
        assert_eq!(found.len(), names, "{game}");
        if let Some(caption) = caption {
            assert_eq!(
                text_of(session, "#board-drawing .caption"),
                caption,
                "{game}"
            );
        }
    }
    // The largest board, Connect6's 19 × 19, fits the window whole, below the page's header.
    session.goto("about:blank");
    session.goto(&format!("{url}/#/play?game=connect6&agent=random&side=p0"));
    let board = session.wait_for("#board-drawing svg.board");
    let [x, y, width, height] = session.rect(&board).unwrap();
    let window_width = session.number("return window.innerWidth").unwrap();
    let window_height = session.number("return window.innerHeight").unwrap();
    assert!(
        x + width <= window_width && y + height <= window_height,
        "the board at [{x}, {y}] measures {width} × {height} in a {window_width} × {window_height} window"
    );
}

/// Plays the person's side of the game on the page to its end by clicking a cell the board
/// marks as a target (or a move's button where a move has no cell: a pass), at most
/// `max_clicks` times; checks the result shown.
fn play_to_the_end(session: &Session, max_clicks: usize) {
    session.wait_for("#board-drawing svg.board");
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut clicks = 0;
    loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let result = text_of(session, "#result");
        if result.starts_with("Game over") {
            assert!(
                ["(p0) wins", "(p1) wins", "draw"]
                    .iter()
                    .any(|r| result.contains(r)),
                "{result}"
            );
            assert!(clicks > 0, "the person played");
            return;
        }
        let target = session
            .find("#board-drawing .cell.target")
            .or_else(|_| session.find("#legal-moves button.legal-move"));
        match target {
            // The page may redraw between finding and clicking: try again then.
            Ok(element) => {
                if session.click(&element).is_ok() {
                    clicks += 1;
                    assert!(clicks <= max_clicks, "more clicks than the game has moves");
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}
