//! The Go rules two GTP engines play, agreed before a `gtp-match` starts: GTP has no command that
//! says an engine's ko rule, so it is read where it can be — `descent engine` answers
//! `descent-game` with its game's spec, GNU Go's rule is its command line's (`--simple-ko`, its
//! default, `--positional-superko`, …) — and two engines known to differ are refused before the
//! first move, the rule and the flags that fix it named. Otherwise a repetition one engine allows
//! ends the game for the other in the middle of the match ("the game is over").

use super::gtp_client::GtpClient;

/// How a Go engine treats a move that repeats an earlier board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KoRule {
    /// Only the immediate ko recapture is forbidden (GNU Go's default).
    Simple,
    /// Any move recreating an earlier board is illegal (`go(superko=illegal)`, GNU Go's
    /// `--positional-superko`).
    PositionalSuperko,
    /// A move recreating an earlier board with the same player to move is illegal.
    SituationalSuperko,
    /// Ko recaptures are allowed (GNU Go's `--no-ko`).
    NoKo,
    /// A move recreating an earlier board ends the game as a draw (`go(superko=draw)`,
    /// OpenSpiel's rule and descent's default).
    RepetitionDraws,
}

impl KoRule {
    fn words(self) -> &'static str {
        match self {
            KoRule::Simple => "simple ko (a repeated board allowed beyond the ko recapture)",
            KoRule::PositionalSuperko => "positional superko (no board may repeat)",
            KoRule::SituationalSuperko => "situational superko",
            KoRule::NoKo => "no ko rule",
            KoRule::RepetitionDraws => "a repeated board ends the game as a draw",
        }
    }
}

/// One engine's rule and where it was read.
pub struct EngineRule {
    pub engine: String,
    pub rule: KoRule,
    pub source: String,
}

/// The ko rule of `engine` if it can be known, `None` for an engine that does not say or does not
/// play Go.
///
/// # Errors
/// The engine failed the protocol.
pub fn ko_rule_of(engine: &mut GtpClient) -> anyhow::Result<Option<EngineRule>> {
    let knows = engine.send("known_command descent-game")?;
    if knows.as_deref().map(str::trim) == Ok("true") {
        let spec = engine.expect("descent-game")?;
        let Some(rule) = descent_ko_rule(&spec) else {
            return Ok(None);
        };
        return Ok(Some(EngineRule {
            engine: engine.name.clone(),
            rule,
            source: format!("its --game {spec}"),
        }));
    }
    if engine.name.starts_with("GNU Go") {
        let (rule, flag) = gnugo_ko_rule(&engine.command_line);
        return Ok(Some(EngineRule {
            engine: engine.name.clone(),
            rule,
            source: flag,
        }));
    }
    Ok(None)
}

/// The ko rule of a descent game spec, `None` if it is not Go.
fn descent_ko_rule(spec: &str) -> Option<KoRule> {
    let spec = spec.trim();
    let name = spec.split('(').next().unwrap_or("");
    if name != "go" {
        return None;
    }
    Some(if spec.contains("superko=illegal") {
        KoRule::PositionalSuperko
    } else {
        KoRule::RepetitionDraws
    })
}

/// GNU Go's ko rule from its command line: the last of its ko flags, else its default.
fn gnugo_ko_rule(command_line: &str) -> (KoRule, String) {
    let words = shlex::split(command_line).unwrap_or_default();
    let chosen = words.iter().rev().find_map(|word| {
        let rule = match word.as_str() {
            "--simple-ko" => KoRule::Simple,
            "--positional-superko" => KoRule::PositionalSuperko,
            "--situational-superko" => KoRule::SituationalSuperko,
            "--no-ko" => KoRule::NoKo,
            _ => return None,
        };
        Some((rule, word.clone()))
    });
    chosen.unwrap_or((KoRule::Simple, "GNU Go's default, --simple-ko".into()))
}

/// The rules line a match prints, or the refusal when two known rules differ.
///
/// # Errors
/// Two engines whose rules are known and differ: the message names each and the fix.
pub fn agreed_rules(rules: &[EngineRule]) -> anyhow::Result<Option<String>> {
    let Some(first) = rules.first() else {
        return Ok(None);
    };
    let each = || {
        rules
            .iter()
            .map(|r| format!("{}: {} ({})", r.engine, r.rule.words(), r.source))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if rules.iter().all(|r| r.rule == first.rule) {
        let sources: Vec<String> = rules
            .iter()
            .map(|r| format!("{}: {}", r.engine, r.source))
            .collect();
        return Ok(Some(format!(
            "ko rule: {}, every engine whose rule is known ({})",
            first.rule.words(),
            sources.join("; ")
        )));
    }
    anyhow::bail!(
        "the engines play different ko rules — {} — so a repeated board one allows would end the \
         game for the other mid-match; give them one rule, e.g. positional superko: \
         `descent engine --game go(superko=illegal)` and GNU Go's --positional-superko",
        each()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_read_from_specs_and_gnu_go_flags() {
        assert_eq!(
            descent_ko_rule("go(board_size=9,komi=7)"),
            Some(KoRule::RepetitionDraws)
        );
        assert_eq!(
            descent_ko_rule("go(superko=illegal,komi=7)"),
            Some(KoRule::PositionalSuperko)
        );
        assert_eq!(descent_ko_rule("hex(board_size=11)"), None);
        assert_eq!(gnugo_ko_rule("gnugo --mode gtp").0, KoRule::Simple);
        assert_eq!(
            gnugo_ko_rule("gnugo --mode gtp --positional-superko --level 3").0,
            KoRule::PositionalSuperko
        );
        assert_eq!(gnugo_ko_rule("gnugo --no-ko --simple-ko").0, KoRule::Simple);
    }

    #[test]
    fn two_known_rules_that_differ_are_refused_naming_both() {
        let rule = |engine: &str, rule| EngineRule {
            engine: engine.into(),
            rule,
            source: "test".into(),
        };
        let same = [
            rule("a", KoRule::PositionalSuperko),
            rule("b", KoRule::PositionalSuperko),
        ];
        assert!(
            agreed_rules(&same)
                .unwrap()
                .unwrap()
                .contains("positional superko")
        );
        let differ = [
            rule("a", KoRule::RepetitionDraws),
            rule("b", KoRule::Simple),
        ];
        let refused = agreed_rules(&differ).unwrap_err().to_string();
        assert!(
            refused.contains("a: a repeated board ends the game as a draw")
                && refused.contains("b: simple ko")
                && refused.contains("superko=illegal"),
            "{refused}"
        );
        assert!(agreed_rules(&[]).unwrap().is_none());
    }
}
