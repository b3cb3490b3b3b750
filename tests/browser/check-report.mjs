// Opens student report pages in headless Chromium and records what a reader would see, for
// tests/browser.rs to assert on. For every URL it loads the page
//   - on a desktop viewport with JavaScript (collecting script errors and failed requests),
//   - on a phone-sized viewport (does anything stick out sideways?),
//   - with JavaScript disabled (the page must not need it),
//   - in print media (what a printout shows), saved as PDF,
//   - its sequence diagrams (inline SVG): their accessible name, the kinds of their rows, whether
//     the crash and redelivery marks are on screen, their text size on a phone; the diagram of the
//     failing crash check is kept as its own screenshot,
//   - the student's source, where the report shows one: its heading, whether it is on screen, and
//     every marked line (number, classes, signs, text, whether it is on screen),
// keeps screenshots and PDFs in the artifact directory, and prints one JSON object on stdout.
// The assertions live in the Rust test; this script only observes.
//
// Usage: node check-report.mjs <artifact-dir> <name>=<url> [<name>=<url> ...]

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [outDir, ...pages] = process.argv.slice(2);
if (!outDir || pages.length === 0) {
  console.error("usage: node check-report.mjs <artifact-dir> <name>=<url> ...");
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

async function observe(name, url) {
  const result = { url, errors: [] };

  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await desktop.newPage();
  page.on("pageerror", (error) => result.errors.push(`script error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") result.errors.push(`console error: ${message.text()}`);
  });
  page.on("requestfailed", (request) =>
    result.errors.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  const response = await page.goto(url, { waitUntil: "load" });
  result.status = response ? response.status() : null;
  result.lang = await page.evaluate(() => document.documentElement.lang);
  result.title = await page.title();
  result.text = await page.evaluate(() => document.body.innerText);
  // The checks and each trace's list are folded under the main problem: open them, as a student
  // who reads on does, before the page is observed further.
  result.folded = await page.evaluate(() => document.querySelectorAll("details:not([open])").length);
  await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
  await page.screenshot({ path: join(outDir, `${name}-desktop.png`), fullPage: true });
  result.diagrams = await page.evaluate(() =>
    [...document.querySelectorAll("svg.sequence")].map((svg) => {
      const shown = (element) => {
        const r = element.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(element).visibility === "visible";
      };
      const marks = (kind) => [...svg.querySelectorAll(`g.row[data-kind="${kind}"]`)];
      return {
        id: svg.id,
        role: svg.getAttribute("role"),
        title: svg.querySelector("title")?.textContent ?? "",
        desc: svg.querySelector("desc")?.textContent ?? "",
        shown: shown(svg),
        kinds: [...svg.querySelectorAll("g.row")].map((g) => g.dataset.kind),
        crashShown: marks("crash").some(shown),
        redeliveryShown: marks("redeliver").some(shown),
      };
    }),
  );
  result.source = await page.evaluate(() => {
    const pre = document.querySelector("pre.source");
    if (!pre) return null;
    const shown = (element) => {
      const r = element.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(element).visibility === "visible";
    };
    let heading = pre.previousElementSibling;
    while (heading && heading.tagName !== "H2") heading = heading.previousElementSibling;
    return {
      heading: heading ? heading.innerText : "",
      shown: shown(pre),
      marked: [...pre.querySelectorAll("span.marked")].map((span) => {
        const number = span.querySelector(".ln");
        const rest = span.innerText.slice(number.innerText.length);
        return {
          line: Number(number.innerText),
          classes: span.className,
          signs: rest.slice(0, 4),
          text: rest.slice(5),
          shown: shown(span),
        };
      }),
    };
  });
  const crashDiagram = page.locator("#diagram-crash-points");
  if ((await crashDiagram.count()) > 0) {
    await crashDiagram.screenshot({ path: join(outDir, `${name}-diagram.png`) });
  }

  await page.emulateMedia({ media: "print" });
  result.printText = await page.evaluate(() => document.body.innerText);
  result.printDiagrams = await page.evaluate(
    () =>
      [...document.querySelectorAll("svg.sequence")].filter((svg) => svg.getBoundingClientRect().width > 0)
        .length,
  );
  await page.pdf({ path: join(outDir, `${name}.pdf`), format: "A4", printBackground: false });
  await desktop.close();

  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const phonePage = await phone.newPage();
  await phonePage.goto(url, { waitUntil: "load" });
  result.phone = await phonePage.evaluate(() => ({
    viewportWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    bodyFontPx: parseFloat(getComputedStyle(document.body).fontSize),
    // The smallest text of a diagram as drawn: its font size in SVG units times the scale.
    diagramFontPx: Math.min(
      ...[...document.querySelectorAll("svg.sequence")].map(
        (svg) =>
          (parseFloat(svg.getAttribute("font-size")) * svg.getBoundingClientRect().width) /
          svg.viewBox.baseVal.width,
      ),
    ),
  }));
  await phonePage.screenshot({ path: join(outDir, `${name}-phone.png`) });
  await phone.close();

  const noScript = await browser.newContext({ javaScriptEnabled: false });
  const noScriptPage = await noScript.newPage();
  await noScriptPage.goto(url, { waitUntil: "load" });
  result.noScriptText = await noScriptPage.evaluate(() => document.body.innerText);
  await noScript.close();

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
