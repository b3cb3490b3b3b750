// Measures the sequence diagrams of report pages in headless Chromium, for
// tests/integration/service/browser.rs to assert on. For every URL and every viewport width given
// it loads the page, opens its folded sections, and for each diagram (svg.sequence) records
//   - every text's box (getBBox, in the drawing's units) and every lifeline's (the queue's and the
//     database's lanes, each instance's lifeline),
//   - the pairs that intersect: a text and a lifeline, or two texts,
//   - the smallest rendered font size of its texts (font size times the drawing's scale), in px,
//   - the drawing's width on screen and the width of the page's column it sits in,
// keeps a screenshot of each diagram per width in the artifact directory, and prints one JSON
// object on stdout. The assertions live in the Rust test; this script only observes.
//
// Usage: node check-diagram.mjs <artifact-dir> <width>[,<width>...] <name>=<url> [<name>=<url> ...]

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [outDir, widthList, ...pages] = process.argv.slice(2);
if (!outDir || !widthList || pages.length === 0) {
  console.error("usage: node check-diagram.mjs <artifact-dir> <width>,... <name>=<url> ...");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const widths = widthList.split(",").map(Number);

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

function measure() {
  const box = (element) => {
    const b = element.getBBox();
    return { x: b.x, y: b.y, width: b.width, height: b.height };
  };
  // Strictly overlapping: boxes that only touch do not count. A lifeline is a line of no width.
  const overlap = (a, b) =>
    a.x < b.x + Math.max(b.width, 0.01) &&
    b.x < a.x + Math.max(a.width, 0.01) &&
    a.y < b.y + Math.max(b.height, 0.01) &&
    b.y < a.y + Math.max(a.height, 0.01);
  const column = document.querySelector("main");
  const columnStyle = getComputedStyle(column);
  const columnWidth =
    column.clientWidth - parseFloat(columnStyle.paddingLeft) - parseFloat(columnStyle.paddingRight);
  return [...document.querySelectorAll("svg.sequence")].map((svg) => {
    const scale = svg.getScreenCTM().a;
    const texts = [...svg.querySelectorAll("text")].map((t) => ({
      text: t.textContent,
      box: box(t),
      px: parseFloat(getComputedStyle(t).fontSize) * scale,
    }));
    const lifelines = [...svg.querySelectorAll("line.lane, g.lifeline > line")].map((l) => box(l));
    const crossings = [];
    texts.forEach((t, i) => {
      lifelines.forEach((l) => {
        if (overlap(t.box, l)) crossings.push({ text: t.text, lifeline: l });
      });
      texts.slice(i + 1).forEach((u) => {
        if (overlap(t.box, u.box)) crossings.push({ text: t.text, other: u.text });
      });
    });
    return {
      id: svg.id,
      texts: texts.length,
      lifelines: lifelines.length,
      crossings,
      minFontPx: Math.min(...texts.map((t) => t.px)),
      width: svg.getBoundingClientRect().width,
      columnWidth,
    };
  });
}

async function observe(name, url) {
  const result = {};
  for (const width of widths) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const response = await page.goto(url, { waitUntil: "load" });
    await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
    const diagrams = await page.evaluate(measure);
    for (const [i, diagram] of diagrams.entries()) {
      const file = `${name}-${width}-${diagram.id || i}.png`;
      await page.locator("svg.sequence").nth(i).screenshot({ path: join(outDir, file) });
      diagram.screenshot = file;
    }
    result[width] = { status: response ? response.status() : null, diagrams };
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
