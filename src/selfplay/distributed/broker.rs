//! `Broker`: a distributed run's meeting point on a Redis server — the learner publishes the run's
//! configuration and each network version, workers take game numbers, send finished games and
//! say they are alive. Runs are namespaced: several share one server (one database) by their
//! names, `descent:<run>:<key>`; `descent:runs` lists the names opened there.
//!
//! Keys of a run (under `descent:<run>:`):
//!
//! | key | type | written by | what |
//! |---|---|---|---|
//! | `config`, `config_hash` | string | learner | the run's YAML and its hash (`TrainConfig::learned_hash`) |
//! | `net` | hash | learner | `version`, `manifest` (JSON), `weights` (burnpack), replaced in one `HSET` |
//! | `state` | string | learner | `running` or `finished` (workers stop) |
//! | `progress` | string | learner | training time so far, seconds (the workers' annealing) |
//! | `next_index` | counter | workers (`INCR`) | the next game number (its random stream) |
//! | `games` | stream | workers (`XADD`) | one entry per finished game: field `record`, a `GameRecord` |
//! | `worker:<id>` | string, 30 s TTL | each worker | its heartbeat (JSON) |
//! | `learner` | string, 30 s TTL | learner | its heartbeat (JSON) |
//! | `learner_id` | string, 30 s TTL | learner | who holds the run (host and run directory); another learner of the run refuses to start |
//! | `read_not_learned` | string | learner | games of its last read not learned yet: the workers' backlog counts them |
//!
//! The learner reads `games` through the consumer group `learners` as consumer `learner` and
//! acknowledges (then deletes) an entry only once a checkpoint holds what it taught; the
//! checkpoint keeps the last entry read, so a learner killed and resumed re-reads its pending
//! entries and skips those its checkpoint already holds — no game is lost or learned twice.
//!
//! Every command is retried on a lost connection (a Redis restart, a network cut) with a
//! backoff from 0.1 s to 5 s, each retry logged, for `DESCENT_BROKER_PATIENCE` seconds
//! (default 600) before the caller gets the error. The password comes from the URL
//! (`redis://user:password@host`) or `DESCENT_REDIS_PASSWORD`; it is never logged.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use redis::streams::{StreamReadOptions, StreamReadReply};
use redis::{Commands, Connection, RedisResult};

const PREFIX: &str = "descent:";
/// The set of the run names opened on a database.
const RUNS_KEY: &str = "descent:runs";
/// The longest run name.
const MAX_RUN_NAME: usize = 64;
const GROUP: &str = "learners";
const CONSUMER: &str = "learner";
/// The longest a Redis command may take (a blocking read waits a second at most) before its
/// connection is taken as lost and opened again.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The most games read and not learned a worker believes the learner to hold (it reads 16 at
/// a time).
const MAX_READ_NOT_LEARNED: u64 = 1024;

/// Seconds a heartbeat lives without renewal.
pub const HEARTBEAT_TTL: u64 = 30;

/// A connection to a run's keys, retrying on lost connections.
pub struct Broker {
    client: redis::Client,
    connection: Option<Connection>,
    /// The URL without its password, for messages.
    shown_url: String,
    patience: Duration,
    /// Connections lost and retried so far (a read whose reply was lost leaves its entries
    /// pending: the learner reads the pending ones again after a reconnection).
    reconnections: u64,
    /// The run whose keys this connection reads and writes (`use_run`).
    run: Option<String>,
}

/// An entry of the `games` stream: its id and its record's bytes, or why it has none.
pub struct StreamEntry {
    pub id: String,
    pub record: Result<Vec<u8>, String>,
}

/// The keys of one run: `descent:<run>:<name>`.
#[derive(Clone, Debug)]
struct Keys {
    prefix: String,
}

impl Keys {
    fn of_run(run: &str) -> Keys {
        Keys {
            prefix: format!("{PREFIX}{run}:"),
        }
    }

