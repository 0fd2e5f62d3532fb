// Holds a conversation on the example page (examples/web_ui) in headless Chromium from Debian,
// and reports what the DOM showed. Driven by tests/test_ui_browser.py:
//
//     node browser.mjs CHROMIUM SCREENSHOT.png URL...  > RESULTS.json
//
// One browser, one fresh profile, a page per URL (side by side). On each page: send the
// suggested prompt (turn 1: a tool loop), send the next (turn 2: two bookings that ask for
// approval), reload, approve the first and deny the second with a reason, send the third
// (turn 3: an answer with sources), then reload again. A MutationObserver records every change during turn 1
// (the status and, for every tool call on the page, its id, state and the arguments shown).
// RESULTS.json maps each URL to {log, turns, reloaded, address, errors}: that record, the DOM
// after each response (and after the first reload), the DOM and the address after the last
// reload, and any page or console error. The last URL's
// page is saved as SCREENSHOT.png.
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
  const tool = (n) => ({
    id: n.dataset.toolCallId,
    state: n.dataset.state,
    name: n.querySelector(".tool-name").textContent,
    input: n.querySelector(".tool-input").textContent,
    output: n.querySelector(".tool-output")?.textContent ?? null,
    buttons: [...n.querySelectorAll(".approval button")].map((b) => b.textContent),
  });
  return {
    status: document.getElementById("status").dataset.status,
    statusText: document.getElementById("status").textContent,
    prompt: document.getElementById("prompt").value,
    messages: [...document.querySelectorAll(".message")].map((m) => ({
      id: m.dataset.messageId,
      role: m.classList.contains("user") ? "user" : "assistant",
      text: [...m.querySelectorAll(".text")].map((n) => n.textContent),
      reasoning: [...m.querySelectorAll(".reasoning")].map((n) => n.textContent),
      tools: [...m.querySelectorAll(".tool")].map(tool),
      sources: [...m.querySelectorAll(".sources li")].map((n) => ({
        text: n.textContent,
        href: n.querySelector("a")?.getAttribute("href") ?? null,
      })),
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

// Wait until the page has finished `count` responses since it loaded and is no longer sending.
async function settled(page, count) {
  await page.waitForFunction(
    (n) =>
      Number(document.body.dataset.responses ?? 0) >= n &&
      !["submitted", "streaming"].includes(document.getElementById("status").dataset.status),
    count,
    { timeout: 60000 },
  );
  return page.evaluate(snapshot);
}

async function visit(url, screenshotPath) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.waitForSelector("body[data-loaded]");
  await page.evaluate(`(() => {
    const snapshot = ${snapshot.toString()};
    window.__log = [];
    window.__observer = new MutationObserver(() => window.__log.push(snapshot()));
    window.__observer.observe(document.body, {
      subtree: true, childList: true, characterData: true, attributes: true,
    });
  })()`);
  const turns = [];
  await page.click("#send"); // turn 1: the suggested prompt
  turns.push(await settled(page, 1));
  const log = await page.evaluate("window.__observer.disconnect(), window.__log");

  await page.click("#send"); // turn 2: bookings, held for approval
  turns.push(await settled(page, 2));
  await page.reload(); // the held calls come back from the server, buttons and all
  await page.waitForSelector("body[data-loaded]");
  turns.push(await page.evaluate(snapshot));
  const held = page.locator('.tool[data-state="approval-requested"]');
  await held.nth(0).locator("button.approve").click();
  await page.waitForFunction(
    () => document.querySelectorAll('.tool[data-state="approval-requested"]').length === 1,
  );
  await page.locator('.tool[data-state="approval-requested"] .reason').fill("Too expensive");
  await page.locator('.tool[data-state="approval-requested"] button.deny').click();
  turns.push(await settled(page, 1)); // sent by itself once every call was answered

  await page.click("#send"); // turn 3: an answer with sources
  turns.push(await settled(page, 2));
  if (screenshotPath) await page.screenshot({ path: screenshotPath, fullPage: true });

  await page.reload();
  await page.waitForSelector("body[data-loaded]");
  const reloaded = await page.evaluate(snapshot);
  const address = page.url();
  await page.close();
  return { log, turns, reloaded, address, errors };
}

const results = {};
try {
  // The pages run side by side: most of their time is the fake provider's pacing.
  const visits = urls.map((url, i) => visit(url, i === urls.length - 1 ? screenshot : null));
  for (const [i, result] of (await Promise.all(visits)).entries()) results[urls[i]] = result;
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(results));
