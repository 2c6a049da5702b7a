// End-to-end tests of the real desktop app: the debug build (or the release
// one, BREAKPOINT_E2E_PROFILE=release) with the UI
// embedded, on a fresh database, driven over WebDriver (tauri-driver →
// WebKitWebDriver). Run under a display, e.g. `xvfb-run -a node tests/e2e/run.mjs`.
// Screenshots of every screen land in tests/e2e/artifacts/ (not committed).

import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Session, sleep } from "./webdriver.mjs";
import { buildScaleWorkspace, writeLongRun } from "./scale.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// CI drives the debug build; BREAKPOINT_E2E_PROFILE=release times the one users run.
const profile = process.env.BREAKPOINT_E2E_PROFILE ?? "debug";
const app = join(root, `target/${profile}/breakpoint-app`);
const cli = join(root, `target/${profile}/breakpoint`);
const artifacts = join(root, "tests/e2e/artifacts");
const fixture = join(root, "tests/fixtures/logs/smi-csv/driver-610.csv");
const trace = join(root, "tests/fixtures/probe/trace.json");
const XSS = "<img src=x onerror=alert(1)>";
const PORT = 4444;

for (const bin of [app, cli]) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build it first (scripts/test-all does)`);
}
mkdirSync(artifacts, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "breakpoint-e2e-"));
const db = join(work, "e2e.db");
// The fake cloud the campaign step drives is on the app's PATH.
const campaignFixtures = join(root, "tests/fixtures/campaign");
const env = {
  ...process.env, BREAKPOINT_DB: db, LANG: "C.UTF-8",
  PATH: `${campaignFixtures}:${process.env.PATH}`, FAKECLOUD_DIR: join(work, "cloud"),
};

const breakpoint = (...args) => execFileSync(cli, ["--db", db, ...args], { env, encoding: "utf8" });

let driver = spawn("tauri-driver", ["--port", String(PORT)], { env, stdio: ["ignore", "inherit", "inherit"] });
let session;
const results = [];

// BREAKPOINT_E2E_ONLY=<words> runs only the steps whose name holds them
// (while working on one screen); CI runs every step.
const only = process.env.BREAKPOINT_E2E_ONLY;

async function step(name, body) {
  if (only && !name.includes(only)) return;
  const started = Date.now();
  try {
    await body();
    results.push({ name, ok: true });
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${e.message}`);
    if (session) {
      try {
        writeFileSync(join(artifacts, `failed-${name.replace(/\W+/g, "-")}.png`), screen());
      } catch {
        // no display to capture
      }
    }
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

// Screenshots come from the X display (ImageMagick's `import`): WebKitGTK's
// WebDriver snapshot never returns once the app turns GPU compositing off.
function screen() {
  return execFileSync("import", ["-window", "root", "png:-"], { maxBuffer: 64 << 20 });
}

// The screens docs/ and README show, rewritten from this run when
// BREAKPOINT_DOC_SCREENSHOTS is set (scripts/screenshots), so that they
// always show today's app on today's demo.
const docScreens = {
  "02-rankings": "rankings.png",
  "09-probe-workload": "probe-workload.png",
};

async function shot(name) {
  const png = screen();
  writeFileSync(join(artifacts, `${name}.png`), png);
  if (process.env.BREAKPOINT_DOC_SCREENSHOTS && docScreens[name]) {
    writeFileSync(join(root, "docs/screenshots", docScreens[name]), png);
  }
}

async function go(view) {
  await session.click(`#nav-${view}`);
  await session.until(`the ${view} screen`, "const m = document.querySelector('#content'); return m?.dataset.view === arguments[0] && !m.hasAttribute('aria-busy')", 5000, view);
}

// The app and its WebKit helpers, by the names the kernel keeps (15 characters);
// not WebKitWebDriver, which is the test harness.
const APP_PROCESSES = /^(breakpoint-app|WebKitWebProces|WebKitNetworkPr)$/;

function commOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** Every live process below `root`, from the parent links in /proc. */
function descendants(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces; the parent id follows its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const found = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found.filter((pid) => APP_PROCESSES.test(commOf(pid)));
}

const matrixOrder = () =>
  session.run("return [...document.querySelectorAll('#matrix tr[data-platform]')].map((r) => r.dataset.platform)");

/** Moves the weight sliders to `values` ([breakpoint, 0–100] pairs); resolves to the ms until the matrix is redrawn, timed in the page. */
const sliderToRedraw = (values) =>
  session.runAsync(`
    const done = arguments[arguments.length - 1];
    const matrix = document.querySelector('#matrix');
    const t0 = performance.now();
    new MutationObserver((_, observer) => { observer.disconnect(); done(performance.now() - t0); })
      .observe(matrix, { childList: true, subtree: true });
    for (const [b, v] of arguments[0]) {
      const r = document.querySelector('#weight-' + b);
      r.value = String(v);
      r.dispatchEvent(new Event('input', { bubbles: true }));
    }`, values);

/** Eleven rankings over IPC with 2000 weight draws, sorted times in ms (each with other weights, so nothing is reused). */
const rankOverIpc = () =>
  session.runAsync(`
    const done = arguments[arguments.length - 1];
    (async () => {
      const ms = [];
      for (let i = 0; i < 11; i++) {
        const t0 = performance.now();
        await window.__TAURI_INTERNALS__.invoke("rank", { request: { profile: null, weights: [i % 4, 1, 1, 1], samples: 2000, seed: 1 } });
        ms.push(performance.now() - t0);
      }
      done(ms.sort((a, b) => a - b));
    })();`);

