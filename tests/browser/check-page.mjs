// Uses the student's page in headless Chromium as a learner would, and records what they see, for
// tests/integration/service/page.rs to assert on. For every URL it
//   - opens the page with JavaScript disabled on a phone-sized viewport (the page must not need
//     either), chooses the module file, presses the submit button, and waits until the page (which
//     reloads itself while the submission is graded) shows a verdict,
//   - records the page's language, its text, the verdict, the history's entries, whether anything
//     sticks out sideways, and any request that failed,
// keeps a screenshot of the graded page in the artifact directory, and prints one JSON object on
// stdout. The assertions live in the Rust test; this script only observes.
//
// Usage: node check-page.mjs <artifact-dir> <module-file> <name>=<url> [<name>=<url> ...]

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [outDir, moduleFile, ...pages] = process.argv.slice(2);
if (!outDir || !moduleFile || pages.length === 0) {
  console.error("usage: node check-page.mjs <artifact-dir> <module-file> <name>=<url> ...");
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

async function use(name, url) {
  const result = { url, errors: [] };
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  page.on("requestfailed", (request) =>
    result.errors.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  const response = await page.goto(url, { waitUntil: "load" });
  result.status = response ? response.status() : null;
  result.lang = await page.evaluate(() => document.documentElement.lang);
  result.before = await page.evaluate(() => document.body.innerText);
  result.hasForm = (await page.locator("form[method=post] button[type=submit]").count()) === 1;
  await page.setInputFiles("input[type=file]", moduleFile);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button[type=submit]")]);
  result.submittedUrl = page.url();
  // The page reloads itself (meta refresh) until the submission is graded.
  await page.waitForSelector("#result .verdict:not(.pending)", { timeout: 90_000 });
  result.verdict = await page.evaluate(() => document.querySelector("#result .verdict").textContent);
  result.text = await page.evaluate(() => document.body.innerText);
  result.history = await page.evaluate(() => [...document.querySelectorAll("#history li")].map((li) => li.innerText));
  result.phone = await page.evaluate(() => ({
    viewportWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    bodyFontPx: parseFloat(getComputedStyle(document.body).fontSize),
  }));
  await page.screenshot({ path: join(outDir, `${name}-phone.png`), fullPage: true });
  await context.close();
  return result;
}

const results = {};
try {
  for (const entry of pages) {
    const at = entry.indexOf("=");
    if (at <= 0) throw new Error(`expected <name>=<url>, got ${entry}`);
    results[entry.slice(0, at)] = await use(entry.slice(0, at), entry.slice(at + 1));
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results));