    fn of(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// `url` with any password replaced by `***`: in the user part (`redis://user:pw@host`; a user
/// part without `:`, `redis://SECRET@host`, which some clients read as a password, is hidden
/// whole) and in the query (`redis+unix:///s.sock?pass=pw`, `?password=pw`).
pub fn without_password(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut shown = match (base.find("://"), base.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &base[scheme + 3..at];
            let hidden = match credentials.split_once(':') {
                Some((user, _)) => format!("{user}:***"),
                None => "***".to_string(),
            };
            format!("{}{hidden}{}", &base[..scheme + 3], &base[at..])
        }
        _ => base.to_string(),
    };
    if let Some(query) = query {
        let fields: Vec<String> = query
            .split('&')
            .map(|field| match field.split_once('=') {
                Some((name, _)) if matches!(name, "pass" | "password") => format!("{name}=***"),
                _ => field.to_string(),
            })
            .collect();
        shown = format!("{shown}?{}", fields.join("&"));
    }
    shown
}

/// The environment variable giving how long (seconds) a lost connection is retried, and a
/// worker waits for a learner that stopped answering.
pub const PATIENCE_ENV: &str = "DESCENT_BROKER_PATIENCE";
/// The largest patience accepted (a week).
const MAX_PATIENCE_SECONDS: f64 = 7.0 * 86_400.0;

/// `DESCENT_BROKER_PATIENCE` (default 600 s).
///
/// # Errors
/// A value that is not a number of seconds from 0 to a week.
pub fn patience() -> anyhow::Result<Duration> {
    let Ok(text) = std::env::var(PATIENCE_ENV) else {
        return Ok(Duration::from_secs(600));
    };
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=MAX_PATIENCE_SECONDS).contains(&seconds) => {
            Ok(Duration::from_secs_f64(seconds))
        }
        _ => bail!(
            "{PATIENCE_ENV}={text:?}: expected a number of seconds from 0 to {MAX_PATIENCE_SECONDS} (a week)"
        ),
    }
}

impl Broker {
    /// Opens `url` (`redis://[user:password@]host:port[/db]`; `rediss://` is refused: this build
    /// has no TLS) and checks the server answers.
    ///
    /// # Errors
    /// A URL that is not a Redis URL, or a server that does not answer within the patience.
    pub fn connect(url: &str) -> anyhow::Result<Broker> {
        Broker::connect_with(url, patience()?)
    }

    /// `connect` retrying a lost server for `patience` (a command a person waits for, such as
    /// `descent status`, gives up sooner than a run).
    ///
    /// # Errors
    /// As `connect`.
    pub fn connect_with(url: &str, patience: Duration) -> anyhow::Result<Broker> {
        let shown_url = without_password(url);
        if url.starts_with("rediss://") {
            bail!(
                "{shown_url}: TLS (rediss://) is not built into this descent; reach Redis through an SSH tunnel or a private network"
            );
        }
        let mut info: redis::ConnectionInfo = url.parse().with_context(|| {
            format!(
                "{shown_url} is not a Redis URL (expected redis://[user:password@]host:port[/db])"
            )
        })?;
        if info.redis.password.is_none()
            && let Ok(password) = std::env::var("DESCENT_REDIS_PASSWORD")
        {
            info.redis.password = Some(password);
        }
        let mut broker = Broker {
            client: redis::Client::open(info).with_context(|| shown_url.clone())?,
            connection: None,
            shown_url,
            patience,
            reconnections: 0,
            run: None,
        };
        broker.call("PING", |c| redis::cmd("PING").query::<String>(c))?;
        Ok(broker)
    }

    /// The URL without its password.
    pub fn url(&self) -> &str {
        &self.shown_url
    }

    /// Reads and writes the keys of run `name` from now on.
    ///
    /// # Errors
    /// A name that is empty, longer than 64 characters or has characters other than letters,
    /// digits, `.`, `_` and `-`.
    pub fn use_run(&mut self, name: &str) -> anyhow::Result<()> {
        check_run_name(name)?;
        self.run = Some(name.to_string());
        Ok(())
    }

    /// The run in use.
    pub fn run_name(&self) -> Option<&str> {
        self.run.as_deref()
    }

    fn keys(&self) -> Keys {
        Keys::of_run(
            self.run
                .as_deref()
                .expect("a run chosen (use_run) before its keys"),
        )
    }

    /// The names of the runs opened on this database, sorted.
    pub fn runs(&mut self) -> anyhow::Result<Vec<String>> {
        let mut names: Vec<String> = self.call("list the runs", |c| c.smembers(RUNS_KEY))?;
        names.sort();
        Ok(names)
    }

