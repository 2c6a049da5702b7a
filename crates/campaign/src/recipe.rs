//! A recipe: how to start, watch and stop an instance on one platform with
//! its own command-line tools (or the user's scripts, for a marketplace
//! with no API). TOML, one file per platform, several offerings in it:
//!
//! ```toml
//! platform = "AutoDL"
//!
//! [[offering]]
//! name = "a100-80g"
//! price_per_hour = 12.8
//! currency = "CNY"
//! warm_image = "img-warm"
//! cold_image = "img-cold"
//!
//! [commands]
//! launch = "cloud run --image {image} --type {offering} --name {name}"
//! id = { regex = "instance (i-[0-9a-f]+)" }
//! address = { json_pointer = "/ip" }
//! status = "cloud describe {id}"
//! provisioned = { regex = "RUNNING" }
//! ready = "ssh root@{address} true"
//! first_compute = "ssh root@{address} python3 -c 'import torch; torch.ones(1).cuda()'"
//! teardown = "cloud delete {id}"
//! gone = { regex = "InstanceNotFound" }
//!
//! [timeouts]
//! launch = "2m"
//! provision = "10m"
//! ready = "10m"
//! first_compute = "5m"
//! teardown = "2m"
//! poll = "5s"
//! ```
//!
//! Everything is checked before anything runs: TOML syntax (with the line),
//! unknown keys, each command's placeholders (a placeholder a stage cannot
//! know yet — `{id}` in the launch — is refused), regular expressions and
//! JSON pointers.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Deserialize;

/// Why a recipe was refused; nothing ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct RecipeError {
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The platform the campaign's runs are filed under, when the recipe
    /// names one (`--platform` overrides).
    pub platform: Option<String>,
    pub offerings: Vec<OfferingRecipe>,
    pub commands: Commands,
    pub timeouts: Timeouts,
    /// SHA-256 of the recipe's bytes: kept with every run it produced.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OfferingRecipe {
    pub name: String,
    /// Per instance and hour; the estimate before a campaign uses it.
    pub price_per_hour: Option<f64>,
    pub currency: String,
    pub warm_image: Option<String>,
    pub cold_image: Option<String>,
}

impl OfferingRecipe {
    pub fn image(&self, cold: bool) -> Option<&str> {
        if cold {
            self.cold_image.as_deref()
        } else {
            self.warm_image.as_deref()
        }
    }
}

/// How a value is read from a command's output.
#[derive(Debug, Clone)]
pub enum Extract {
    /// The first capture group (or the whole match) of a regular expression.
    Regex(regex_lite::Regex),
    /// A JSON pointer into the output parsed as JSON.
    JsonPointer(String),
}

impl PartialEq for Extract {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Extract::Regex(a), Extract::Regex(b)) => a.as_str() == b.as_str(),
            (Extract::JsonPointer(a), Extract::JsonPointer(b)) => a == b,
            _ => false,
        }
    }
}

