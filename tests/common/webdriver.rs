//! The few W3C WebDriver commands the browser test sends to chromedriver, as plain HTTP/1.1
//! requests with JSON bodies (the protocol: <https://www.w3.org/TR/webdriver2/>). A WebDriver
//! client crate would bring an HTTP client stack whose features differ from the server's, and
//! `cargo test` would then rebuild most of the dependency graph `cargo build` had built.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::server::http_request;

/// The key under which WebDriver returns an element's reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session of a chromedriver listening on `address`.
pub struct Session {
    address: String,
    id: String,
}

/// A reference to an element of the current page.
pub struct Element(String);

impl Session {
    /// Starts headless `chromium` through the chromedriver on `address`, waiting up to 30 s for
    /// the driver to answer.
    pub fn start(address: &str, chromium: &str) -> Session {
        let capabilities = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1200,900"],
        }}}});
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(address).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {address}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let value = command(address, "POST", "/session", Some(&capabilities))
            .unwrap_or_else(|e| panic!("chromedriver did not start a browser: {e}"));
        let id = value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        Session {
            address: address.to_string(),
            id,
        }
    }

    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let path = format!("/session/{}{path}", self.id);
        command(&self.address, method, &path, body)
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.send("POST", "/url", Some(&json!({ "url": url })))
            .unwrap();
    }

    /// The first element matching `css` now, or the driver's error.
    pub fn find(&self, css: &str) -> Result<Element, String> {
        let body = json!({"using": "css selector", "value": css});
        let value = self.send("POST", "/element", Some(&body))?;
        let id = value[ELEMENT_KEY].as_str().ok_or("no element reference")?;
        Ok(Element(id.to_string()))
    }

    /// Every element matching `css` now, or the driver's error.
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>, String> {
        let body = json!({"using": "css selector", "value": css});
        let value = self.send("POST", "/elements", Some(&body))?;
        let found = value.as_array().ok_or("no element list")?;
        found
            .iter()
            .map(|e| match e[ELEMENT_KEY].as_str() {
                Some(id) => Ok(Element(id.to_string())),
                None => Err("no element reference".to_string()),
            })
            .collect()
    }

    /// Waits up to 20 s for `css` to match an element, and returns it.
    pub fn wait_for(&self, css: &str) -> Element {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.find(css) {
                Ok(element) => return element,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Err(e) => panic!("no element {css:?}: {e}"),
            }
        }
    }

    /// Clicks `element`.
    pub fn click(&self, element: &Element) -> Result<(), String> {
        let path = format!("/element/{}/click", element.0);
        self.send("POST", &path, Some(&json!({}))).map(drop)
    }

    /// The rendered text of `element`.
    pub fn text(&self, element: &Element) -> Result<String, String> {
        let value = self.send("GET", &format!("/element/{}/text", element.0), None)?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Where `element` is drawn, in CSS pixels: `[x, y, width, height]`.
    pub fn rect(&self, element: &Element) -> Result<[f64; 4], String> {
        let value = self.send("GET", &format!("/element/{}/rect", element.0), None)?;
        let number = |key: &str| value[key].as_f64().ok_or(format!("no {key} in {value}"));
        Ok([
            number("x")?,
            number("y")?,
            number("width")?,
            number("height")?,
        ])
    }

    /// The number `script` (a function body) returns in the page.
    pub fn number(&self, script: &str) -> Result<f64, String> {
        let body = json!({"script": script, "args": []});
        let value = self.send("POST", "/execute/sync", Some(&body))?;
        value.as_f64().ok_or(format!("{script:?} returned {value}"))
    }

    /// The attribute `name` of `element` (`None` when absent).
    pub fn attribute(&self, element: &Element, name: &str) -> Result<Option<String>, String> {
        let path = format!("/element/{}/attribute/{name}", element.0);
        Ok(self.send("GET", &path, None)?.as_str().map(str::to_string))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = command(
            &self.address,
            "DELETE",
            &format!("/session/{}", self.id),
            None,
        );
    }
}

/// One WebDriver command: its `value`, or the error the driver reports.
fn command(address: &str, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let body = body.map(Value::to_string);
    let (status, text) = http_request(address, address, method, path, body.as_deref());
    let reply: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{method} {path}: not JSON ({e}): {text:?}"))?;
    if status == 200 {
        Ok(reply["value"].clone())
    } else {
        Err(format!("{method} {path}: {status} {}", reply["value"]))
    }
}