    /// The run to join when none is named: the only one opened here, or the only one whose
    /// learner is live; `None` while there is none yet.
    ///
    /// # Errors
    /// Several runs and no way to choose (their names are listed).
    pub fn only_run(&mut self) -> anyhow::Result<Option<String>> {
        let names = self.runs()?;
        if names.len() <= 1 {
            return Ok(names.into_iter().next());
        }
        let mut live = Vec::new();
        for name in &names {
            let key = Keys::of_run(name).of("learner");
            if self.call("read a learner's heartbeat", |c| c.exists::<_, bool>(&key))? {
                live.push(name.clone());
            }
        }
        if live.len() == 1 {
            return Ok(live.pop());
        }
        bail!(
            "{}: several runs on this database ({}); name one with --run NAME",
            self.shown_url,
            names.join(", ")
        )
    }

    /// Runs `op` on the connection, reconnecting and retrying with backoff while the connection
    /// is lost; any other error (a wrong password, a wrong type) is returned at once.
    fn call<T>(
        &mut self,
        what: &str,
        mut op: impl FnMut(&mut Connection) -> RedisResult<T>,
    ) -> anyhow::Result<T> {
        let start = Instant::now();
        let mut wait = Duration::from_millis(100);
        let mut failed = false;
        loop {
            let result = match self.connection.as_mut() {
                Some(connection) => op(connection),
                None => self
                    .client
                    .get_connection_with_timeout(Duration::from_secs(5))
                    .and_then(|mut connection| {
                        // Every command answered within the timeout, or the connection is
                        // taken as lost (a link black-holed mid-command included).
                        connection.set_read_timeout(Some(COMMAND_TIMEOUT))?;
                        connection.set_write_timeout(Some(COMMAND_TIMEOUT))?;
                        let result = op(&mut connection);
                        self.connection = Some(connection);
                        result
                    }),
            };
            match result {
                Ok(value) => {
                    if failed {
                        tracing::info!(
                            "{}: {what}: reconnected after {:.1} s",
                            self.shown_url,
                            start.elapsed().as_secs_f64()
                        );
                    }
                    return Ok(value);
                }
                Err(e) if is_lost_connection(&e) && start.elapsed() < self.patience => {
                    tracing::warn!(
                        "{}: {what}: {e}; retrying in {:.1} s",
                        self.shown_url,
                        wait.as_secs_f64()
                    );
                    failed = true;
                    self.connection = None;
                    self.reconnections += 1;
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
                Err(e) => {
                    return Err(anyhow::anyhow!(
                        "{}: {what}: {}",
                        self.shown_url,
                        explained(&e)
                    ));
                }
            }
        }
    }

    // --- The learner's side ---

    /// Publishes the run's configuration and marks it running; creates the games stream's
    /// consumer group; numbers the next games from at least `next_index`.
    pub fn open_run(
        &mut self,
        config_yaml: &str,
        hash: &str,
        next_index: u64,
    ) -> anyhow::Result<()> {
        let k = self.keys();
        let run = self.run.clone().expect("a run chosen");
        self.call("publish the configuration", |c| {
            redis::pipe()
                .atomic()
                .sadd(RUNS_KEY, &run)
                .set(k.of("config"), config_yaml)
                .set(k.of("config_hash"), hash)
                .set(k.of("state"), "running")
                .query::<()>(c)
        })?;
        let created = self.call("create the consumer group", |c| {
            match c.xgroup_create_mkstream::<_, _, _, ()>(k.of("games"), GROUP, "0") {
                Err(e) if e.code() == Some("BUSYGROUP") => Ok(false),
                other => other.map(|()| true),
            }
        })?;
        if created {
            tracing::info!("{}: created the stream {}", self.shown_url, k.of("games"));
        }
        // Never hand out a number already played: the larger of the counter and ours, in one
        // step (workers may be taking numbers meanwhile).
        const RAISE: &str = "local c = tonumber(redis.call('GET', KEYS[1]) or '0') \
            if c < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end return 0";
        self.call("raise next_index", |c| {
            redis::cmd("EVAL")
                .arg(RAISE)
                .arg(1)
                .arg(k.of("next_index"))
                .arg(next_index)
                .query::<i64>(c)
        })?;
        Ok(())
    }

    /// Publishes network `version` (manifest JSON and burnpack weights) in one command.
    pub fn publish_net(
        &mut self,
        version: u64,
        manifest: &str,
        weights: &[u8],
    ) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("publish the network", |c| {
            redis::cmd("HSET")
                .arg(k.of("net"))
                .arg("version")
                .arg(version)
                .arg("manifest")
                .arg(manifest)
                .arg("weights")
                .arg(weights)
                .query::<()>(c)
        })
    }

