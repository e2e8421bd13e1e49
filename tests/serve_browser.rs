//! `descent serve` in a real browser: headless Chromium driven through chromedriver (WebDriver)
//! opens a training run, sees its loss curve drawn, steps through one of its self-play games,
//! and plays a whole tic-tac-toe game against an agent by clicking the legal moves until the
//! result shows.
//!
//! Needs `chromium` and `chromedriver` (Debian: `apt-get install chromium chromium-driver`;
//! `.ci/run` installs them). Without them the test says so and passes, unless
//! `DESCENT_REQUIRE_BROWSER=1` (set by `.ci/run`), where their absence is a failure.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::server::Server;
use common::small_run;
use fantoccini::{Client, ClientBuilder, Locator};

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

async fn connect(chromium: &str, port: u16) -> Client {
    let capabilities = serde_json::json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1200,900"],
        }
    });
    let capabilities = match capabilities {
        serde_json::Value::Object(map) => map,
        _ => unreachable!(),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let attempt = ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match attempt {
            Ok(client) => return client,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("chromedriver did not start a browser: {e}"),
        }
    }
}

/// Waits up to 20 s for `css` to match an element, and returns it.
async fn wait_for(client: &Client, css: &str) -> fantoccini::elements::Element {
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element {css:?}: {e}"))
}

/// The text of `css`'s element; found again when the page redrew it meanwhile (the run page
/// redraws its charts at every poll, which makes an element found before stale).
async fn text_of(client: &Client, css: &str) -> String {
    read(client, css, None).await
}

/// The attribute `name` of `css`'s element (or its text), found again while it is stale.
async fn read(client: &Client, css: &str, name: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let element = wait_for(client, css).await;
        let value = match name {
            Some(name) => element.attr(name).await.map(Option::unwrap_or_default),
            None => element.text().await,
        };
        match value {
            Ok(value) => return value,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{css}: {e}"),
        }
    }
}

#[test]
fn a_person_watches_a_run_and_plays_a_game_in_chromium() {
    let Some((chromium, chromedriver)) = browser_tools() else {
        assert!(
            std::env::var("DESCENT_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "DESCENT_REQUIRE_BROWSER=1 but chromium / chromedriver are not installed"
        );
        eprintln!(
            "SKIPPED: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        );
        return;
    };
    let root = tempfile::tempdir().unwrap();
    small_run(root.path(), "tiny", "", 4);
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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = connect(&chromium, port).await;
        let result = drive(&client, &server.url).await;
        let _ = client.close().await;
        result
    });
}

async fn drive(client: &Client, url: &str) {
    // The list of runs, then the run: its loss curve is drawn from the metrics.
    client.goto(&format!("{url}/")).await.unwrap();
    wait_for(client, "#runs-list a.run")
        .await
        .click()
        .await
        .unwrap();
    let path = read(client, "#chart-loss path.line", Some("d")).await;
    assert_eq!(path.matches('L').count(), 3, "4 games, 4 points: {path}");
    assert!(
        text_of(client, "#run-summary")
            .await
            .contains("4 games learned")
    );

    // A self-play game, one move forward.
    client
        .goto(&format!("{url}/#/run/tiny/game/0"))
        .await
        .unwrap();
    let start = text_of(client, "#viewer-board").await;
    wait_for(client, "#viewer-next")
        .await
        .click()
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while text_of(client, "#viewer-board").await == start {
        assert!(
            Instant::now() < deadline,
            "the board did not change after ▶"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        text_of(client, "#viewer-info")
            .await
            .contains("search value")
    );

    // A whole game against MCTS, clicking the first legal move each turn, with an undo.
    client
        .goto(&format!(
            "{url}/#/play?game=tic_tac_toe&agent=mcts:iters=300&side=p0"
        ))
        .await
        .unwrap();
    wait_for(client, "#legal-moves button.legal-move")
        .await
        .click()
        .await
        .unwrap();
    wait_for(client, "#undo").await.click().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let result = text_of(client, "#result").await;
        if result.starts_with("Game over") {
            assert!(
                ["p0 wins", "p1 wins", "draw"]
                    .iter()
                    .any(|r| result.contains(r)),
                "{result}"
            );
            break;
        }
        match client
            .find(Locator::Css("#legal-moves button.legal-move"))
            .await
        {
            Ok(button) => {
                // The page may redraw between finding and clicking: try again then.
                let _ = button.click().await;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let status = text_of(client, "#status").await;
    assert!(status.contains("agent's value"), "{status}");
    let error = client.find(Locator::Css("#error")).await.unwrap();
    assert!(
        error.attr("hidden").await.unwrap().is_some(),
        "no error shown"
    );
}
