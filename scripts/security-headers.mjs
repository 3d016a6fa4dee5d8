// Writes dist/_headers (served by Workers static assets) with the security
// headers of the dashboard and of the storefront widget page. Each page has
// one inline module script that starts its wasm (Trunk's, or for the
// dashboard scripts/app-wasm.mjs'); each CSP allows exactly that script by
// its SHA-256 and nothing else inline. The dashboard's chunks need nothing
// more: its same-origin loader ('self') fetches them ('self'), checks their
// SRI hashes and compiles them ('wasm-unsafe-eval'). The widget page may be
// framed: the Worker serves it and sets its frame-ancestors from
// WIDGET_ORIGINS (edge/src/widget.rs); 'none' here is the safe default.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

const dist = process.argv[2];

function csp(html, file) {
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  if (inline.length !== 1) {
    console.error(`security-headers: expected exactly one inline script in ${file}, found ${inline.length}`);
    process.exit(1);
  }
  const hash = createHash('sha256').update(inline[0], 'utf8').digest('base64');
  return [
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
}

const read = (file) => csp(readFileSync(path.join(dist, file), 'utf8'), file);
// A later rule's `! Header` removes what `/*` set, so each page has one CSP.
writeFileSync(path.join(dist, '_headers'), `/*
  Content-Security-Policy: ${read('index.html')}
  Strict-Transport-Security: max-age=63072000; includeSubDomains
  X-Content-Type-Options: nosniff
  Referrer-Policy: no-referrer
  X-Frame-Options: DENY
  Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=()
  Cross-Origin-Opener-Policy: same-origin

/widget/*
  ! Content-Security-Policy
  ! X-Frame-Options
  Content-Security-Policy: ${read('widget/index.html')}
`);