    /// Claims (or renews) the run for the learner `identity` for `HEARTBEAT_TTL` seconds,
    /// unless another learner holds it.
    ///
    /// # Errors
    /// Another learner's claim is live (its identity is named), or the server does not answer.
    pub fn claim_learner(&mut self, identity: &str) -> anyhow::Result<()> {
        let k = self.keys();
        const CLAIM: &str = "local holder = redis.call('GET', KEYS[1]) \
            if holder and holder ~= ARGV[1] then return holder end \
            redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return false";
        let holder: Option<String> = self.call("claim the run", |c| {
            redis::cmd("EVAL")
                .arg(CLAIM)
                .arg(1)
                .arg(k.of("learner_id"))
                .arg(identity)
                .arg(HEARTBEAT_TTL)
                .query(c)
        })?;
        match holder {
            None => Ok(()),
            Some(holder) => bail!(
                "{}: another learner is live for run {} ({holder}); two learners of one run would overwrite each other's network and refuse each other's games. Stop it first, give this run another name (its run directory's), or, if it was killed, wait {HEARTBEAT_TTL} s for its claim to lapse",
                self.shown_url,
                self.run.as_deref().unwrap_or("")
            ),
        }
    }

    /// Gives up the claim of `identity` (a learner that stopped), if it still holds it.
    ///
    /// # Errors
    /// The server does not answer.
    pub fn release_learner(&mut self, identity: &str) -> anyhow::Result<()> {
        let k = self.keys();
        const RELEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
            return redis.call('DEL', KEYS[1]) end return 0";
        self.call("release the run", |c| {
            redis::cmd("EVAL")
                .arg(RELEASE)
                .arg(1)
                .arg(k.of("learner_id"))
                .arg(identity)
                .query::<i64>(c)
        })?;
        Ok(())
    }

    /// Publishes the training time so far and the learner's heartbeat, renewing its claim.
    ///
    /// # Errors
    /// Another learner holds the database now, or the server does not answer.
    pub fn learner_alive(
        &mut self,
        identity: &str,
        elapsed_seconds: f64,
        status_json: &str,
    ) -> anyhow::Result<()> {
        let k = self.keys();
        self.claim_learner(identity)?;
        self.call("learner heartbeat", |c| {
            redis::pipe()
                .set(k.of("progress"), elapsed_seconds)
                .set_ex(k.of("learner"), status_json, HEARTBEAT_TTL)
                .query::<()>(c)
        })
    }

    /// Game numbers handed out so far (the counter workers take them from).
    pub fn handed_out(&mut self) -> anyhow::Result<u64> {
        let k = self.keys();
        let next: Option<u64> = self.call("read next_index", |c| c.get(k.of("next_index")))?;
        Ok(next.unwrap_or(0))
    }

    /// Up to `count` entries of the games stream: with `pending`, those delivered to the learner
    /// before and not acknowledged (a resumed learner's); else new ones, waiting up to
    /// `block_ms` for one.
    pub fn read_games(
        &mut self,
        pending_after: Option<&str>,
        count: usize,
        block_ms: usize,
    ) -> anyhow::Result<Vec<StreamEntry>> {
        let k = self.keys();
        let mut options = StreamReadOptions::default()
            .group(GROUP, CONSUMER)
            .count(count);
        if pending_after.is_none() {
            options = options.block(block_ms);
        }
        let start = pending_after.unwrap_or(">");
        let reply: Option<StreamReadReply> = self.call("read games", |c| {
            c.xread_options(&[k.of("games")], &[start], &options)
        })?;
        let entries = reply
            .into_iter()
            .flat_map(|r| r.keys)
            .flat_map(|k| k.ids)
            .map(|entry| {
                let record = match entry.map.get("record") {
                    Some(value) => redis::from_redis_value::<Vec<u8>>(value)
                        .map_err(|_| "its `record` field is not bytes".to_string()),
                    None => {
                        // Named shortly: a hostile entry's names may be long.
                        let mut fields: Vec<String> = entry
                            .map
                            .keys()
                            .map(|k| k.chars().take(40).collect())
                            .collect();
                        fields.sort_unstable();
                        fields.truncate(8);
                        Err(format!(
                            "the entry has no `record` field (its fields: {})",
                            fields.join(", ")
                        ))
                    }
                };
                StreamEntry {
                    record,
                    id: entry.id,
                }
            })
            .collect();
        Ok(entries)
    }

