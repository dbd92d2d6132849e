// Parses api_spec/asyncapi.json with AsyncAPI's own parser (what its CLI and generators
// use) and fails on any error it reports: the document is generated from the Python
// types, and a shape AsyncAPI refuses must not reach the people who read it.
import { readFile } from "node:fs/promises";
import { Parser } from "@asyncapi/parser";

const path = process.argv[2] ?? "../api_spec/asyncapi.json";
const { document, diagnostics } = await new Parser().parse(await readFile(path, "utf8"));
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of errors) console.error(`${d.code} at ${d.path.join("/")}: ${d.message}`);
if (!document || errors.length) {
  console.error(`${path}: not a valid AsyncAPI document`);
  process.exit(1);
}
console.log(`${path}: valid AsyncAPI ${document.version()}`);
