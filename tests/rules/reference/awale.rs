//! Naive Oware abapa, transcribed from the rules (docs/algorithms.md §9 / OpenSpiel `oware.cc`).

use std::collections::HashSet;

use super::ReferenceGame;

#[derive(Clone, Debug)]
pub struct RefAwale {
    pub seeds: Vec<i32>,
    pub score: [i32; 2],
    pub player: usize,
    pub seen: HashSet<(Vec<i32>, [i32; 2], usize)>,
    pub ended_by_repetition: bool,
}

impl RefAwale {
    pub fn new() -> Self {
        Self::from(vec![4; 12], [0, 0], 0)
    }

    pub fn from(seeds: Vec<i32>, score: [i32; 2], player: usize) -> Self {
        let mut g = RefAwale {
            seeds,
            score,
            player,
            seen: HashSet::new(),
            ended_by_repetition: false,
        };
        g.seen.insert(g.key());
        g
    }

    fn key(&self) -> (Vec<i32>, [i32; 2], usize) {
        (self.seeds.clone(), self.score, self.player)
    }

    fn total(&self) -> i32 {
        self.seeds.iter().sum::<i32>() + self.score[0] + self.score[1]
    }

    fn row_sum(&self, player: usize) -> i32 {
        (0..6).map(|i| self.seeds[player * 6 + i]).sum()
    }

    fn collect(&mut self) {
        for house in 0..12 {
            self.score[house / 6] += self.seeds[house];
            self.seeds[house] = 0;
        }
    }
}

impl ReferenceGame for RefAwale {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return vec![];
        }
        let lower = self.player * 6;
        let upper = lower + 5;
        let opponent_empty = self.row_sum(1 - self.player) == 0;
        (lower..=upper)
            .filter(|&h| {
                if opponent_empty {
                    self.seeds[h] - (upper - h) as i32 > 0
                } else {
                    self.seeds[h] > 0
                }
            })
            .map(|h| h - lower)
            .collect()
    }

    fn apply(&mut self, action: usize) {
        assert!(
            self.legal().contains(&action),
            "reference: illegal action {action}"
        );
        let origin = self.player * 6 + action;
        let mut n = self.seeds[origin];
        self.seeds[origin] = 0;
        let mut house = origin;
        while n > 0 {
            house = (house + 1) % 12;
            if house != origin {
                self.seeds[house] += 1;
                n -= 1;
            }
        }
        if house / 6 != self.player {
            let lower = house / 6 * 6;
            let upper = lower + 5;
            let beyond_empty = (house + 1..=upper).all(|h| self.seeds[h] == 0);
            let all_capturable = (lower..=house).all(|h| self.seeds[h] == 2 || self.seeds[h] == 3);
            if !(beyond_empty && all_capturable) {
                let mut captured = 0;
                let mut h = house as i32;
                while h >= lower as i32
                    && (self.seeds[h as usize] == 2 || self.seeds[h as usize] == 3)
                {
                    captured += self.seeds[h as usize];
                    self.seeds[h as usize] = 0;
                    h -= 1;
                }
                self.score[self.player] += captured;
                if captured > 0 {
                    self.seen.clear();
                }
            }
        }
        self.player = 1 - self.player;
        if !self.seen.insert(self.key()) {
            self.ended_by_repetition = true;
            self.collect();
        }
        if self.legal().is_empty() {
            self.collect();
        }
    }

    fn terminal(&self) -> bool {
        let half = self.total() / 2;
        self.score[0] > half
            || self.score[1] > half
            || (self.score[0] == half && self.score[1] == half)
    }

    fn returns(&self) -> [f32; 2] {
        if !self.terminal() {
            return [0.0, 0.0];
        }
        match self.score[0].cmp(&self.score[1]) {
            std::cmp::Ordering::Greater => [1.0, -1.0],
            std::cmp::Ordering::Less => [-1.0, 1.0],
            std::cmp::Ordering::Equal => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.score[0] - self.score[1])
    }
}
