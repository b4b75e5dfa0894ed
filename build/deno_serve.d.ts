// For the npm build only (tsc knows no `Deno`): the part of `Deno.serve` that
// src/adapter/deno.ts uses. Unneeded once that adapter reads `Deno` off
// `globalThis` through its own interface, as src/adapter/bun.ts does for Bun.
declare namespace Deno {
  function serve(
    options: {
      port: number;
      hostname: string;
      onListen?: (address: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
}
