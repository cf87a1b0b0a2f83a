//! Which agent's file an input is, decided from its content by every agent of the registry
//! (`cctool_core::agents::detect`).

pub use cctool_core::agents::detect::{Looks, Undetected, one_of};

use crate::io::Source;
use crate::model::AgentId;

/// Decides which agent of this run wrote `src` from its first records.
pub fn detect(src: &Source) -> Result<AgentId, Undetected> {
    super::registry().detect(src)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{cctool, claude_code, codex};

    fn detect_bytes(b: &[u8]) -> Result<AgentId, Undetected> {
        detect(&Source::from_bytes("t", b.to_vec()))
    }

    #[test]
    fn every_codex_era() {
        // 2025 TypeScript CLI: one pretty-printed document.
        let ts = b"{\n  \"session\": {\"id\": \"x\", \"timestamp\": \"2025-05-01\"},\n  \"items\": []\n}\n";
        assert_eq!(detect_bytes(ts).unwrap(), codex::ID);
        // 2025 Rust CLI: bare header, then state lines and bare items.
        let bare = b"{\"id\":\"x\",\"timestamp\":\"2025-08-20T13:20:47.060Z\",\"instructions\":null}\n{\"record_type\":\"state\"}\n";
        assert_eq!(detect_bytes(bare).unwrap(), codex::ID);
        let bare_item = b"{\"type\":\"message\",\"role\":\"user\",\"content\":[]}\n";
        assert_eq!(detect_bytes(bare_item).unwrap(), codex::ID);
        // Envelope, with and without ordinal.
        let env = b"{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n";
        assert_eq!(detect_bytes(env).unwrap(), codex::ID);
        let pag =
            b"{\"timestamp\":\"t\",\"ordinal\":0,\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\"}}\n";
        assert_eq!(detect_bytes(pag).unwrap(), codex::ID);
    }

    #[test]
    fn tree_logs_of_other_agents_are_not_bare_codex_items() {
        let pi = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/w\"}\n\
            {\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":[]}}\n";
        assert!(detect_bytes(pi).is_err());
        let linked = b"{\"type\":\"message\",\"role\":\"user\",\"id\":\"a2\",\"parentId\":\"a1\",\"content\":[]}\n";
        assert!(detect_bytes(linked).is_err());
    }

    #[test]
    fn other_agents_files_are_named_for_what_they_are() {
        let looks = |b: &[u8]| detect_bytes(b).unwrap_err().1;
        // Gemini CLI: a header, then records whose `type: user` alone would read as Claude Code.
        let gemini = b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"t\",\"kind\":\"main\"}\n\
            {\"id\":\"m\",\"timestamp\":\"t\",\"type\":\"user\",\"content\":[]}\n";
        // Read now that the agent is registered: its header's claim is sure.
        assert_eq!(detect_bytes(gemini).unwrap(), crate::agents::gemini::ID);
        let pi = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n";
        assert_eq!(detect_bytes(pi).unwrap(), crate::agents::pi::ID);
        // A Copilot CLI event log is read now that the agent is registered: its sure claim
        // wins over the resemblance that names it for a registry without it.
        let copilot = b"{\"type\":\"session.start\",\"data\":{},\"id\":\"e\",\"timestamp\":\"t\",\"parentId\":null}\n";
        assert_eq!(detect_bytes(copilot).unwrap(), crate::agents::copilot::ID);
        // Qwen Code: Claude Code's fields around a message of Gemini's `parts`, read now that
        // the agent is registered: its sure claim wins over Claude Code's link fields.
        let qwen = b"{\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"user\",\"cwd\":\"/w\",\"version\":\"0.24.4\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}}\n";
        assert_eq!(detect_bytes(qwen).unwrap(), cctool_qwen::ID);
        let qwen_result =
            b"{\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"type\":\"tool_result\",\"message\":null}\n";
        assert_eq!(detect_bytes(qwen_result).unwrap(), cctool_qwen::ID);
        // A Claude Code record with both, or with content alone, is still Claude Code's.
        let cc = b"{\"uuid\":\"u1\",\"sessionId\":\"s\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"parts\":null}}\n";
        assert!(detect_bytes(cc).is_ok());
        assert_eq!(looks(b"{\"theme\":\"dark\"}\n"), Looks::OtherJson);
        assert_eq!(looks(b"[1, 2]\n"), Looks::OtherJson);
        assert_eq!(looks(b"some\nnotes\n"), Looks::NotJson);
        // A pretty-printed document no agent writes is JSON all the same, named by its keys.
        let pretty = detect_bytes(b"{\n  \"cli_version\": \"0.5\",\n  \"files\": [\n    \"a\"\n  ]\n}\n").unwrap_err();
        assert_eq!(pretty.1, Looks::OtherJson);
        assert!(pretty.0.contains("first keys are cli_version, files"), "{}", pretty.0);
        // One that does not end where its object does is not one JSON document.
        assert_eq!(looks(b"{\n  \"a\": 1\n}\ntrailing words\n"), Looks::NotJson);
        assert_eq!(looks(b""), Looks::Empty);
        assert!(Looks::OtherJson.plausible() && !Looks::GeminiChat.plausible() && !Looks::NotJson.plausible());
    }

    #[test]
    fn claude_code_in_any_key_order_and_after_titles() {
        let cc = b"{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u\"}\n{\"type\":\"user\",\"uuid\":\"u\"}\n";
        assert_eq!(detect_bytes(cc).unwrap(), claude_code::ID);
        let meta_first = b"{\"type\":\"file-history-snapshot\",\"messageId\":\"m\"}\n";
        assert_eq!(detect_bytes(meta_first).unwrap(), claude_code::ID);
        let queue = b"\xEF\xBB\xBF{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"s\"}\r\n";
        assert_eq!(detect_bytes(queue).unwrap(), claude_code::ID);
    }

    #[test]
    fn long_first_lines_of_either_kind() {
        let big = "x".repeat(100_000);
        let session = format!(r#"{{"version": 1, "id": "s", "messages": [{{"role": "user", "content": "{big}"}}]}}"#);
        assert_eq!(detect_bytes(session.as_bytes()).unwrap(), cctool::ID);
        let transcript = format!(
            "{{\"type\":\"user\",\"uuid\":\"u\",\"message\":{{\"role\":\"user\",\"content\":\"{big}\"}}}}\n{{\"type\":\"assistant\",\"uuid\":\"v\"}}\n"
        );
        assert_eq!(detect_bytes(transcript.as_bytes()).unwrap(), claude_code::ID);
    }

    #[test]
    fn cctool_sessions_of_every_version() {
        let v1 = b"{\"version\": 1, \"id\": \"s\", \"messages\": []}";
        assert_eq!(detect_bytes(v1).unwrap(), cctool::ID);
        let v5 = b"{\n  \"schema_version\": 5,\n  \"session_id\": \"s\",\n  \"messages\": []\n}\n";
        assert_eq!(detect_bytes(v5).unwrap(), cctool::ID);
    }

    #[test]
    fn arrays_are_never_sessions() {
        // serde fills a derived struct from an array by position: must not be mistaken.
        let pretty = b"[\n {\n  \"role\": \"user\",\n  \"content\": \"A\"\n }\n]\n";
        assert!(detect_bytes(pretty).is_err());
        assert!(detect_bytes(b"[{\"uuid\":1},{\"type\":\"user\"},2,3,4,5,6,7,8,9,10,11,12,13,14,15]\n").is_err());
    }

    #[test]
    fn undetectable_inputs_say_why() {
        assert_eq!(detect_bytes(b"").unwrap_err().1, Looks::Empty);
        assert!(detect_bytes(b"hello\n").unwrap_err().0.contains("not JSON"));
        assert!(
            detect_bytes(b"{\"a\":1}\n{\"b\":2}\n")
                .unwrap_err()
                .0
                .contains("none of the first 2")
        );
    }
}
