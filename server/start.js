// @bun
/**
 * `npm start` and `npm run start:bun`: the server of `server/main.ts`, from
 * the start build (`dist/start/`, see build/start_build.ts) while every
 * source it was built from is as it was then, from the sources otherwise, so
 * that an edit takes effect at the next start. The build is one JavaScript
 * file for Bun, with its bytecode, and a few chunks for Node: neither
 * strips TypeScript nor loads about 80 modules. Hence this file is
 * JavaScript: stripping the first TypeScript file loads Node's WebAssembly
 * compiler, which costs more than the rest of a start.
 *
 * On Node, the compile cache is turned on before anything loads (see
 * server/runtimes/compile_cache.ts), so a later start compiles nothing either.
 * On Bun, `// @bun` above (the mark Bun writes on its own output) spares
 * this file Bun's transpiler, and `import.meta.require` loads the list and
 * the CommonJS bundle without the ES module loader's wrapping of a dynamic
 * `import()`: together about 0.9 ms of CPU, an eighth of Bun's bare start.
 *
 * @module
 */
const bun = globalThis.Bun;
// Not `import`: Node's ES module of a built-in costs it milliseconds.
const node = bun === undefined ? process.getBuiltinModule : undefined;
node?.("node:module").enableCompileCache?.();

/**
 * Whether `dist/start/` holds the sources as they are: each listed as
 * `[path, mtime in whole ms, size]` has that modification time and size now.
 * On Bun with `Bun.file`: loading `node:fs` there costs more than the rest.
 */
function builtFromTheseSources() {
  try {
    const root = node === undefined
      ? `${bun.fileURLToPath(new URL("..", import.meta.url))}/`
      : node("node:url").fileURLToPath(new URL("..", import.meta.url));
    const list = `${root}dist/start/sources.json`;
    const fs = node?.("node:fs");
    const { sources } = fs === undefined
      ? import.meta.require(list)
      : JSON.parse(fs.readFileSync(list, "utf8"));
    // Indexed, no arrays destructured or made: this runs once, in the
    // interpreter, where that halves the check on Bun (0.6 ms of CPU).
    for (let index = 0; index < sources.length; index += 1) {
      const source = sources[index];
      const path = `${root}${source[0]}`;
      const now = fs === undefined ? bun.file(path) : fs.statSync(path);
      const mtimeMs = fs === undefined ? now.lastModified : now.mtimeMs;
      if (Math.trunc(mtimeMs) !== source[1] || now.size !== source[2]) {
        return false;
      }
    }
    return sources.length > 0;
  } catch {
    // No build, or a source gone: the sources it is.
    return false;
  }
}

if (!builtFromTheseSources()) await import("./main.ts");
else if (bun !== undefined) import.meta.require("../dist/start/bun/main.js");
else await import("../dist/start/node/main.js");
