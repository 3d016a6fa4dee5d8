// Writes dist/_headers (served by Workers static assets) with the dashboard's
// security headers. Trunk injects one inline module script to start the wasm;
// the CSP allows exactly that script by its SHA-256 and nothing else inline.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

const dist = process.argv[2];
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
if (inline.length !== 1) {
  console.error(`security-headers: expected exactly one inline script in index.html, found ${inline.length}`);
  process.exit(1);
}
const hash = createHash('sha256').update(inline[0], 'utf8').digest('base64');
const csp = [
  "default-src 'none'",
  `script-src 'self' 'wasm-unsafe-eval' 'sha256-${hash}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
writeFileSync(path.join(dist, '_headers'), `/*
  Content-Security-Policy: ${csp}
  Strict-Transport-Security: max-age=63072000; includeSubDomains
  X-Content-Type-Options: nosniff
  Referrer-Policy: no-referrer
  X-Frame-Options: DENY
  Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=()
  Cross-Origin-Opener-Policy: same-origin
`);