    /// Acknowledges and deletes entries of the games stream (their games are in a checkpoint).
    pub fn acknowledge(&mut self, ids: &[String]) -> anyhow::Result<()> {
        let k = self.keys();
        for chunk in ids.chunks(512) {
            self.call("acknowledge games", |c| {
                redis::pipe()
                    .atomic()
                    .xack(k.of("games"), GROUP, chunk)
                    .xdel(k.of("games"), chunk)
                    .query::<()>(c)
            })?;
        }
        Ok(())
    }

    /// Marks the run finished: workers stop after their game in progress.
    pub fn finish_run(&mut self) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("mark the run finished", |c| {
            c.set::<_, _, ()>(k.of("state"), "finished")
        })
    }

    /// Connections lost and retried so far.
    pub fn reconnections(&self) -> u64 {
        self.reconnections
    }

    // --- The workers' side ---

    /// The run's configuration and its hash, once a learner has published them.
    pub fn run_config(&mut self) -> anyhow::Result<Option<(String, String)>> {
        let k = self.keys();
        let (yaml, hash): (Option<String>, Option<String>) =
            self.call("read the configuration", |c| {
                redis::pipe()
                    .get(k.of("config"))
                    .get(k.of("config_hash"))
                    .query(c)
            })?;
        Ok(yaml.zip(hash))
    }

    /// Whether the learner has marked the run finished.
    pub fn run_finished(&mut self) -> anyhow::Result<bool> {
        let k = self.keys();
        let state: Option<String> = self.call("read the run state", |c| c.get(k.of("state")))?;
        Ok(state.as_deref() == Some("finished"))
    }

    /// The version of the latest network, if one is published.
    pub fn net_version(&mut self) -> anyhow::Result<Option<u64>> {
        let k = self.keys();
        self.call("read the network version", |c| {
            c.hget(k.of("net"), "version")
        })
    }

    /// The latest network: its version, manifest JSON and weights.
    pub fn fetch_net(&mut self) -> anyhow::Result<Option<(u64, String, Vec<u8>)>> {
        let k = self.keys();
        let (version, manifest, weights): (Option<u64>, Option<String>, Option<Vec<u8>>) = self
            .call("fetch the network", |c| {
                redis::cmd("HMGET")
                    .arg(k.of("net"))
                    .arg("version")
                    .arg("manifest")
                    .arg("weights")
                    .query(c)
            })?;
        Ok(match (version, manifest, weights) {
            (Some(v), Some(m), Some(w)) => Some((v, m, w)),
            _ => None,
        })
    }

    /// The number of the next game to play (unique across workers).
    pub fn take_game_index(&mut self) -> anyhow::Result<u64> {
        let k = self.keys();
        let next: u64 = self.call("take a game number", |c| c.incr(k.of("next_index"), 1))?;
        Ok(next - 1)
    }

    /// The training time the learner last published.
    pub fn progress_seconds(&mut self) -> anyhow::Result<f64> {
        let k = self.keys();
        let seconds: Option<f64> = self.call("read the progress", |c| c.get(k.of("progress")))?;
        Ok(seconds.unwrap_or(0.0))
    }

    /// Games in the stream that the learner has not read yet.
    pub fn backlog(&mut self) -> anyhow::Result<u64> {
        let k = self.keys();
        let (length, pending, reading): (u64, Vec<redis::Value>, Option<u64>) =
            self.call("measure the backlog", |c| {
                redis::pipe()
                    .xlen(k.of("games"))
                    .cmd("XPENDING")
                    .arg(k.of("games"))
                    .arg(GROUP)
                    .get(k.of("read_not_learned"))
                    .query(c)
            })?;
        let read = match pending.first() {
            Some(redis::Value::Int(n)) => u64::try_from(*n).unwrap_or(0),
            _ => 0,
        };
        // Bounded: a hostile value cannot make a worker wait for ever.
        let reading = reading.unwrap_or(0).min(MAX_READ_NOT_LEARNED);
        Ok(length.saturating_sub(read) + reading)
    }

    /// The learner: how many of the entries it has read are not learned yet (the backlog
    /// workers wait on counts them).
    ///
    /// # Errors
    /// The server does not answer.
    pub fn note_read_not_learned(&mut self, games: usize) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("note the games read", |c| {
            c.set::<_, _, ()>(k.of("read_not_learned"), games)
        })
    }

    /// Sends a finished game's record.
    pub fn send_game(&mut self, record: &[u8]) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("send a game", |c| {
            c.xadd::<_, _, _, _, Option<String>>(k.of("games"), "*", &[("record", record)])
        })?;
        Ok(())
    }

    /// A worker's heartbeat.
    pub fn worker_alive(&mut self, worker: &str, status_json: &str) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("worker heartbeat", |c| {
            c.set_ex::<_, _, ()>(
                k.of(&format!("worker:{worker}")),
                status_json,
                HEARTBEAT_TTL,
            )
        })
    }

    /// Removes a worker's heartbeat (it stops).
    pub fn worker_gone(&mut self, worker: &str) -> anyhow::Result<()> {
        let k = self.keys();
        self.call("remove a worker's heartbeat", |c| {
            c.del::<_, ()>(k.of(&format!("worker:{worker}")))
        })
    }

    /// Whether the learner's heartbeat is live.
    pub fn learner_is_alive(&mut self) -> anyhow::Result<bool> {
        let k = self.keys();
        self.call("read the learner's heartbeat", |c| {
            c.exists(k.of("learner"))
        })
    }

    /// How long lost connections are retried (`DESCENT_BROKER_PATIENCE`).
    /// Retries a lost connection for at most `patience` from now on.
    pub fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    pub fn patience(&self) -> Duration {
        self.patience
    }

    // --- Status ---

    /// The live heartbeats and the games in the stream.
    pub fn status(&mut self) -> anyhow::Result<RunStatus> {
        let k = self.keys();
        let learner: Option<String> = self.call("read the learner", |c| c.get(k.of("learner")))?;
        let pattern = k.of("worker:*");
        let mut names: Vec<String> = self.call("list workers", |c| {
            c.scan_match::<_, String>(&pattern).map(|i| i.collect())
        })?;
        names.sort();
        let mut workers = Vec::new();
        for name in names {
            let json: Option<String> = self.call("read a worker", |c| c.get(&name))?;
            if let Some(json) = json {
                workers.push((name[pattern.len() - 1..].to_string(), json));
            }
        }
        let queued: u64 = self.call("count queued games", |c| c.xlen(k.of("games")))?;
        Ok(RunStatus {
            learner,
            workers,
            queued,
        })
    }
}

