// Runs axe-core inside headless Chromium over pages and walks each page with the keyboard, for
// tests/integration/service/a11y.rs to assert on. For every URL it
//   - loads the page on a desktop (1200 px) and on a phone (360 px) viewport, with the page's own
//     headers (its content security policy stays in force: axe is evaluated through the
//     DevTools protocol, not as a script of the page),
//   - runs axe-core with its WCAG 2 A and AA rules (wcag2a, wcag2aa, wcag21a, wcag21aa; none
//     disabled) and records every violation with its rule, impact and the elements it names,
//   - presses Tab until the focus comes back to where it began (at most 200 times) and records
//     each element that takes the focus (tag, type, its accessible text), and lists every control
//     that a keyboard user should reach (links, buttons, fields, folded sections),
// keeps a screenshot per page and viewport in the artifact directory, and prints one JSON object
// on stdout. The assertions live in the Rust test; this script only observes.
//
// Usage: node check-a11y.mjs <artifact-dir> <name>=<url> [<name>=<url> ...]

import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const [outDir, ...pages] = process.argv.slice(2);
if (!outDir || pages.length === 0) {
  console.error("usage: node check-a11y.mjs <artifact-dir> <name>=<url> ...");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const VIEWPORTS = {
  desktop: { viewport: { width: 1200, height: 900 } },
  phone: { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

async function axe(page) {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 10).map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
    }));
  });
}

function describeFocus() {
  const element = document.activeElement;
  if (!element || element === document.body) return null;
  const label =
    element.getAttribute("aria-label") ||
    (element.labels && element.labels.length > 0 ? element.labels[0].innerText : "") ||
    element.innerText ||
    element.value ||
    "";
  return {
    tag: element.tagName.toLowerCase(),
    type: element.getAttribute("type") || "",
    name: element.getAttribute("name") || "",
    id: element.id || "",
    text: label.trim().slice(0, 80),
  };
}

async function keyboard(page) {
  const controls = await page.evaluate(() =>
    [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary")]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility === "visible";
      })
      .map((e) => ({
        tag: e.tagName.toLowerCase(),
        type: e.getAttribute("type") || "",
        name: e.getAttribute("name") || "",
        id: e.id || "",
        text: (e.innerText || e.value || e.getAttribute("aria-label") || "").trim().slice(0, 80),
      })),
  );
  const reached = [];
  const seen = new Set();
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(describeFocus);
    if (!focus) {
      if (reached.length > 0) break;
      continue;
    }
    const key = JSON.stringify(focus) + ":" + (await page.evaluate(() => {
      const all = [...document.querySelectorAll("*")];
      return all.indexOf(document.activeElement);
    }));
    if (seen.has(key)) break;
    seen.add(key);
    reached.push(focus);
  }
  return { controls, reached };
}

async function observe(name, url) {
  const result = { url };
  for (const [kind, options] of Object.entries(VIEWPORTS)) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const response = await page.goto(url, { waitUntil: "load" });
    const seen = { status: response ? response.status() : null };
    seen.lang = await page.evaluate(() => document.documentElement.lang);
    seen.text = await page.evaluate(() => document.body.innerText);
    seen.scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    seen.viewportWidth = await page.evaluate(() => window.innerWidth);
    // Folded sections are opened first, so that axe sees what a reader who opens them sees.
    await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
    seen.violations = await axe(page);
    await page.screenshot({ path: join(outDir, `${name}-${kind}.png`), fullPage: true });
    Object.assign(seen, await keyboard(page));
    result[kind] = seen;
    await context.close();
  }
  return result;
}

const results = {};
try {
  for (const entry of pages) {
    const at = entry.indexOf("=");
    if (at <= 0) throw new Error(`expected <name>=<url>, got ${entry}`);
    results[entry.slice(0, at)] = await observe(entry.slice(0, at), entry.slice(at + 1));
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results));
