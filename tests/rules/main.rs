//! The rules of every game: hand-built positions per game (one module each), the conformance
//! suite and perft counts every registered game runs, property tests, the network encodings, and
//! the naive reference implementations they are compared with (`reference/`).

mod reference;

mod amazons;
mod arimaa;
mod ataxx;
mod awale;
mod breakthrough;
mod clobber;
mod conformance;
mod connect6;
mod draughts;
mod encodings;
mod go;
mod gomoku;
mod havannah;
mod hex;
mod hus;
mod lines_of_action;
mod othello;
mod properties;
mod santorini;
mod shobu;
mod surakarta;
