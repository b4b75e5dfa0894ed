/**
 * A commit checked out beside this one for a bench to run in the same rounds
 * (`BENCH_BEFORE=<path>`): a detached `git worktree` in a temporary
 * directory, with this checkout's `node_modules` linked into it.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A checked-out commit; `remove` deletes it and may run more than once. */
export interface Worktree {
  /** The checkout's directory. */
  path: string;
  /** The commit checked out, abbreviated. */
  commit: string;
  /** Removes the worktree (the link first, never what it points to). */
  remove: () => void;
}

const git = (args: string[], cwd: string) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: "pipe" }).trim();

/**
 * Checks out `commit` of the repository at `repository` into a new temporary
 * directory (`git worktree add --detach`) and links `repository`'s
 * `node_modules` into it; throws when the commit is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { existsSync } from "node:fs";
 * import { addWorktree } from "./git_worktree.ts";
 *
 * const worktree = addWorktree(".", "HEAD");
 * try {
 *   assert.ok(existsSync(`${worktree.path}/package.json`));
 * } finally {
 *   worktree.remove();
 * }
 * assert.equal(existsSync(worktree.path), false);
 * ```
 */
export function addWorktree(repository: string, commit: string): Worktree {
  const hash = git(
    ["rev-parse", "--verify", "--short", `${commit}^{commit}`],
    repository,
  );
  const path = mkdtempSync(join(tmpdir(), `gate-reference-${hash}-`));
  const link = join(path, "node_modules");
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    rmSync(link, { force: true }); // rmSync never follows a link
    try {
      git(["worktree", "remove", "--force", path], repository);
    } catch {
      rmSync(path, { recursive: true, force: true });
      git(["worktree", "prune"], repository);
    }
  };
  try {
    git(["worktree", "add", "--detach", path, hash], repository);
    symlinkSync(realpathSync(join(repository, "node_modules")), link);
  } catch (error) {
    remove();
    throw error;
  }
  return { path, commit: hash, remove };
}
