//! Naive Hus, transcribed from the COMP 424 rules (the course's `HusBoardState`): vectors of
//! pits, seeds sown one at a time, full rescans for legal moves.

use super::ReferenceGame;

const PITS: usize = 32;
const MAX_ROUNDS: i32 = 5000;
const MAX_SOWINGS: usize = 200;

#[derive(Clone, Debug)]
pub struct RefHus {
    /// `board[player][pit]`, each player's pits in its own counter-clockwise numbering.
    pub board: Vec<Vec<i32>>,
    pub player: usize,
    /// Completed rounds; captures only once it is positive.
    pub rounds: i32,
    /// 0 or 1: that player won; 2: a draw.
    pub winner: Option<usize>,
}

impl RefHus {
    pub fn new() -> Self {
        let row: Vec<i32> = (0..PITS).map(|pit| if pit < 24 { 2 } else { 0 }).collect();
        RefHus {
            board: vec![row.clone(), row],
            player: 0,
            rounds: 0,
            winner: None,
        }
    }

    fn can_play(&self, player: usize) -> bool {
        self.board[player].iter().any(|&seeds| seeds >= 2)
    }
}

impl ReferenceGame for RefHus {
    fn legal(&self) -> Vec<usize> {
        if self.winner.is_some() {
            return vec![];
        }
        (0..PITS)
            .filter(|&pit| self.board[self.player][pit] >= 2)
            .collect()
    }

    fn apply(&mut self, pit: usize) {
        let me = self.player;
        let other = 1 - me;
        let mut hand = self.board[me][pit];
        self.board[me][pit] = 0;
        let mut position = pit;
        let mut sowings = 0;
        loop {
            if sowings == MAX_SOWINGS {
                self.winner = Some(other);
                return;
            }
            while hand > 0 {
                position = (position + 1) % PITS;
                self.board[me][position] += 1;
                hand -= 1;
            }
            sowings += 1;
            if self.board[me][position] == 1 {
                break;
            }
            let inner = position >= 16;
            if self.rounds > 0 && inner && self.board[other][47 - position] > 0 {
                hand = self.board[other][47 - position] + self.board[other][position - 16];
                self.board[other][47 - position] = 0;
                self.board[other][position - 16] = 0;
            } else {
                hand = self.board[me][position];
                self.board[me][position] = 0;
            }
        }
        if me == 1 {
            self.rounds += 1;
        }
        self.player = other;
        if !self.can_play(other) {
            self.winner = Some(me);
        } else if self.rounds > MAX_ROUNDS {
            self.winner = Some(2);
        }
    }

    fn terminal(&self) -> bool {
        self.winner.is_some()
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some(0) => [1.0, -1.0],
            Some(1) => [-1.0, 1.0],
            _ => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.board[0].iter().sum::<i32>() - self.board[1].iter().sum::<i32>())
    }
}
