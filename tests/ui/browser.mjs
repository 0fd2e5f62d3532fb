// Opens the example page (examples/web_ui) in headless Chromium from Debian, sends the prompt,
// and reports what the DOM showed while the answer streamed. Driven by tests/test_ui_browser.py:
//
//     node browser.mjs CHROMIUM SCREENSHOT.png URL...  > RESULTS.json
//
// One browser, one fresh profile, a page per URL (side by side). Before sending, a MutationObserver records
// every change of the page: the status (`streaming` until the reader finished) and, for every
// tool call on the page, its id, state and the arguments text shown. RESULTS.json maps each URL
// to {log, final, errors}: that record, the DOM at the end (text, tool calls, status) and any
// page or console error. The last URL's page is saved as SCREENSHOT.png.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [executablePath, screenshot, ...urls] = process.argv.slice(2);

// The machine's network is closed: nothing may try to reach out (updates, sync, QUIC probes).
const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function snapshot() {
  return {
    status: document.getElementById("status").dataset.status,
    statusText: document.getElementById("status").textContent,
    text: [...document.querySelectorAll(".message.assistant .text")].map((n) => n.textContent),
    tools: [...document.querySelectorAll(".tool")].map((n) => ({
      id: n.dataset.toolCallId,
      state: n.dataset.state,
      name: n.querySelector(".tool-name").textContent,
      input: n.querySelector(".tool-input").textContent,
      output: n.querySelector(".tool-output")?.textContent ?? null,
    })),
  };
}

const profile = await mkdtemp(join(tmpdir(), "llmkit-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  args,
  viewport: { width: 900, height: 1000 },
});
async function visit(url, screenshotPath) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.evaluate(`(() => {
    const snapshot = ${snapshot.toString()};
    window.__log = [];
    new MutationObserver(() => window.__log.push(snapshot())).observe(document.body, {
      subtree: true, childList: true, characterData: true, attributes: true,
    });
  })()`);
  await page.click("#send");
  await page.waitForFunction(
    () => !["idle", "streaming"].includes(document.getElementById("status").dataset.status),
    null,
    { timeout: 60000 },
  );
  const log = await page.evaluate("window.__log");
  const final = await page.evaluate(snapshot);
  if (screenshotPath) await page.screenshot({ path: screenshotPath, fullPage: true });
  await page.close();
  return { log, final, errors };
}

const results = {};
try {
  // The pages stream side by side: most of their time is the fake provider's pacing.
  const visits = urls.map((url, i) => visit(url, i === urls.length - 1 ? screenshot : null));
  for (const [i, result] of (await Promise.all(visits)).entries()) results[urls[i]] = result;
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(results));