/// What `descent bench learner` reads and writes besides a worker's commands.
impl Broker {
    /// Up to `count` records waiting in the games stream, oldest first, without reading them
    /// for the learner (`XRANGE`): entries stay until a checkpoint holds their games.
    pub fn sample_records(&mut self, count: usize) -> anyhow::Result<Vec<Vec<u8>>> {
        let k = self.keys();
        let reply: redis::streams::StreamRangeReply = self
            .call("sample the games stream", |c| {
                c.xrange_count(k.of("games"), "-", "+", count)
            })?;
        Ok(reply
            .ids
            .iter()
            .filter_map(|entry| entry.get::<Vec<u8>>("record"))
            .collect())
    }

    /// Bytes Redis holds for a stream of `records` (`MEMORY USAGE` of a scratch key of the run,
    /// written, measured and deleted).
    pub fn stream_bytes(&mut self, records: &[Vec<u8>]) -> anyhow::Result<u64> {
        let key = self.keys().of("bench-scratch");
        self.call("clear the scratch stream", |c| c.del::<_, ()>(&key))?;
        for record in records {
            self.call("fill the scratch stream", |c| {
                c.xadd::<_, _, _, _, String>(&key, "*", &[("record", record)])
            })?;
        }
        let bytes: Option<u64> = self.call("measure the scratch stream", |c| {
            redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(&key)
                .arg("SAMPLES")
                .arg(0)
                .query(c)
        })?;
        self.call("delete the scratch stream", |c| c.del::<_, ()>(&key))?;
        Ok(bytes.unwrap_or(0))
    }
}