impl Extract {
    /// The value in `output`, if it is there.
    pub fn find(&self, output: &str) -> Option<String> {
        match self {
            Extract::Regex(re) => {
                let caps = re.captures(output)?;
                let m = caps.get(1).or_else(|| caps.get(0))?;
                Some(m.as_str().trim().to_string()).filter(|v| !v.is_empty())
            }
            Extract::JsonPointer(pointer) => {
                let doc: serde_json::Value = serde_json::from_str(output.trim()).ok()?;
                match doc.pointer(pointer)? {
                    serde_json::Value::String(s) => Some(s.trim().to_string()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                }
                .filter(|v| !v.is_empty())
            }
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Extract::Regex(re) => format!("regex {}", re.as_str()),
            Extract::JsonPointer(p) => format!("JSON pointer {p}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Commands {
    pub launch: String,
    pub id: Extract,
    /// Read from the launch's output, or else from the status output that
    /// says the instance is provisioned (clouds assign addresses late).
    pub address: Option<Extract>,
    /// Polled until its output matches `provisioned`; without it the
    /// instance counts as provisioned when the launch returns.
    pub status: Option<String>,
    pub provisioned: Option<Extract>,
    /// Polled until it succeeds (exit 0): the image is up.
    pub ready: Option<String>,
    /// Run once after ready: the first computation on the accelerator.
    pub first_compute: String,
    pub teardown: String,
    /// What the platform answers a teardown of an instance it no longer
    /// has; without it only the built-in answers count (see `gone`).
    pub gone: Option<Extract>,
}

impl Commands {
    /// The `gone` pattern's text, as the ledger keeps it.
    pub fn gone_pattern(&self) -> Option<String> {
        match &self.gone {
            Some(Extract::Regex(re)) => Some(re.as_str().to_string()),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    pub launch: Duration,
    pub provision: Duration,
    pub ready: Duration,
    pub first_compute: Duration,
    pub teardown: Duration,
    pub poll: Duration,
}

impl Timeouts {
    /// The longest an instance can be up before the campaign gives up on
    /// it and tears it down: what the cost estimate charges.
    pub fn worst_case(&self) -> Duration {
        self.launch + self.provision + self.ready + self.first_compute + self.teardown
    }
}

/// The placeholders each command may use: what is known when it runs.
const LAUNCH_KEYS: &[&str] = &["image", "offering", "name"];
const AFTER_LAUNCH_KEYS: &[&str] = &["image", "offering", "name", "id", "address"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    platform: Option<String>,
    #[serde(rename = "offering")]
    offerings: Vec<RawOffering>,
    commands: RawCommands,
    #[serde(default)]
    timeouts: RawTimeouts,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOffering {
    name: String,
    price_per_hour: Option<f64>,
    #[serde(default = "default_currency")]
    currency: String,
    warm_image: Option<String>,
    cold_image: Option<String>,
}

fn default_currency() -> String {
    "CNY".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommands {
    launch: String,
    id: RawExtract,
    address: Option<RawExtract>,
    status: Option<String>,
    provisioned: Option<RawExtract>,
    ready: Option<String>,
    first_compute: String,
    teardown: String,
    gone: Option<RawExtract>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExtract {
    regex: Option<String>,
    json_pointer: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTimeouts {
    launch: Option<String>,
    provision: Option<String>,
    ready: Option<String>,
    first_compute: Option<String>,
    teardown: Option<String>,
    poll: Option<String>,
}

pub use breakpoint_core::text::parse_duration;

impl Recipe {
    /// Parse and check a recipe; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Recipe, RecipeError> {
        let source = Source { text, file };
        let raw: RawRecipe = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| source.line_of(s.start + 1));
            source.error(line, e.message().trim().to_string())
        })?;
        source.check_offerings(&raw.offerings)?;
        let commands = source.commands(&raw.commands)?;
        let timeouts = source.timeouts(&raw.timeouts)?;
        Ok(Recipe {
            platform: raw.platform,
            offerings: raw
                .offerings
                .into_iter()
                .map(|o| OfferingRecipe {
                    name: o.name,
                    price_per_hour: o.price_per_hour,
                    currency: o.currency,
                    warm_image: o.warm_image,
                    cold_image: o.cold_image,
                })
                .collect(),
            commands,
            timeouts,
            sha256: breakpoint_core::archive::sha256_hex(text.as_bytes()),
        })
    }

    pub fn offering(&self, name: &str) -> Option<&OfferingRecipe> {
        self.offerings.iter().find(|o| o.name == name)
    }
}

/// A recipe's text while it is checked: every refusal names the file and,
/// where it can, the line.
struct Source<'a> {
    text: &'a str,
    file: &'a str,
}

impl Source<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .lines()
            .count()
            .max(1)
    }

    /// The line where `needle` first appears.
    fn at(&self, needle: &str) -> Option<usize> {
        self.text.find(needle).map(|o| self.line_of(o))
    }

    fn error(&self, line: Option<usize>, reason: String) -> RecipeError {
        RecipeError {
            file: self.file.to_string(),
            line,
            reason,
        }
    }

    /// At least one offering, each named once, with a price if any.
    fn check_offerings(&self, offerings: &[RawOffering]) -> Result<(), RecipeError> {
        if offerings.is_empty() {
            return Err(self.error(None, "no [[offering]]: name at least one".into()));
        }
        let mut names = BTreeSet::new();
        for o in offerings {
            if !names.insert(o.name.as_str()) {
                return Err(self.error(
                    self.at(&o.name),
                    format!("offering \"{}\" is named twice", o.name),
                ));
            }
            if let Some(p) = o.price_per_hour
                && !(p.is_finite() && p >= 0.0)
            {
                return Err(self.error(
                    self.at(&o.name),
                    format!("price_per_hour of \"{}\" must be a price", o.name),
                ));
            }
        }
        Ok(())
    }

    /// A command is not empty and uses only the placeholders known when it
    /// runs.
    fn check_command(
        &self,
        name: &str,
        command: &str,
        allowed: &[&str],
    ) -> Result<(), RecipeError> {
        for key in placeholders(command)
            .map_err(|r| self.error(self.at(command), format!("{name}: {r}")))?
        {
            if !allowed.contains(&key.as_str()) {
                let known = if AFTER_LAUNCH_KEYS.contains(&key.as_str()) {
                    format!("{{{key}}} is not known yet when {name} runs")
                } else {
                    format!(
                        "unknown placeholder {{{key}}} (known: {})",
                        AFTER_LAUNCH_KEYS
                            .iter()
                            .map(|k| format!("{{{k}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                return Err(self.error(self.at(command), format!("{name}: {known}")));
            }
        }
        if command.trim().is_empty() {
            return Err(self.error(None, format!("{name}: the command is empty")));
        }
        Ok(())
    }

    fn commands(&self, c: &RawCommands) -> Result<Commands, RecipeError> {
        self.check_command("launch", &c.launch, LAUNCH_KEYS)?;
        let after: Vec<&str> = if c.address.is_some() {
            AFTER_LAUNCH_KEYS.to_vec()
        } else {
            AFTER_LAUNCH_KEYS
                .iter()
                .copied()
                .filter(|k| *k != "address")
                .collect()
        };
        for (name, command) in [
            ("status", c.status.as_deref()),
            ("ready", c.ready.as_deref()),
            ("first_compute", Some(c.first_compute.as_str())),
            ("teardown", Some(c.teardown.as_str())),
        ] {
            if let Some(command) = command {
                self.check_command(name, command, &after)?;
            }
        }
        if c.status.is_some() != c.provisioned.is_some() {
            return Err(self.error(
                self.at("status").or(self.at("provisioned")),
                "status and provisioned go together: the status command is polled until its output matches provisioned".into(),
            ));
        }
        Ok(Commands {
            launch: c.launch.clone(),
            id: self.extract("id", &c.id)?,
            address: c
                .address
                .as_ref()
                .map(|a| self.extract("address", a))
                .transpose()?,
            status: c.status.clone(),
            provisioned: c
                .provisioned
                .as_ref()
                .map(|p| self.extract("provisioned", p))
                .transpose()?,
            ready: c.ready.clone(),
            first_compute: c.first_compute.clone(),
            teardown: c.teardown.clone(),
            gone: match &c.gone {
                None => None,
                Some(g) if g.json_pointer.is_some() => {
                    return Err(self.error(
                        self.at("gone"),
                        "gone: a regex the teardown's answer matches when the instance no longer exists (json_pointer does not apply)".into(),
                    ));
                }
                Some(g) => Some(self.extract("gone", g)?),
            },
        })
    }

    /// How a value is read from a command's output: a regex or a JSON
    /// pointer, exactly one.
    fn extract(&self, name: &str, raw: &RawExtract) -> Result<Extract, RecipeError> {
        match (&raw.regex, &raw.json_pointer) {
            (Some(re), None) => regex_lite::Regex::new(re).map(Extract::Regex).map_err(|e| {
                self.error(
                    self.at(re),
                    format!("{name}: not a regular expression: {e}"),
                )
            }),
            (None, Some(p)) if p.is_empty() || p.starts_with('/') => {
                Ok(Extract::JsonPointer(p.clone()))
            }
            (None, Some(p)) => Err(self.error(
                self.at(p),
                format!("{name}: a JSON pointer starts with / (\"{p}\")"),
            )),
            _ => Err(self.error(
                self.at(name),
                format!("{name}: give either regex or json_pointer"),
            )),
        }
    }

    fn timeouts(&self, t: &RawTimeouts) -> Result<Timeouts, RecipeError> {
        let duration = |name: &str, value: &Option<String>, default: u64| match value {
            None => Ok(Duration::from_secs(default)),
            Some(v) => parse_duration(v).ok_or_else(|| {
                self.error(
                    self.at(v),
                    format!("timeouts.{name}: \"{v}\" is not a duration (90s, 10m, 1h)"),
                )
            }),
        };
        Ok(Timeouts {
            launch: duration("launch", &t.launch, 120)?,
            provision: duration("provision", &t.provision, 600)?,
            ready: duration("ready", &t.ready, 600)?,
            first_compute: duration("first_compute", &t.first_compute, 300)?,
            teardown: duration("teardown", &t.teardown, 120)?,
            poll: duration("poll", &t.poll, 5)?,
        })
    }
}

/// The `{name}` placeholders of a command. `{{` and `}}` are literal braces.
pub fn placeholders(command: &str) -> Result<Vec<String>, String> {
    let mut keys = Vec::new();
    let mut chars = command.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
            }
            '{' => {
                let rest = &command[i + 1..];
                let end = rest
                    .find('}')
                    .ok_or_else(|| format!("a {{ at character {} is never closed", i + 1))?;
                keys.push(rest[..end].trim().to_string());
                for _ in 0..end + 1 {
                    chars.next();
                }
            }
            '}' => return Err(format!("a }} at character {} closes nothing", i + 1)),
            _ => {}
        }
    }
    Ok(keys)
}

/// A command with its placeholders filled. Values are quoted for the
/// shell, so an id or an address cannot run commands of its own.
pub fn fill(command: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let rest = &command[i + 1..];
                let end = rest.find('}').unwrap_or(rest.len());
                let key = rest[..end].trim();
                let value = values
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or("", |(_, v)| v);
                out.push_str(&shell_quote(value));
                for _ in 0..end + 1 {
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A value as one shell word: plain when it is safe, single-quoted otherwise.
fn shell_quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@=+,".contains(c));
    if plain {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const GOOD: &str = r#"
platform = "Fake cloud"

[[offering]]
name = "a100"
price_per_hour = 12.5
warm_image = "warm-img"
cold_image = "cold-img"

[commands]
launch = "fakecloud launch --image {image} --type {offering} --name {name}"
id = { regex = "instance (i-[0-9]+)" }
address = { regex = "address ([0-9.]+)" }
status = "fakecloud status {id}"
provisioned = { regex = "RUNNING" }
ready = "fakecloud ready {id} {address}"
first_compute = "fakecloud compute {id}"
teardown = "fakecloud delete {id}"

[timeouts]
provision = "30s"
poll = "100ms"
"#;

    #[test]
    fn a_good_recipe_is_read_whole() {
        let r = Recipe::parse(GOOD, "fake.toml").unwrap();
        assert_eq!(r.platform.as_deref(), Some("Fake cloud"));
        assert_eq!(r.offerings[0].image(true), Some("cold-img"));
        assert_eq!(r.timeouts.provision, Duration::from_secs(30));
        assert_eq!(r.timeouts.poll, Duration::from_millis(100));
        assert_eq!(r.timeouts.launch, Duration::from_secs(120));
        assert_eq!(
            r.commands.id.find("ok: instance i-42 started"),
            Some("i-42".into())
        );
        assert_eq!(r.sha256.len(), 64);
    }

    #[test]
    fn bad_recipes_are_refused_naming_the_line() {
        let e = Recipe::parse(
            &GOOD.replace("launch = \"fakecloud", "launch = fakecloud"),
            "f.toml",
        )
        .unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("f.toml", Some(11)), "{e}");

        let e =
            Recipe::parse(&GOOD.replace("--name {name}", "--name {nmae}"), "f.toml").unwrap_err();
        assert_eq!(e.line, Some(11));
        assert!(e.reason.contains("unknown placeholder {nmae}"), "{e}");

        let e = Recipe::parse(&GOOD.replace("--name {name}", "--name {id}"), "f.toml").unwrap_err();
        assert!(
            e.reason
                .contains("launch: {id} is not known yet when launch runs"),
            "{e}"
        );

        let e = Recipe::parse(
            &GOOD.replace("instance (i-[0-9]+)", "instance (i-[0-9]+"),
            "f.toml",
        )
        .unwrap_err();
        assert!(e.reason.contains("id: not a regular expression"), "{e}");
        assert_eq!(e.line, Some(12));

        let e = Recipe::parse(
            &GOOD.replace("poll = \"100ms\"", "poll = \"soon\""),
            "f.toml",
        )
        .unwrap_err();
        assert!(e.reason.contains("timeouts.poll"), "{e}");

        let e = Recipe::parse(
            &GOOD.replace("[timeouts]", "[timeouts]\nlunch = \"1m\""),
            "f.toml",
        )
        .unwrap_err();
        assert!(e.reason.contains("unknown field `lunch`"), "{e}");
    }

    #[test]
    fn values_are_filled_as_single_shell_words() {
        assert_eq!(
            fill(
                "x --id {id} --n {name} {{literal}}",
                &[("id", "i-1"), ("name", "bp 1; rm -rf /")]
            ),
            "x --id i-1 --n 'bp 1; rm -rf /' {literal}"
        );
        assert_eq!(placeholders("a {x} {{y}} { z }").unwrap(), vec!["x", "z"]);
        assert!(placeholders("a {x").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5h"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("10"), None);
    }
}

#[cfg(test)]
mod examples {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Every example recipe in docs/recipes parses and says where it runs.
    #[test]
    fn the_documented_examples_are_good_recipes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/recipes");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let r =
                Recipe::parse(&text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
            assert!(r.platform.is_some(), "{}", path.display());
            assert!(text.starts_with("# EXAMPLE TO ADAPT"), "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 4);
    }

    #[test]
    fn addresses_and_ids_from_cloud_outputs() {
        let aliyun = Extract::JsonPointer("/InstanceIdSets/InstanceIdSet/0".into());
        assert_eq!(
            aliyun.find(r#"{"RequestId":"x","InstanceIdSets":{"InstanceIdSet":["i-bp1abc"]}}"#),
            Some("i-bp1abc".into())
        );
        let ip =
            Extract::Regex(regex_lite::Regex::new(r#""IpAddress":\s*\[\s*"([0-9.]+)""#).unwrap());
        assert_eq!(
            ip.find(r#"{"Status": "Running", "PublicIpAddress": {"IpAddress": [ "47.96.1.2" ]}}"#),
            Some("47.96.1.2".into())
        );
    }
}
