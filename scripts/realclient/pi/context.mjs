// Prints, for the pi session FILE, the messages pi's own SessionManager loads on resume and
// converts for the model (`buildSessionContext`, then `convertToLlm`), one JSON array: what
// the recorded `fixtures/pi/*.context.json` hold. The file is read from a temporary copy, since
// the client rewrites an older session's file when it migrates it and repairs a torn last line.
// Run with the pinned client's Node: `pi-context.sh FILE`.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const pkg = process.env.PI_PACKAGE;
const { SessionManager } = await import(join(pkg, "dist/core/session-manager.js"));
const { convertToLlm } = await import(join(pkg, "dist/core/messages.js"));

const dir = mkdtempSync(join(tmpdir(), "pi-context-"));
try {
	const copy = join(dir, "session.jsonl");
	copyFileSync(process.argv[2], copy);
	const sm = SessionManager.open(copy, dir);
	const messages = convertToLlm(sm.buildSessionContext().messages);
	process.stdout.write(`${JSON.stringify(messages, null, 1)}\n`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
