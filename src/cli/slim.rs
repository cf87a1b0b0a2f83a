//! `slim` (docs/slim.md).

use super::*;

/// Take duplicated and unneeded payloads (images, documents) out of a session, every word kept.
#[derive(Args, Debug)]
#[command(
    long_about = "Make a Claude Code transcript or a Codex rollout smaller without losing anything a \
resume needs (docs/slim.md). A payload is a base64 image or document stored in the file. Claude Code \
keeps a read or pasted image twice per line (in the message and again in toolUseResult, for its own \
display); Codex copies every image again into each compaction's replacement_history, of which a \
resume replays only the last. By default each payload that a resume does not send and that is kept \
elsewhere in the file becomes a short reference to that copy; payloads a resume sends are never \
touched, so the request after a resume is the same as before. --images outside-window and \
--max-payload also take out payloads a resume does not send and that have no other copy: each is \
written once to the --extract folder, named by its sha256, and replaced by a text the model can \
read ([image/png 1.3 MB, sha256:…, saved as ….png]). --images all (and --max-payload, for the \
larger ones) also replaces the images a resume sends, each by a text block with that text: what a \
Claude Code session whose request is over the API's 32 MB limit needs (doctor: request-too-large). \
--restore DIR puts every payload back: the original file, byte for byte.\n\n\
The file is read twice, as a stream, keeping only the hashes of the payloads seen. With -o the \
result goes to OUT; with --in-place the file is replaced safely, as migrate does it: a backup beside \
it (FILE.slim.bak, or FILE.restore.bak), a temporary file, fsync, rename; a file modified in the \
last 60 s, held open for writing by another process (named) or read-only is refused unless --force.\n\n\
An opencode database (opencode.db, every session in one SQLite file) is slimmed where it is. \
--dry-run says where its space goes, read-only: each session's rows, the parts by type, the tool \
outputs and how much of them lies before the compaction a resume starts from (which a resume no \
longer loads), large values stored more than once, and the free pages only a VACUUM returns. \
--in-place takes the space back: a backup made with SQLite's backup API (DB.slim.bak, or in \
--backup-dir), then, with --clear-unloaded-outputs, one write transaction that replaces each tool \
output a resume no longer loads as opencode marks an output it pruned (state.time.compacted, and \
the text it sends for one, [Old tool result content cleared]), so the request after a resume is the \
same; then the free pages go back (VACUUM INTO a new file, renamed over the database). A database \
opencode has open (its -wal or -shm beside it, or locked) is refused unless --force, which writes \
under SQLite's locking and VACUUMs in place.",
    after_long_help = "JSON RECORDS\n  {\"kind\":\"slim\",\"file\",\"bytes_before\",\"bytes_after\",\"payloads\",\
\"payload_bytes\",\"deduplicated\",\"replaced\",\"extracted\",\"kept_sent\",\"restored\",\"dry_run\",\
\"output\",\"backup\",\"error\"} per file: payloads is the number of distinct payloads, payload_bytes \
their base64 bytes counting every copy, deduplicated the copies replaced by a reference, replaced \
those replaced by a placeholder naming an extracted file, extracted the files written, kept_sent the \
copies kept because a resume sends them, restored (with --restore) the payloads put back.\n  \
{\"kind\":\"slim_database\",\"file\",\"dry_run\",\"space\",\"reclaimed\",\"error\"} per database: \
space is {file_bytes, wal_bytes, free_bytes, row_bytes, sessions: [{id, title, messages, parts, bytes, \
tool_output_bytes, unloaded_output_bytes}], kinds: [{kind, count, bytes}], tool_outputs: {count, \
bytes, unloaded_count, unloaded_bytes, cleared_count, cleared_bytes}, duplicates: {min_bytes, values, \
copies, bytes, largest: [{what, bytes, copies, session, part}]}}, as it was before; reclaimed (with \
--in-place, when anything was taken back) is {outputs, output_bytes, backup, vacuum, \
file_bytes_after}.\n\n\
EXIT STATUS\n  0 done; 1 with --dry-run when something would change (for a database: free pages, or \
outputs --clear-unloaded-outputs would clear); 2 when a file failed (the \
others are still processed).\n\n\
EXAMPLES\n  cctool slim --dry-run ~/.codex/sessions/2026/11/30/rollout-….jsonl\n  \
cctool slim --in-place SESSION.jsonl\n  \
cctool slim --images outside-window --extract ~/slim-payloads SESSION.jsonl -o slim.jsonl\n  \
cctool slim --restore ~/slim-payloads slim.jsonl -o SESSION.jsonl\n  \
cctool slim --dry-run ~/.local/share/opencode/opencode.db\n  \
cctool slim --in-place --clear-unloaded-outputs ~/.local/share/opencode/opencode.db"
)]
pub struct SlimArgs {
    /// Claude Code transcripts or Codex rollouts (files, or session ids or prefixes of your
    /// stores), or an opencode database.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,

    /// Write the result to OUT (a file for one input, a folder for several).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,

    /// Replace each file, keeping a backup beside it.
    #[arg(long)]
    pub in_place: bool,

    /// Report what would be saved and write nothing; exit 1 when anything would change.
    #[arg(long)]
    pub dry_run: bool,

    /// Which payloads go out of the file (with --extract): none (only duplicates become
    /// references), those a resume does not load, or all (those it sends become text blocks).
    #[arg(long, value_enum, default_value_t = crate::slim::Images::None, value_name = "WHICH")]
    pub images: crate::slim::Images,

    /// Also take out payloads larger than SIZE (decoded; 500K, 2M, 1MiB…), those a resume
    /// sends too (with --extract).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_payload: Option<u64>,

    /// Write each payload taken out to DIR once, named by its sha256.
    #[arg(long, value_name = "DIR", conflicts_with = "restore")]
    pub extract: Option<PathBuf>,

    /// Put back the payloads of a slimmed file, from the file itself and from DIR (the folder
    /// of --extract).
    #[arg(long, value_name = "DIR")]
    pub restore: Option<PathBuf>,

    /// With a database (opencode.db) and --in-place: replace the outputs of the tool calls a
    /// resume no longer loads (before the compaction it starts from) as the client marks an
    /// output it pruned; the request a resume sends stays the same.
    #[arg(long)]
    pub clear_unloaded_outputs: bool,

    /// With a database and --in-place: write its backup into DIR (default: beside it, as
    /// DB.slim.bak).
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,

    /// Rewrite files modified in the last 60 s or read-only, and replace outputs that exist;
    /// write a database a client has open.
    #[arg(long)]
    pub force: bool,
}

/// A size: bytes, or with a unit K, M, G (powers of 1000; KiB, MiB, GiB powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s}: not a size (500K, 2M, 1MiB, 1048576)"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "ki" | "kib" => 1024.0,
        "mi" | "mib" => 1024.0 * 1024.0,
        "gi" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("{s}: unknown unit (use K, M, G, KiB, MiB or GiB)")),
    };
    Ok((n * mult) as u64)
}
