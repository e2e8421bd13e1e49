//! `descent serve`: its HTTP interface (`http`), every game played through it (`every_game`),
//! and the page in a real browser (`browser`).

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod every_game;
mod http;
mod load;
