// The app shell: navigation on the left, one view at a time on the right.

import { api, messageOf } from "./api";
import { append, clear, h } from "./dom";
import { setLanguage, t, type Key } from "./i18n";
import { platformsView } from "./views/platforms";
import { rankingsView } from "./views/rankings";
import { runsView } from "./views/runs";
import { historyView } from "./views/history";
import { clustermaxView } from "./views/clustermax";
import { billingView } from "./views/billing";
import { decisionView } from "./views/decision";
import { exportView } from "./views/export";
import { probeView } from "./views/probe";
import { campaignsView } from "./views/campaigns";
import { settingsView } from "./views/settings";
import { type Mount, navigator } from "./lifecycle";

const VIEWS: Key[] = ["rankings", "decision", "clustermax", "platforms", "runs", "history", "probe", "campaigns", "billing", "export", "settings"];
const app = document.getElementById("app") as HTMLElement;
const nav = h("nav", { "aria-label": "Breakpoint" });
const main = h("main", { id: "content", tabindex: "-1" });
let current: Key = "rankings";

function renderNav(): void {
  clear(nav);
  append(nav, h("div", { class: "brand" }, "Breakpoint"),
    ...VIEWS.map((v) => h("button", { id: `nav-${v}`, class: v === current ? "active" : "", "aria-current": v === current ? "page" : undefined,
      onclick: () => void show(v) }, t(v))));
}

let generation = 0;

// Each view renders into `main` with a Mount that holds its subscriptions;
// showing another view releases them first.
const views = navigator<Key>(async (view: Key, mount: Mount) => {
  switch (view) {
    case "rankings": await rankingsView(main, (v) => void show(v)); break;
    case "decision": decisionView(main); break;
    case "clustermax": await clustermaxView(main); break;
    case "platforms": await platformsView(main); break;
    case "runs": await runsView(main, mount); break;
    case "history": await historyView(main); break;
    case "probe": await probeView(main, (v) => void show(v), mount); break;
    case "campaigns": await campaignsView(main, mount); break;
    case "billing": await billingView(main); break;
    case "export": await exportView(main); break;
    default: await settingsView(main, renderNav);
  }
});

async function show(view: string): Promise<void> {
  const token = ++generation;
  current = (VIEWS as string[]).includes(view) ? (view as Key) : "rankings";
  renderNav();
  clear(main);
  main.setAttribute("data-view", current);
  // Views load their data first; aria-busy tells assistive tech (and the
  // end-to-end tests) when the screen is complete.
  main.setAttribute("aria-busy", "true");
  try {
    await views.show(current);
  } catch (e) {
    append(main, h("p", { class: "error" }, messageOf(e)));
  } finally {
    if (token === generation) main.removeAttribute("aria-busy");
  }
}

async function start(): Promise<void> {
  append(app, nav, main);
  try {
    setLanguage((await api.appInfo()).language);
  } catch {
    // Outside the app (a plain browser), the shell still draws.
  }
  await show("rankings");
}

void start();