try {
  const launched = Date.now();
  session = await Session.start(`http://127.0.0.1:${PORT}`, app);

  await step("first start on an empty database shows the empty state", async () => {
    await session.find("#empty-state");
    assert((await session.text("#empty-state h2")).includes("No platforms"), "empty state title");
    console.log(`     launch to first screen: ${Date.now() - launched} ms`);
    await shot("01-empty");
  });

  await step("load demo → ranking visible", async () => {
    await session.click("#load-demo");
    await session.until("the ranking matrix", "return document.querySelectorAll('#matrix tr[data-platform]').length >= 6", 20_000);
    const cli = JSON.parse(breakpoint("rank", "--json", "--samples", "10"));
    const expected = cli.ranking.platforms.map((p) => p.name);
    assert(JSON.stringify(await matrixOrder()) === JSON.stringify(expected), `matrix order ${await matrixOrder()} != CLI ${expected}`);
    await session.until("the robustness strip", "return document.querySelector('#robustness .chip')", 10_000);
    // The answer in words, as the CLI gives it, and what to measure next.
    assert(cli.decision.verdict.kind === "pick", `the demo's decision: ${JSON.stringify(cli.decision.verdict)}`);
    await session.until("the decision", "return (document.querySelector('#decision')?.textContent ?? '').startsWith('Pick ' + arguments[0] + ' because')", 5000, cli.decision.verdict.platform);
    await session.until("what to measure next", "return document.querySelectorAll('#next-measurements li').length > 0", 5000);
    await shot("02-rankings");
  });

  await step("a weight change re-ranks as the CLI says", async () => {
    const before = await matrixOrder();
    // Timed in the page: slider input → the matrix redrawn.
    const latency = await sliderToRedraw([["startup", 0], ["sustain", 0], ["switch", 0], ["billing", 100]]);
    const cli = JSON.parse(breakpoint("rank", "--json", "--samples", "10", "--weight", "startup=0", "--weight", "sustain=0", "--weight", "switch=0", "--weight", "billing=1"));
    const expected = cli.ranking.platforms.map((p) => p.name);
    assert(JSON.stringify(expected) !== JSON.stringify(before), "these weights should change the order");
    await session.until("the re-ranked matrix", "return JSON.stringify([...document.querySelectorAll('#matrix tr[data-platform]')].map((r) => r.dataset.platform)) === arguments[0]", 5000, JSON.stringify(expected));
    const timings = await rankOverIpc();
    console.log(`     rank over IPC (6 platforms, 2000 weight draws): median ${timings[5].toFixed(1)} ms, max ${timings[10].toFixed(1)} ms`);
    console.log(`     slider change → matrix redrawn in ${latency.toFixed(0)} ms (ranked at once; moves during a ranking fold into one more)`);
    await session.click("#matrix tr[data-platform] td button.cell");
    await session.until("the evidence drawer", "return document.querySelector('#drawer table')", 5000);
    await shot("03-rankings-billing-weighted");
  });

  await step("a platform named like markup shows as text", async () => {
    await go("platforms");
    await session.type("#new-name", XSS);
    await session.run("document.querySelector('#add-platform').requestSubmit()");
    await session.until("the new platform in the list", "return [...document.querySelectorAll('#platform-list button.link')].some((b) => b.textContent === arguments[0])", 5000, XSS);
    const images = await session.count("img");
    assert(images === 0, `found ${images} <img> elements: user text was rendered as HTML`);
    await shot("04-platforms");
  });

  await step("an offering and a claim are added, bad values refused next to their fields", async () => {
    await session.run("[...document.querySelectorAll('#platform-list button.link')].find((b) => b.textContent === arguments[0]).click()", XSS);
    await session.find("#add-offering");
    await session.type("#offering-accelerator", "NVIDIA H100 80GB HBM3");
    await session.type("#offering-count", "8");
    await session.type("#offering-price", "-3");
    await session.run("document.querySelector('#add-offering').requestSubmit()");
    const why = await session.until("the price error", "return document.querySelector('#offering-price-error')?.textContent", 5000);
    assert(/price_on_demand/.test(why), `price error reads: ${why}`);
    await session.type("#offering-price", "21.5");
    await session.run("document.querySelector('#add-offering').requestSubmit()");
    await session.until("the offering listed", "return document.querySelector('#offerings')?.textContent.includes('8 × ')", 5000);
    await session.type("#claim-subject", "availability");
    await session.type("#claim-value", "99.9");
    await session.run("document.querySelector('#add-claim').requestSubmit()");
    const missing = await session.until("the source error", "return document.querySelector('#claim-source-error')?.textContent", 5000);
    assert(/source/.test(missing), `source error reads: ${missing}`);
    await session.type("#claim-source", "contract §4.2");
    await session.run("document.querySelector('#add-claim').requestSubmit()");
    await session.until("the claim listed", "return document.querySelector('#claims')?.textContent.includes('contract §4.2')", 5000);
    await shot("04-platform-detail");
  });

  await step("import a fixture log → run listed with the CLI's sample count", async () => {
    const other = join(work, "reference.db");
    execFileSync(cli, ["--db", other, "platform", "add", "ref"], { env });
    const reference = JSON.parse(execFileSync(cli, ["--db", other, "import", "--json", "--platform", "ref", "--tz", "UTC", fixture], { env, encoding: "utf8" }));
    const expected = reference.imports?.[0]?.samples ?? reference[0]?.samples;
    assert(Number.isInteger(expected) && expected > 0, `reference import gave no sample count: ${JSON.stringify(reference).slice(0, 200)}`);
    await go("runs");
    await session.run("const s = document.querySelector('#import-platform'); s.value = [...s.options].find((o) => o.textContent === arguments[0]).value; s.dispatchEvent(new Event('change'))", XSS);
    await session.type("#import-path", fixture);
    await session.click("#import-by-path");
    await session.until("the imported run", "return [...document.querySelectorAll('#runs-table tr[data-run]')].some((r) => r.textContent.includes('driver-610.csv'))", 20_000);
    const samples = await session.run("return [...document.querySelectorAll('#runs-table tr[data-run]')].find((r) => r.textContent.includes('driver-610.csv')).querySelector('.samples').textContent");
    assert(Number(samples) === expected, `run lists ${samples} samples, the CLI stored ${expected}`);
    await session.type("#filter-text", "driver-610");
    await session.until("the filtered list", "return document.querySelectorAll('#runs-table tr[data-run]').length === 1", 5000);
    await shot("05-runs-import");
  });

  await step("a log where a GPU fell off the bus shows its losses in the run's detail", async () => {
    const lost = join(root, "tests/fixtures/logs/smi-csv/gpu-fell-off.csv");
    await session.run("const i = document.querySelector('#filter-text'); i.value = ''; i.dispatchEvent(new Event('input'))");
    await session.type("#import-path", lost);
    await session.click("#import-by-path");
    await session.until("the imported run", "return [...document.querySelectorAll('#runs-table tr[data-run]')].some((r) => r.textContent.includes('gpu-fell-off.csv'))", 20_000);
    await session.run("[...document.querySelectorAll('#runs-table tr[data-run]')].find((r) => r.textContent.includes('gpu-fell-off.csv')).querySelector('button').click()");
    await session.until("the run's events", "return document.querySelectorAll('#run-events tr[data-kind=\"gpu-lost\"]').length === 2", 5000);
    const text = await session.text("#run-events");
    assert(text.includes("Unable to determine the device handle"), `the loss's message is shown: ${text.slice(0, 200)}`);
    const energy = await session.text("#run-energy");
    assert(/kWh over .* GPU-hours sampled/.test(energy), `the run's energy is shown: ${energy}`);
    await session.run("document.querySelector('#run-events').scrollIntoView()");
    await shot("05b-run-events");
    // The timeline shades the lost GPU's time away and says so.
    await session.until("the run's timeline", "return document.querySelector('#timeline-canvas')?.dataset.drawn === '1'", 10_000);
    const legend = await session.text("#run-timeline .legend");
    assert(legend.includes("GPU lost"), `the timeline's legend names the loss: ${legend}`);
    await session.run("document.querySelector('#run-timeline').scrollIntoView()");
    await shot("05b-run-timeline");
  });

  await step("a kernel log shows its Xid errors by meaning, the program's not counted", async () => {
    const kernel = join(root, "tests/fixtures/logs/kernel/dmesg-fell-off.log");
    await session.type("#import-path", kernel);
    await session.click("#import-by-path");
    await session.until("the imported run", "return [...document.querySelectorAll('#runs-table tr[data-run]')].some((r) => r.textContent.includes('dmesg-fell-off.log'))", 20_000);
    await session.run("[...document.querySelectorAll('#runs-table tr[data-run]')].find((r) => r.textContent.includes('dmesg-fell-off.log')).querySelector('button').click()");
    await session.until("the run's Xid events", "return document.querySelectorAll('#run-events tr[data-kind=\"xid\"]').length === 4", 5000);
    const counted = await session.run("return [...document.querySelectorAll('#run-events tr[data-counted=\"true\"]')].map((r) => r.textContent)");
    assert(counted.length === 1 && counted[0].includes("GPU has fallen off the bus") && counted[0].includes("00000000:B7:00.0"), `only the fall off the bus counts: ${JSON.stringify(counted)}`);
    const text = await session.text("#run-events");
    assert(text.includes("no (application)"), `application faults are marked: ${text.slice(0, 300)}`);
    await session.run("document.querySelector('#run-events').scrollIntoView()");
    await shot("05c-kernel-log-events");
  });

  await step("an acceptance bundle imported shows its checklist on the platform", async () => {
    const reference = join(work, "reference-operators.json");
    execFileSync(cli, ["accept", "operators", "--device", "numpy", "-o", reference], { env });
    const plan = join(work, "plan.toml");
    writeFileSync(plan, `host = "node-e2e"\n[billing_probe]\ninstance = "i-e2e"\nseconds = "1s"\n[drift]\nreference = "${reference}"\ndevice = "numpy"\n`);
    const bundle = join(work, "acceptance-e2e.tar");
    execFileSync(cli, ["accept", "all", "--plan", plan, "-o", bundle], { env });
    await session.type("#import-path", bundle);
    await session.click("#import-by-path");
    await session.until("the bundle's runs", "return [...document.querySelectorAll('#runs-table tr[data-run]')].filter((r) => r.textContent.includes('acceptance-e2e.tar')).length === 2", 20_000);
    await go("platforms");
    await session.run("[...document.querySelectorAll('#platform-list button.link')].find((b) => b.textContent === arguments[0]).click()", XSS);
    await session.until("the acceptance checklist", "return document.querySelectorAll('#acceptance .acceptance-sheet').length === 1", 5000);
    const text = await session.text("#acceptance");
    assert(text.includes("acceptance-e2e.tar (node-e2e") && text.includes("numeric drift") && text.includes("14 of 14 operators"), `checklist reads: ${text.slice(0, 300)}`);
    await session.run("document.querySelector('#acceptance').scrollIntoView()");
    await shot("04b-acceptance-checklist");
  });

  await step("a platform's delivered performance: datasheet, peers, and the straggler GPU", async () => {
    await go("platforms");
    await session.run("[...document.querySelectorAll('#platform-list button.link')].find((b) => b.textContent === arguments[0]).click()", "Platform F (demo)");
    await session.until("the performance section", "return document.querySelectorAll('#performance .perf-model').length === 1", 5000);
    const text = await session.text("#performance");
    assert(text.includes("NVIDIA A100 80GB SXM") && text.includes("gemm bf16") && text.includes("of 5 other(s)"), `performance reads: ${text.slice(0, 300)}`);
    const stragglers = await session.run("return [...document.querySelectorAll('#performance .perf-gpus tr.failed')].map((r) => r.textContent)");
    assert(stragglers.length === 1 && stragglers[0].includes("below the node's best"), `straggler rows: ${JSON.stringify(stragglers)}`);
    await session.run("document.querySelector('#performance').scrollIntoView()");
    await shot("04c-delivered-performance");
  });

  await step("the matrix in ClusterMAX's categories: measured metrics, expected checks, a cmax audit", async () => {
    breakpoint("import", join(root, "tests/fixtures/logs/health/cmax/audit.values.json"), "--platform", "Platform A (demo)");
    breakpoint("import", join(root, "tests/fixtures/logs/health/gpu-burn/a100-8gpu-ok-cr-progress.log"), "--platform", "Platform A (demo)");
    await go("clustermax");
    const categories = await session.run("return [...document.querySelectorAll('#content section.category')].map((s) => s.dataset.category)");
    assert(categories.length === 10 && categories[0] === "security" && categories.includes("partnerships"), `categories: ${JSON.stringify(categories)}`);
    const security = await session.text("section.category[data-category='security']");
    assert(security.includes("2026-06-03") && security.includes("fail — securityVersions.nvidiaDriver: 580.126.09, minimum 580.159.03"), `security reads: ${security.slice(0, 400)}`);
    // The burn-in is measured on Platform A only: its column says so.
    const burn = await session.run(`const table = document.querySelector("section.category[data-category='reliability'] table.category-checks");
      const column = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent === 'Platform A (demo)');
      const row = [...table.querySelectorAll('tbody tr')].find((r) => r.cells[0].textContent.startsWith('Burn-in'));
      return [...row.cells].map((c, i) => [i === column, c.textContent]);`);
    assert(burn.every(([mine, text], i) => i === 0 || (mine ? text === "1 run" : text === "–")), `burn-in row: ${JSON.stringify(burn)}`);
    const reliability = await session.text("section.category[data-category='reliability']");
    assert(reliability.includes("Throughput decay") && reliability.includes("ECC single- and double-bit counts"), `reliability reads: ${reliability.slice(0, 400)}`);
    const networking = await session.text("section.category[data-category='networking']");
    assert(networking.includes("InfiniBand/Ethernet link flaps (passive): not read by Breakpoint yet"), `networking reads: ${networking.slice(0, 400)}`);
    await shot("05c-clustermax");
  });

  await step("a platform that got slower is flagged in its history and in the ranking", async () => {
    breakpoint("platform", "add", "Drifting");
    // Eleven daily startup tables around 60 s; the latest three 15 s slower.
    const noise = [0.4, -2.1, 1.7, -0.6, 2.8, -1.3, 0.9, -2.6, 1.2, -0.2, 2.2];
    noise.forEach((e, i) => {
      const base = 60 + e + (i >= 8 ? 15 : 0);
      const day = String(i + 1).padStart(2, "0");
      const rows = [base - 0.5, base, base + 0.5].map((s, k) => {
        const submitted = new Date(`2026-06-${day}T08:0${k}:00Z`);
        return `baseline,warm,${submitted.toISOString()},${new Date(submitted.getTime() + s * 1000).toISOString()},ok`;
      });
      const file = join(work, `drifting-${day}.csv`);
      writeFileSync(file, ["scenario,image,submitted_at,first_compute_at,outcome", ...rows].join("\n") + "\n");
      breakpoint("import", file, "--platform", "Drifting");
    });
    await go("history");
    await session.run("const s = document.querySelector('#history-platform'); s.value = [...s.options].find((o) => o.textContent === 'Drifting').value; s.dispatchEvent(new Event('change'))");
    await session.until("the degraded metric", "return document.querySelector('#history .history-metric[data-key=\"startup.baseline_p50_s\"][data-degraded=\"true\"]') !== null", 10_000);
    const text = await session.text("#history");
    assert(text.includes("the latest 3 runs") && text.includes("every one of the 8 before"), `history reads: ${text.slice(0, 300)}`);
    await shot("05d-history");
    await go("rankings");
    const warning = await session.until("the degradation warning", "return document.querySelector('#degradations')?.textContent", 10_000);
    assert(warning.includes("Drifting") && warning.includes("#"), `ranking warns: ${warning}`);
  });

  await step("a colleague's bundle with a conflicting platform is shown for a choice, then merged", async () => {
    const theirs = join(work, "colleague.db");
    const file = join(work, "colleague.tar");
    execFileSync(cli, ["--db", theirs, "platform", "add", "Drifting", "--kind", "marketplace"], { env });
    execFileSync(cli, ["--db", theirs, "import", join(root, "tests/fixtures/logs/smi-csv/header-units.csv"), "--platform", "Drifting"], { env });
    execFileSync(cli, ["--db", theirs, "bundle", "export", "-o", file], { env });
    await go("platforms");
    await session.type("#bundle-path", file);
    await session.click("#bundle-import");
    await session.until("the conflict", "return document.querySelector('#bundle-conflicts')?.textContent", 10_000);
    const text = await session.text("#bundle-conflicts");
    assert(text.includes("platform \"Drifting\": kind other here, marketplace in the bundle"), `conflict reads: ${text.slice(0, 300)}`);
    await shot("04c-bundle-conflict");
    await session.click("#bundle-rename-theirs");
    const merged = await session.until("the merge", "return document.querySelector('#bundle-merged')?.textContent", 10_000);
    assert(merged.includes("1 runs added"), `merge reads: ${merged}`);
    await session.click("#bundle-done");
    await session.until("their platform beside ours", "return [...document.querySelectorAll('#platform-list button.link')].some((b) => b.textContent === 'Drifting (2)')", 5000);
    const out = join(work, "workspace-from-app.tar");
    await session.type("#bundle-path", out);
    await session.click("#bundle-export");
    await session.until("the export", "return document.querySelector('#bundle-result')?.textContent.includes('SHA-256')", 10_000);
    assert(existsSync(out), "the bundle was written");
  });

  await step("import from Prometheus: a bad time is named at its field, then one run per node with its progress", async () => {
    // A recorded Prometheus API: one node, one GPU, three readings.
    const server = createServer((req, res) => {
      const body = req.url.startsWith("/api/v1/series")
        ? { status: "success", data: [{ __name__: "DCGM_FI_DEV_POWER_USAGE", gpu: "0", UUID: "GPU-e2e", Hostname: "node-e2e" }] }
        : { status: "success", data: { resultType: "matrix", result: [{ metric: { __name__: "DCGM_FI_DEV_POWER_USAGE", gpu: "0", UUID: "GPU-e2e", Hostname: "node-e2e" },
          values: [[1780300800, "650.5"], [1780300815, "651.5"], [1780300830, "652.5"]] }] } };
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    });
    await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      await go("runs");
      await session.run("document.querySelector('#prometheus').open = true");
      await session.type("#prom-url", `http://127.0.0.1:${server.address().port}`);
      await session.type("#prom-from", "yesterday");
      await session.type("#prom-to", "2026-06-01T08:00:30Z");
      await session.click("#prom-pull");
      const why = await session.until("the field error", "return document.querySelector('#prom-from-error')?.textContent", 5000);
      assert(why.includes("is not a time"), `from error reads: ${why}`);
      await session.type("#prom-from", "2026-06-01T08:00:00Z");
      await session.click("#prom-pull");
      await session.until("the node's run", "return document.querySelector('#prom-result tr[data-node=\"node-e2e\"]')?.textContent", 10_000);
      const row = await session.text("#prom-result");
      assert(row.includes("node-e2e") && row.includes("3"), `pull reads: ${row}`);
      const bar = await session.run("return document.querySelector('#prom-progress [data-node=\"node-e2e\"] progress')?.value");
      assert(bar === 100, `the node's bar is full: ${bar}`);
      await shot("05e-prometheus-pull");
    } finally {
      server.close();
    }
  });

  await step("the Decision screen costs the job as the CLI does", async () => {
    await go("decision");
    // The screen costs its default job on arrival (or says why not).
    await session.until("job costs", "return document.querySelectorAll('#job-table tbody tr').length >= 6 || document.querySelector('#job-error').textContent !== ''", 30000);
    const refused = await session.text("#job-error");
    assert(refused === "", `the default job was refused: ${refused}`);
    const spec = await session.text("#job-spec");
    assert(spec === "breakpoint cost --job gpus=8,work=2000h@A100-80GB,checkpoint=30m,deadline=14d", `the spec shown: ${spec}`);
    const bands = await session.run("return [...document.querySelectorAll('#job-table tbody tr')].map((r) => [...r.children].map((c) => c.textContent))");
    // The same draws and seed as the CLI's own defaults: the same figures.
    const cli = JSON.parse(breakpoint("cost", "--job", "gpus=8,work=2000h@A100-80GB,checkpoint=30m,deadline=14d", "--json"));
    const reading = await session.text("#job-reading");
    assert(reading.endsWith(cli.reading), `the work's reading: ${reading} vs ${cli.reading}`);
    for (const p of cli.platforms.filter((p) => p.cost)) {
      const row = bands.find((b) => b[0] === p.platform);
      assert(row && row[1].startsWith(`${p.cost.p10} / ${p.cost.p50} / ${p.cost.p90}`), `${p.platform}: ${JSON.stringify(row)} vs ${JSON.stringify(p.cost)}`);
      assert(row[2] === p.mode, `${p.platform}'s mode: ${row[2]} vs ${p.mode}`);
    }
    const answer = await session.text("#job-answer");
    assert(answer === cli.answer, `the answer: ${answer} vs ${cli.answer}`);
    // The bands drawn, and what to measure next named.
    const chart = await session.run("return document.querySelector('#job-costs img')?.naturalWidth ?? 0");
    assert(chart > 0, "the bands chart is drawn");
    await shot("06c-decision");
    // A steady workload: the form writes the horizon, the answer speaks of it.
    await session.run("const k = document.querySelector('#job-kind'); k.value = 'horizon'; k.dispatchEvent(new Event('change'))");
    await session.click("#cost-it");
    await session.until("the workload's answer", "return /runs the workload/.test(document.querySelector('#job-answer')?.textContent ?? '')", 30000);
    const horizon = await session.text("#job-spec");
    assert(horizon.includes("horizon=1y,utilisation=60%"), `the spec shown: ${horizon}`);
    // A bad value is named, and nothing else is shown.
    await session.run("const g = document.querySelector('#job-gpus'); g.value = 'many'");
    await session.click("#cost-it");
    await session.until("the error", "return /job.gpus/.test(document.querySelector('#job-error').textContent)", 10000);
  });

  for (const view of ["probe", "billing", "settings"]) {
    await step(`the ${view} screen renders`, async () => {
      await go(view);
      await sleep(300);
      if (view === "probe") await session.find("#no-gpu, #gpus");
      if (view === "billing") {
        await session.click("#price-it");
        await session.until("bills", "return document.querySelectorAll('#bills tr').length > 1", 5000);
        // The demo's platforms sampled power: the job's energy is beside its cost.
        const energy = await session.run("return [...document.querySelectorAll('#bills td.energy')].map((c) => c.textContent)");
        assert(energy.some((e) => / kWh$/.test(e)), `energy column reads: ${JSON.stringify(energy)}`);
        // The demo's bills against its samples: C's 127 s, marked; D's exact bill, not.
        await session.until("the dispute sheets", "return document.querySelectorAll('#disputes .dispute-sheet').length >= 6", 5000);
        const sheets = await session.run("return [...document.querySelectorAll('#disputes .dispute-sheet')].map((s) => [s.querySelector('h3').textContent, s.querySelectorAll('tr.failed').length, s.textContent])");
        const of = (letter) => sheets.find((s) => s[0].startsWith(`Platform ${letter}`));
        assert(of("C")[1] === 1 && of("C")[2].includes("127 of 6277"), `C's sheet: ${of("C")[2].slice(0, 200)}`);
        assert(of("D")[1] === 0, `D's sheet: ${of("D")[2].slice(0, 200)}`);
        await session.run("document.querySelector('#disputes').scrollIntoView()");
        await shot("06b-bills-against-measurements");
      }
      if (view === "settings") assert((await session.text("#db-path")) === db, "Settings shows the database path");
      await shot(`06-${view}`);
    });
  }

  await step("export the PDF → every platform is in it", async () => {
    const pdf = join(work, "decision.pdf");
    await go("export");
    await session.type("#export-path", pdf);
    await session.click("#export-pdf");
    await session.until("the export to finish", "return /pages|error|Error/.test(document.querySelector('#export-status').textContent)", 60_000);
    await shot("07-export");
    assert(existsSync(pdf), `no PDF at ${pdf}: ${await session.text("#export-status")}`);
    await session.find("#open-pdf", 2000);
    const text = execFileSync("pdftotext", ["-layout", pdf, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");
    const names = JSON.parse(breakpoint("platform", "list", "--json")).map((p) => p.name);
    const missing = names.filter((n) => !text.includes(n));
    assert(names.length >= 7 && missing.length === 0, `platforms missing from the PDF: ${missing.join(", ")}`);
  });

  await step("cold start to a visible ranking, and resident memory, on the demo workspace", async () => {
    await session.close();
    // Let the first instance and its WebKit processes exit, so only the new one is measured.
    const alive = () => descendants(driver.pid).length > 0;
    for (let i = 0; i < 50 && alive(); i++) await sleep(100);
    const started = Date.now();
    session = await Session.start(`http://127.0.0.1:${PORT}`, app);
    await session.until("the ranking matrix", "return document.querySelectorAll('#matrix tr[data-platform]').length >= 6", 20_000);
    console.log(`     launch to visible ranking: ${Date.now() - started} ms (WebDriver session setup included)`);
    await sleep(1000);
    // Only the processes this run started: descendants of tauri-driver.
    const pids = descendants(driver.pid);
    // RSS counts the shared WebKit libraries in every process; PSS splits
    // them, so the PSS sum is what the app costs the machine.
    let rssTotal = 0;
    let pssTotal = 0;
    for (const pid of pids) {
      let status;
      try {
        status = readFileSync(`/proc/${pid}/status`, "utf8");
      } catch {
        continue; // a process of the previous session that has exited since
      }
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      let pss = 0;
      try {
        pss = Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
      } catch {
        continue;
      }
      const name = /Name:\s+(\S+)/.exec(status)?.[1];
      console.log(`     ${name} (${pid}): RSS ${(rss / 1024).toFixed(0)} MiB, PSS ${(pss / 1024).toFixed(0)} MiB`);
      rssTotal += rss;
      pssTotal += pss;
    }
    console.log(`     all processes: RSS ${(rssTotal / 1024).toFixed(0)} MiB, PSS ${(pssTotal / 1024).toFixed(0)} MiB`);
  });

  await step("a startup campaign shows its plan and cost, launches only after the native yes, and tears everything down", async () => {
    breakpoint("platform", "add", "Fake cloud");
    await go("campaigns");
    await session.type("#campaign-recipe", join(campaignFixtures, "fake.toml"));
    await session.run("const c = document.querySelector('#campaign-count'); c.value = '2'");
    await session.run("const s = document.querySelector('#campaign-spacing'); s.value = '0.2'");
    await session.click("#campaign-plan-btn");
    const estimate = await session.until("the plan", "return document.querySelector('#campaign-estimate')?.textContent", 5000);
    assert(estimate.includes("2 × Fake cloud") && estimate.includes("0.17 CNY"), `the estimate reads: ${estimate}`);
    await shot("10-campaign-plan");
    const answer = async (key) => {
      const id = execFileSync("xdotool", ["search", "--sync", "--name", "^Launch instances\\?$"], { encoding: "utf8", timeout: 10_000 }).trim().split("\n")[0];
      if (key === "Escape") await shot("10b-campaign-consent");
      execFileSync("xdotool", ["windowfocus", "--sync", id, "key", key]);
    };
    await session.click("#campaign-run");
    await answer("Escape");
    await session.until("the refusal", "return document.querySelector('#campaign-error').textContent.includes('nothing was launched')", 5000);
    assert(!existsSync(join(work, "cloud")), "a refused campaign launched something");
    await session.click("#campaign-run");
    await answer("Return");
    await session.until("the campaign to end", "return document.querySelector('#campaign-done')", 30_000);
    await session.until("the campaign listed", "return document.querySelectorAll('#campaigns-table tr[data-run]').length === 1", 5000);
    const row = await session.text("#campaigns-table tbody tr");
    assert(row.includes("2 / 2"), `both attempts ok: ${row}`);
    assert(await session.find("#ledger-empty"), "the ledger is empty");
    await shot("10c-campaign-done");
  });

  await step("probe on a recorded trace: a workload runs only once the native dialog says yes", async () => {
    // The app reads BREAKPOINT_PROBE_TRACE at start, so this needs a driver
    // (and an app) started with it.
    await session.close();
    driver.kill();
    for (let i = 0; i < 50 && descendants(driver.pid).length > 0; i++) await sleep(100);
    // Ports of its own: the first driver's WebKitWebDriver may still hold 4445.
    driver = spawn("tauri-driver", ["--port", String(PORT + 10), "--native-port", String(PORT + 11)],
      { env: { ...env, BREAKPOINT_PROBE_TRACE: trace }, stdio: ["ignore", "inherit", "inherit"] });
    session = await Session.start(`http://127.0.0.1:${PORT + 10}`, app);
    await session.find("#matrix");
    await go("probe");
    await session.until("the replayed inventory", "return document.querySelectorAll('#gpus tbody tr').length === 2", 5000);
    const logs = join(work, "probe-logs");
    const logCount = () => (existsSync(logs) ? readdirSync(logs).length : 0);
    await session.type("#workload-command", "sh -c 'echo hello from the workload; sleep 1; exit 3'");
    await session.type("#workload-dir", work);

    // The dialog is a native window, out of the web view's reach: answer it
    // as a person would, with the keyboard.
    const answerDialog = async (key) => {
      const id = execFileSync("xdotool", ["search", "--sync", "--name", "^Run a workload\\?$"], { encoding: "utf8", timeout: 10_000 }).trim().split("\n")[0];
      await shot(key === "Escape" ? "08-probe-consent" : "08-probe-consent-again");
      execFileSync("xdotool", ["windowfocus", "--sync", id, "key", key]);
    };
    const before = logCount();
    await session.click("#workload-run");
    await answerDialog("Escape");
    await session.until("the refusal", "return document.querySelector('#workload-error').textContent.includes('not run')", 5000);
    assert(logCount() === before, "a refused workload wrote files");

    await session.click("#workload-run");
    await answerDialog("Return");
    await session.until("the workload to finish", "return document.querySelector('#workload-exit')", 20_000);
    assert((await session.text("#workload-exit")) === "3", `exit shown as ${await session.text("#workload-exit")}`);
    assert((await session.text("#workload-output")).includes("hello from the workload"), "the workload's output is shown");
    await shot("09-probe-workload");

    await session.click("#probe-import");
    await session.until("the import", "return /run \\d+/.test(document.querySelector('#probe-import-result').textContent)", 10_000);
    const runId = Number(/run (\d+)/.exec(await session.text("#probe-import-result"))[1]);
    const shown = JSON.parse(breakpoint("runs", "show", String(runId), "--json"));
    assert(shown.metadata?.exit_code === 3, `run ${runId} does not record the workload's exit: ${JSON.stringify(shown).slice(0, 300)}`);
  });

  await step("a workspace of 100 platforms: ranking, re-ranking, sorting, filtering, and a 1.4 M-sample run's timeline", async () => {
    const scaleDb = join(work, "scale.db");
    const at = (...args) => execFileSync(cli, ["--db", scaleDb, ...args], { env, encoding: "utf8", maxBuffer: 256 << 20 });
    let t0 = Date.now();
    buildScaleWorkspace(at, join(work, "scale"), 100);
    const longRun = join(work, "long-run.csv");
    const rows = await writeLongRun(longRun, 48);
    at("import", longRun, "--platform", "P000", "--tz", "UTC");
    console.log(`     built through the CLI: 100 platforms, 501 runs, ${rows + 288_000} samples in ${Date.now() - t0} ms`);
    const ranked = JSON.parse(at("rank", "--json", "--samples", "10")).ranking.platforms.map((p) => p.name);

    await session.close();
    driver.kill();
    for (let i = 0; i < 50 && descendants(driver.pid).length > 0; i++) await sleep(100);
    driver = spawn("tauri-driver", ["--port", String(PORT + 20), "--native-port", String(PORT + 21)],
      { env: { ...env, BREAKPOINT_DB: scaleDb }, stdio: ["ignore", "inherit", "inherit"] });
    t0 = Date.now();
    session = await Session.start(`http://127.0.0.1:${PORT + 20}`, app);
    await session.until("100 platforms ranked", "return document.querySelectorAll('#matrix tr[data-platform]').length === 100", 30_000);
    const launched = Date.now() - t0;
    // Where the launch went, from the page's own clock: until the page
    // started (driver, process, web view), then the page's own work.
    const marks = await session.run(`
      const at = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      return { origin: performance.timeOrigin, asked: at('rank-asked'), answered: at('rank-answered'), visible: at('ranking-visible') };`);
    console.log(`     launch to visible ranking, 100 platforms: ${launched} ms (goal ≤ 800 ms): until the page started ${Math.round(marks.origin - t0)} ms (WebDriver session, app process, web view), then ${Math.round(marks.visible)} ms in the page (rank over IPC ${Math.round(marks.answered - marks.asked)} ms, asked at ${Math.round(marks.asked)} ms)`);
    assert(JSON.stringify(await matrixOrder()) === JSON.stringify(ranked), "the matrix is not in the CLI's order");

    const latency = await sliderToRedraw([["billing", 100]]);
    const ipc = (await rankOverIpc())[5];
    console.log(`     slider change → 100-platform matrix redrawn in ${latency.toFixed(0)} ms (rank over IPC, median ${ipc.toFixed(0)} ms, included; goal ≤ 100 ms)`);
    const weighted = JSON.parse(at("rank", "--json", "--samples", "10", "--weight", "startup=0.25", "--weight", "sustain=0.25", "--weight", "switch=0.25", "--weight", "billing=1")).ranking.platforms.map((p) => p.name);
    await session.until("the re-ranked matrix", "return JSON.stringify([...document.querySelectorAll('#matrix tr[data-platform]')].map((r) => r.dataset.platform)) === arguments[0]", 5000, JSON.stringify(weighted));

    await session.click("#matrix button[data-sort=name]");
    const byName = [...ranked].sort();
    await session.until("sorted by name", "return JSON.stringify([...document.querySelectorAll('#matrix tr[data-platform]')].map((r) => r.dataset.platform)) === arguments[0]", 5000, JSON.stringify(byName));
    await session.type("#matrix-filter", "P01");
    await session.until("filtered to P010–P019", "return document.querySelectorAll('#matrix tr[data-platform]').length === 10 && document.querySelector('#matrix-hidden')?.textContent === '10 / 100'", 5000);
    await session.run("const f = document.querySelector('#matrix-filter'); f.value = ''; f.dispatchEvent(new Event('input', { bubbles: true }))");
    await session.until("all 100 again", "return document.querySelectorAll('#matrix tr[data-platform]').length === 100", 5000);
    // Scrolled down to the last platform, the header is still in view.
    const header = await session.run(`
      const main = document.querySelector('main');
      document.querySelector('#matrix tbody tr:last-child').scrollIntoView({ block: 'end' });
      const th = document.querySelector('#matrix thead th');
      return { scrolled: main.scrollTop, top: th.getBoundingClientRect().top - main.getBoundingClientRect().top };`);
    assert(header.scrolled > 500 && Math.abs(header.top) < 2, `the header scrolled away: ${JSON.stringify(header)}`);
    await shot("11-rankings-100-platforms");
    await session.run("document.querySelector('main').scrollTop = 0");

    // The long run's timeline: reduced by the engine to one column per
    // pixel off the UI thread, drawn on a canvas; the page keeps painting.
    const longId = JSON.parse(at("runs", "list", "--platform", "P000", "--json")).find((r) => r.sample_count === rows).id;
    await go("runs");
    const timed = (action, zoom) => session.runAsync(`
      const done = arguments[arguments.length - 1];
      const t0 = performance.now();
      let last = t0;
      let worst = 0;
      let left = false;
      const tick = (now) => {
        worst = Math.max(worst, now - last);
        last = now;
        const canvas = document.querySelector('#timeline-canvas');
        // A zoom first marks the old drawing stale, then the new one drawn.
        if (canvas && canvas.dataset.drawn === '0') left = true;
        if (canvas && canvas.dataset.drawn === '1' && (left || !arguments[1])) done({ ms: performance.now() - t0, worst, samples: Number(canvas.dataset.samples), asked: Number(canvas.dataset.askedMs), drawn: Number(canvas.dataset.drawnMs) });
        else if (now - t0 > 25000) done({ ms: -1, worst });
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      ${action}`, longId, zoom);
    const drawn = await timed("document.querySelector('#runs-table tr[data-run=\"' + arguments[0] + '\"] button').click();", false);
    assert(drawn.ms > 0, "the long run's timeline was not drawn within 25 s");
    assert(drawn.samples === rows, `the timeline reduced ${drawn.samples} samples, the run has ${rows}`);
    console.log(`     1.4 M-sample run: click → timeline drawn in ${drawn.ms.toFixed(0)} ms (reduction asked over IPC ${drawn.asked} ms, canvas drawn ${drawn.drawn} ms); longest frame meanwhile ${drawn.worst.toFixed(0)} ms (goal ≤ 300 ms, no frame > 50 ms)`);
    assert(drawn.worst < 1000, `the window froze for ${drawn.worst.toFixed(0)} ms while the timeline was drawn`);
    // Drag across a tenth of the plot: the engine reads that range again.
    const zoomed = await timed(`
      const c = document.querySelector('#timeline-canvas');
      const r = c.getBoundingClientRect();
      const at = (type, x) => c.dispatchEvent(new PointerEvent(type, { bubbles: true, clientX: r.left + x, clientY: r.top + 60, pointerId: 1 }));
      at('pointerdown', 300); at('pointermove', 380); at('pointerup', 380);`, true);
    assert(zoomed.ms > 0 && zoomed.samples > 0 && zoomed.samples < rows / 5, `the zoom did not read a part of the run: ${JSON.stringify(zoomed)}`);
    console.log(`     zoomed to a tenth: redrawn in ${zoomed.ms.toFixed(0)} ms from ${zoomed.samples} samples (asked ${zoomed.asked} ms, drawn ${zoomed.drawn} ms); longest frame ${zoomed.worst.toFixed(0)} ms`);
    await session.click("#timeline-whole");
    await session.until("the whole run again", "return document.querySelector('#timeline-canvas').dataset.samples === arguments[0]", 10_000, String(rows));
    await sleep(800); // the smooth scroll to the detail
    await session.run("document.querySelector('#run-timeline').scrollIntoView({ block: 'start' })");
    await sleep(100);
    await shot("12-long-run-timeline");
  });

  await step("partial evidence: a leaning with each platform's chance and the priced plan, as the CLI says", async () => {
    const partialDb = join(work, "partial.db");
    const at = (...args) => execFileSync(cli, ["--db", partialDb, ...args], { env, encoding: "utf8" });
    at("platform", "add", "P");
    at("platform", "add", "Q");
    at("offering", "add", "--platform", "P", "--accelerator", "H200 141GB", "--count", "8", "--price-on-demand", "20", "--currency", "CNY");
    at("import", "--platform", "P", fixture);
    const expected = JSON.parse(at("rank", "--json")).decision;
    assert(expected.kind === "leaning", `the CLI's answer: ${JSON.stringify(expected.verdict)}`);

    await session.close();
    driver.kill();
    for (let i = 0; i < 50 && descendants(driver.pid).length > 0; i++) await sleep(100);
    driver = spawn("tauri-driver", ["--port", String(PORT + 30), "--native-port", String(PORT + 31)],
      { env: { ...env, BREAKPOINT_DB: partialDb }, stdio: ["ignore", "inherit", "inherit"] });
    session = await Session.start(`http://127.0.0.1:${PORT + 30}`, app);
    await session.until("the leaning", "return (document.querySelector('#decision')?.textContent ?? '').startsWith('Leaning ' + arguments[0] + ' (')", 20_000, expected.verdict.platform);
    // The CLI's line, word for word: whole percents that add up to 100.
    const chances = at("rank").split("\n").find((l) => l.startsWith("chance of being the best")).split("): ")[1];
    const shown = await session.text("#p-best");
    assert(shown.endsWith(chances), `the app's chances "${shown}", the CLI's "${chances}"`);
    const steps = await session.run("return [...document.querySelectorAll('#next-measurements li code')].map((c) => c.textContent)");
    assert(JSON.stringify(steps) === JSON.stringify(expected.plan.map((s) => s.command)), `the app's plan ${JSON.stringify(steps)}, the CLI's ${JSON.stringify(expected.plan.map((s) => s.command))}`);
    await session.run("document.querySelector('#decision').scrollIntoView({ block: 'start' })");
    await sleep(100);
    await shot("13-rankings-leaning");
  });
} finally {
  if (session) await session.close();
  driver.kill();
  rmSync(work, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok);
console.log(`${results.length - failed.length} passed, ${failed.length} failed; screenshots in ${artifacts}`);
process.exit(failed.length ? 1 : 0);