/// A distributed run at a glance (`Broker::status`).
pub struct RunStatus {
    /// The learner's heartbeat (JSON), if alive.
    pub learner: Option<String>,
    /// Each live worker's `(id, heartbeat JSON)`.
    pub workers: Vec<(String, String)>,
    /// Games in the stream: not yet read, or read and not yet acknowledged.
    pub queued: u64,
}

/// Refuses a run name that could not be a key's part.
fn check_run_name(name: &str) -> anyhow::Result<()> {
    let fits = !name.is_empty()
        && name.len() <= MAX_RUN_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !fits {
        bail!("run name {name:?}: expected 1 to {MAX_RUN_NAME} letters, digits, '.', '_' or '-'");
    }
    Ok(())
}

/// A run name from a run directory's name: its characters outside letters, digits, `.`, `_`
/// and `-` replaced by `_`, at most 64 of them.
pub fn run_name_of(dir_name: &str) -> String {
    let name: String = dir_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_RUN_NAME)
        .collect();
    if name.is_empty() { "run".into() } else { name }
}

/// Whether `error` is a lost or refused connection (worth retrying), not a refusal by the
/// server.
/// A Redis error as a person can act on it: a timeout said as one, a stream that vanished with
/// its likely cause.
fn explained(error: &redis::RedisError) -> String {
    if error.is_timeout() {
        return format!("no reply within {} s ({error})", COMMAND_TIMEOUT.as_secs());
    }
    if error.code() == Some("NOGROUP") {
        return format!(
            "{error}: the run's games stream is gone — the server lost its data (restarted \
             without an append-only file?); run Redis with appendonly yes and appendfsync always \
             (docs/distributed.md)"
        );
    }
    error.to_string()
}

fn is_lost_connection(error: &redis::RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || matches!(error.code(), Some("LOADING" | "TRYAGAIN" | "MASTERDOWN"))
}

/// The `(milliseconds, sequence)` of a stream entry id `ms-seq`, to compare ids.
pub fn entry_order(id: &str) -> Option<(u64, u64)> {
    let (ms, seq) = id.split_once('-')?;
    Some((ms.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_and_entry_ids_compare_as_numbers() {
        assert_eq!(
            without_password("redis://u:secret@h:1/2"),
            "redis://u:***@h:1/2"
        );
        assert_eq!(without_password("redis://:secret@h"), "redis://:***@h");
        assert_eq!(without_password("redis://h:6379"), "redis://h:6379");
        assert_eq!(without_password("redis://SECRET@h"), "redis://***@h");
        assert_eq!(
            without_password("redis+unix:///s.sock?db=2&pass=SECRET"),
            "redis+unix:///s.sock?db=2&pass=***"
        );
        assert_eq!(
            without_password("redis://u:a@h/0?password=b@c"),
            "redis://u:***@h/0?password=***"
        );
        assert!(entry_order("1700000000000-10") > entry_order("1700000000000-9"));
        assert!(entry_order("999-0") < entry_order("1000-0"));
        assert_eq!(entry_order("garbage"), None);
    }

    #[test]
    fn run_names_are_key_safe() {
        assert_eq!(run_name_of("awale"), "awale");
        assert_eq!(run_name_of("my run:1/é"), "my_run_1__");
        assert_eq!(run_name_of(""), "run");
        assert_eq!(run_name_of(&"x".repeat(100)).len(), MAX_RUN_NAME);
        for good in ["awale", "c4-2026.v1_b"] {
            assert!(check_run_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a:b", "a*", "a b", &"x".repeat(65)] {
            assert!(check_run_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_urls_and_tls_are_refused_naming_the_url() {
        let e = Broker::connect("http://example.org")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not a Redis URL"), "{e}");
        let e = Broker::connect("rediss://u:pw@host:1")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("TLS") && !e.contains("pw@"), "{e}");
    }
}
