//! The `descent` binary as a user meets it: commands and their outputs, the documentation checked
//! against the code, fuzzed inputs, and export / play / engine end to end.

#[path = "../common/mod.rs"]
mod common;

mod commands;
mod docs;
mod engine_analysis;
mod export_play;
mod fuzz_inputs;
mod gain;
mod game_files;
mod gtp;
mod gtp_misbehaving;
mod hostile_files;
mod interrupted_matches;
mod presets;
mod selfplay_house;
mod shipped_nets;
mod spec_names;
