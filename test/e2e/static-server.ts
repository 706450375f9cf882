/**
 * A plain static file server for the end-to-end tests: serves a folder
 * (the built dist/) with the usual content types and nothing else, in
 * particular no Cross-Origin-Opener-Policy / Cross-Origin-Embedder-Policy
 * headers, as a school web server or GitHub Pages would.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".wasm": "application/wasm",
  ".png": "image/png",
};

/**
 * Serves `root` on 127.0.0.1 at a free port under the path `prefix` (e.g.
 * "/reward-lab/", as GitHub Pages serves a repository); resolves with the
 * site's URL and a close function.
 */
export async function serveStatic(
  root: string,
  prefix = "/",
): Promise<{ url: string; close(): Promise<void> }> {
  const base = resolve(root);
  const server: Server = createServer((req, res) => {
    const full = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (!full.startsWith(prefix)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const path = `/${full.slice(prefix.length)}`;
    const file = normalize(join(base, path.endsWith("/") ? `${path}index.html` : path));
    if (
      !(file === base || file.startsWith(base + sep)) ||
      !existsSync(file) ||
      !statSync(file).isFile()
    ) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-length": statSync(file).size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("static server has no port");
  return {
    url: `http://127.0.0.1:${address.port}${prefix}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
