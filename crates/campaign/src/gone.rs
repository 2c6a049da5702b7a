//! Whether a failed teardown's answer says the instance no longer exists.
//!
//! Marking an instance gone stops every later attempt to tear it down, so
//! a wrong "gone" leaves a billing instance that nobody stops. Only the
//! platform's explicit answer about that instance counts: the recipe's own
//! pattern where it gives one (`gone = { regex = "…" }`), else an error code
//! the clouds' tools print only for an instance id they do not know, else a
//! "does not exist" phrase on a line that names the id. A bare "not found"
//! is not enough: `sh: 1: cloudcli: not found` (the tool is missing) and
//! `InvalidAccessKeyId.NotFound` (the credentials are wrong) say nothing
//! about the instance. A command that could not run (exit 126 or 127), was
//! killed or timed out has said nothing either.

use crate::shell::CommandResult;

/// Codes the clouds' command-line tools print only when the instance id
/// they were given does not exist: AWS EC2 (`InvalidInstanceID.NotFound`),
/// Alibaba Cloud ECS and Tencent Cloud CVM (`InvalidInstanceId.NotFound`).
const NO_SUCH_INSTANCE_CODES: &[&str] = &["invalidinstanceid.notfound"];

/// Phrases that say something does not exist; they count only on a line
/// that names the instance's id.
const DOES_NOT_EXIST: &[&str] = &[
    "no such instance",
    "does not exist",
    "doesn't exist",
    "not exist",
    "not found",
    "was not found",
    "不存在",
    "找不到",
];

/// Whether `answer`, the failed teardown of instance `id`, says it is gone.
/// `pattern` is the recipe's own `gone` pattern, which replaces the
/// built-in rules when given.
pub fn says_gone(answer: &CommandResult, id: &str, pattern: Option<&regex_lite::Regex>) -> bool {
    if answer.timed_out || answer.cancelled || answer.ok() {
        return false;
    }
    // Killed, or the shell could not run the command at all.
    if matches!(answer.exit, None | Some(126 | 127)) {
        return false;
    }
    let said = format!("{}\n{}", answer.stdout, answer.stderr);
    if let Some(pattern) = pattern {
        return pattern.is_match(&said);
    }
    let lower = said.to_lowercase();
    if NO_SUCH_INSTANCE_CODES.iter().any(|c| lower.contains(c)) {
        return true;
    }
    !id.trim().is_empty()
        && said.lines().any(|line| {
            let lower = line.to_lowercase();
            line.contains(id) && DOES_NOT_EXIST.iter().any(|p| lower.contains(p))
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn failed(exit: i32, stderr: &str) -> CommandResult {
        CommandResult {
            exit: Some(exit),
            stderr: stderr.into(),
            ..CommandResult::default()
        }
    }

    #[test]
    fn only_an_answer_about_the_instance_says_it_is_gone() {
        let id = "i-0abc";
        // What the clouds say about an id they do not know.
        for said in [
            "An error occurred (InvalidInstanceID.NotFound) when calling the TerminateInstances operation: The instance ID 'i-0abc' does not exist",
            "ERROR: InvalidInstanceId.NotFound: The specified InstanceId does not exist.",
            "[TencentCloudSDKException] code:InvalidInstanceId.NotFound message:没有找到相应实例",
            "Error: instance i-0abc not found",
            "实例 i-0abc 不存在",
        ] {
            assert!(says_gone(&failed(1, said), id, None), "{said}");
        }
        // Missing tools, wrong credentials, other resources, other ids.
        for (exit, said) in [
            (127, "sh: 1: fakecli: not found"),
            (1, "sh: 1: fakecli: not found"),
            (
                1,
                "ERROR: InvalidAccessKeyId.NotFound: Specified access key is not found.",
            ),
            (1, "Error: security group sg-1 not found"),
            (1, "Error: instance i-0abd does not exist"),
            (126, "i-0abc: does not exist"),
            (2, "no such file or directory"),
        ] {
            assert!(!says_gone(&failed(exit, said), id, None), "{said}");
        }
        let killed = CommandResult {
            exit: None,
            stderr: "InvalidInstanceID.NotFound".into(),
            ..CommandResult::default()
        };
        assert!(!says_gone(&killed, id, None));
        let slow = CommandResult {
            timed_out: true,
            ..failed(1, "InvalidInstanceID.NotFound")
        };
        assert!(!says_gone(&slow, id, None));
    }

    #[test]
    fn the_recipes_pattern_replaces_the_built_in_rules() {
        let pattern = regex_lite::Regex::new("ERR_GONE").unwrap();
        assert!(says_gone(&failed(3, "ERR_GONE"), "x", Some(&pattern)));
        assert!(!says_gone(
            &failed(3, "InvalidInstanceID.NotFound"),
            "x",
            Some(&pattern)
        ));
        assert!(!says_gone(&failed(127, "ERR_GONE"), "x", Some(&pattern)));
    }
}
