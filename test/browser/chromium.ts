/**
 * The headless Chromium the browser tests drive: `/usr/bin/chromium`
 * (`apt-get install -y chromium`), through playwright-core, quiet (no
 * background networking, updates or sync).
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { type Browser, chromium } from "playwright-core";

/** Where the tests expect Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Why a browser test is skipped: Chromium is missing outside CI. */
export const skipWithoutChromium: string | false =
  !existsSync(CHROMIUM) && process.env.CI === undefined
    ? `${CHROMIUM} is missing: apt-get install -y chromium`
    : false;

/** Launches it headless, with `args` added to the quiet ones. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...args,
    ],
  });
}
