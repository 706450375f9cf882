/**
 * Writes the flag reference of docs/cli.md from the CLIs' tables
 * (src/cli/cli-tables.ts), between its markers; the prose around them is
 * kept. test/cli/cli-docs.test.ts fails when the file and the tables differ.
 *   npm run docs:cli
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withFlagReference } from "../src/cli/cli-tables";

const file = fileURLToPath(new URL("../docs/cli.md", import.meta.url));
const before = readFileSync(file, "utf8");
const after = withFlagReference(before);
if (after !== before) writeFileSync(file, after);
console.log(`${file}: ${after === before ? "up to date" : "flag reference written"}`);
