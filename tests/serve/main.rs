//! `descent serve`: its HTTP interface (`http`) and the page in a real browser (`browser`).

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod http;
mod load;
