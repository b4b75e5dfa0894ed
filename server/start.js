/**
 * `npm start`: `server/main.ts` under Node, with Node's compile cache on
 * before its first TypeScript file is read. Stripping TypeScript loads a
 * WebAssembly compiler, which costs more than the rest of a cached start;
 * from the cache Node strips nothing, but only JavaScript runs before the
 * cache can be turned on. Hence this one JavaScript file; everything it does
 * is explained in server/runtimes/compile_cache.ts.
 *
 * @module
 */
import module from "node:module";

module.enableCompileCache?.();
await import("./main.ts");
