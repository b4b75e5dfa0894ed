/**
 * dependency-cruiser's rules for this project (`npm run check:layers`), made
 * from the layers declared in layers.json, type-only imports included: no
 * cycle between modules anywhere; in src/, each folder imports only from the
 * levels below its own; between the top-level folders likewise (src/ imports
 * none of postgres/, mock/, server/); and only tests and benches import
 * test/ or bench/.
 */
const { packages, src } = require("./layers.json");

/** A regular expression source matching a path and what is under it. */
const under = (path) =>
  `^${path.replaceAll(".", "\\.")}${path.endsWith(".ts") ? "$" : "/"}`;
/** Alternatives of `under`, one regular expression source. */
const anyOf = (paths) => paths.map(under).join("|");

/**
 * One rule per declared folder: it may not import a folder of its own level
 * or of any level above it.
 */
function layerRules(levels, prefix, name) {
  return levels.flatMap((level, index) =>
    level.map(({ path }) => {
      const notBelow = levels.slice(index).flat().map((entry) => entry.path)
        .filter((other) => other !== path);
      const below = levels.slice(0, index).flat().map((entry) => entry.path);
      return {
        name: `${name}-${path.replace(/\.ts$/, "")}`,
        comment: `${prefix}${path} imports only from the layers below it: ${
          below.length === 0 ? "none" : below.join(", ")
        } (layers.json).`,
        severity: "error",
        from: { path: under(`${prefix}${path}`) },
        to: { path: anyOf(notBelow.map((other) => `${prefix}${other}`)) },
      };
    })
  ).filter((rule) => rule.to.path !== "");
}

const srcPaths = src.flat().map(({ path }) => `src/${path}`);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module reaches itself through its imports, types included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules(src, "src/", "src-layers"),
    {
      name: "src-layers-undeclared",
      comment: "Every folder of src/ has its place in layers.json.",
      severity: "error",
      from: {},
      to: { path: "^src/", pathNot: anyOf(srcPaths) },
    },
    ...layerRules(packages, "", "packages"),
    {
      name: "not-to-test-or-bench",
      comment: "Only tests and benches import test/ and bench/.",
      severity: "error",
      from: { pathNot: "^(test|bench)/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|\\.tmp)/" },
  },
};
