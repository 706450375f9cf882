/**
 * The layer rule of src/ (docs/design.md, "Layers"): a file imports only from
 * its own folder and from folders on lower floors, type imports included.
 * The floors are read from the list in docs/design.md, so the order is
 * written once.
 */
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

function readFloors() {
  const doc = readFileSync(join(__dirname, "docs/design.md"), "utf8");
  const m = doc.match(/<!-- layers: lowest floor first -->\n([\s\S]*?)<!-- \/layers -->/);
  if (!m) throw new Error("docs/design.md: no '<!-- layers: lowest floor first -->' list");
  return m[1]
    .split("\n")
    .filter((l) => /^\d+\.\s/.test(l))
    .map((l) =>
      l
        .replace(/^\d+\.\s+/, "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// A folder matches src/NAME/...; a file (main.tsx) matches itself.
const pathOf = (name) => (name.includes(".") ? `^src/${esc(name)}$` : `^src/${esc(name)}/`);

const floors = readFloors();
const forbidden = [];
floors.forEach((floor, i) => {
  const above = floors.slice(i + 1).flat();
  for (const name of floor) {
    const targets = [...above, ...floor.filter((n) => n !== name)];
    if (targets.length === 0) continue;
    forbidden.push({
      name: `layer-${name}`,
      comment: `src/${name} (floor ${i + 1}) imports only its own folder and lower floors (docs/design.md, "Layers")`,
      severity: "error",
      from: { path: pathOf(name) },
      to: { path: targets.map(pathOf) },
    });
  }
});
forbidden.push({
  name: "no-circular",
  comment: "no import circles",
  severity: "error",
  from: {},
  to: { circular: true },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.wgsl|\\.css" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(__dirname, "tsconfig.json") },
    moduleSystems: ["es6", "cjs"],
  },
};
