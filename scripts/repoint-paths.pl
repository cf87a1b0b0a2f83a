#!/usr/bin/env perl
# Rewrites the module paths of before the per-agent folders (issue 19) to the new ones, for a
# branch started before them:   perl -pi scripts/repoint-paths.pl $(git ls-files '*.rs')
# It rewrites `crate::…` and `cctool::…` paths. A `use` that imported a moved module by its
# old last name (`use crate::chain::claude_model;`, `use crate::formats::codex::{self, …}`)
# now brings in the new name: add `as <old name>` there, or rename the uses; grouped imports
# (`use crate::chain::{claude, codex};`) are left for the compiler to point out.
s/\b(crate|cctool)::chain::claude_api\b/$1::agents::claude_code::api/g;
s/\b(crate|cctool)::chain::claude_client\b/$1::agents::claude_code::client/g;
s/\b(crate|cctool)::chain::claude_config\b/$1::agents::claude_code::config/g;
s/\b(crate|cctool)::chain::claude_model\b/$1::agents::claude_code::model/g;
s/\b(crate|cctool)::chain::claude\b/$1::agents::claude_code::chain/g;
s/\b(crate|cctool)::chain::intern\b/$1::agents::claude_code::intern/g;
s/\b(crate|cctool)::chain::codex_api\b/$1::agents::codex::api/g;
s/\b(crate|cctool)::chain::codex\b/$1::agents::codex::history/g;
s/\b(crate|cctool)::formats::claude\b/$1::agents::claude_code::records/g;
s/\b(crate|cctool)::formats::subagents\b/$1::agents::claude_code::subagents/g;
s/\b(crate|cctool)::formats::codex_items\b/$1::agents::codex::items/g;
s/\b(crate|cctool)::formats::codex\b/$1::agents::codex::rollout/g;
s/\b(crate|cctool)::formats::session\b/$1::agents::cctool::file/g;
s/\b(crate|cctool)::formats\b/$1::agents::detect/g;
s/\b(crate|cctool)::compact::claude\b/$1::agents::claude_code::compact/g;
s/\b(crate|cctool)::compact::codex\b/$1::agents::codex::compact/g;
s/\b(crate|cctool)::compact::session\b/$1::agents::cctool::compact/g;
s/\b(crate|cctool)::migrate::import::(codex\w*)\b/$1::agents::codex::import::$2/g;
s/\b(crate|cctool)::migrate::import::(parse|content_text)\b/$1::agents::cctool::build::$2/g;
s/\b(crate|cctool)::commands::rebuild_chain::(ApiViewSummary|ChainSummary|Report)\b/$1::agents::view::$2/g;
s/\b(crate|cctool)::migrate::import\b/$1::agents::claude_code::import/g;
s/\b(crate|cctool)::migrate::fast\b/$1::agents::cctool::fast/g;
s/\b(crate|cctool)::migrate::write\b/$1::agents::cctool::write/g;
s/\b(crate|cctool)::migrate\b/$1::agents::cctool::schema/g;
