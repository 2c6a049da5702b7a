// Platforms: list, add from a template or by hand (validation shown beside
// the field), and each platform's offerings, billing rules and claims.

import { api, messageOf } from "../api";
import { append, clear, h } from "../dom";
import { t } from "../i18n";

const KINDS = ["hyperscaler", "ai-native", "chip-vendor", "marketplace", "other"];

export async function platformsView(root: HTMLElement): Promise<void> {
  const [platforms, templates] = await Promise.all([api.listPlatforms(), api.templates()]);
  const detail = h("div", { id: "platform-detail" });
  const list = h("table", { id: "platform-list" },
    h("thead", {}, h("tr", {}, ...["name", "kind", "offerings", "runs", "samples"].map((k) => h("th", {}, k === "name" ? t("name") : k === "kind" ? t("kind") : k === "offerings" ? t("offerings") : k === "runs" ? t("runs") : t("samples"))))),
    h("tbody", {}, ...platforms.map((p) => {
      const name = h("button", { class: "link", "data-id": p.id }, p.name);
      name.addEventListener("click", () => showDetail(detail, p.id, root));
      return h("tr", {}, h("td", {}, name), h("td", {}, p.kind), h("td", { class: "num" }, String(p.offerings)), h("td", { class: "num" }, String(p.runs)), h("td", { class: "num" }, String(p.samples)));
    })));

  const templateSelect = h("select", { id: "template", "aria-label": t("addTemplate") }, ...templates.map((tp) => h("option", { value: tp.name }, `${tp.name} (${tp.kind})`)));
  const templateError = h("span", { class: "field-error", id: "template-error" });
  const addTemplate = h("button", { id: "add-template" }, t("add"));
  addTemplate.addEventListener("click", async () => {
    templateError.textContent = "";
    try {
      await api.addTemplate(templateSelect.value);
      await platformsView(root);
    } catch (e) {
      templateError.textContent = messageOf(e);
    }
  });

  const name = h("input", { id: "new-name", "aria-label": t("name"), autocomplete: "off" });
  const nameError = h("span", { class: "field-error", id: "new-name-error" });
  const kind = h("select", { id: "new-kind", "aria-label": t("kind") }, ...KINDS.map((k) => h("option", { value: k }, k)));
  const notes = h("input", { id: "new-notes", "aria-label": t("notes") });
  const form = h("form", { class: "inline", id: "add-platform" },
    h("label", {}, h("span", {}, t("name")), name, nameError),
    h("label", {}, h("span", {}, t("kind")), kind),
    h("label", {}, h("span", {}, t("notes")), notes),
    h("button", { type: "submit", class: "primary" }, t("add")));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    nameError.textContent = "";
    try {
      await api.addPlatform({ name: name.value, kind: kind.value, notes: notes.value || null });
      await platformsView(root);
    } catch (e) {
      // The core names the field: "name: must not be empty".
      nameError.textContent = messageOf(e);
    }
  });

  clear(root);
  append(root, h("h1", {}, t("platforms")), list,
    h("h2", {}, t("addTemplate")), h("div", { class: "inline" }, templateSelect, addTemplate, templateError),
    h("h2", {}, t("addPlatform")), form, detail);
}

async function showDetail(el: HTMLElement, id: number, root: HTMLElement): Promise<void> {
  try {
    const d = await api.platformDetail(id);
    const del = h("button", { class: "danger" }, t("delete"));
    del.addEventListener("click", async () => {
      if (!window.confirm(`${t("delete")} ${d.platform.name}?`)) return;
      await api.deletePlatform(id);
      await platformsView(root);
    });
    clear(el);
    append(el, h("section", { class: "drawer" },
      h("header", {}, h("h2", {}, d.platform.name), del),
      d.platform.notes ? h("p", {}, d.platform.notes) : null,
      h("h3", {}, t("offerings")),
      d.offerings.length ? h("ul", {}, ...d.offerings.map((o) => h("li", {}, `#${o.id} ${o.count} × ${o.accelerator} · PCIe ${o.pcie} · ${o.price}`))) : h("p", {}, "–"),
      h("h3", {}, t("billingRules")),
      d.billing.length ? h("ul", {}, ...d.billing.map((b) => h("li", {}, b))) : h("p", {}, "–"),
      h("h3", {}, t("claims")),
      d.claims.length ? h("ul", {}, ...d.claims.map((c) => h("li", {}, `${c.subject}${c.value ? ` ${c.value}` : ""}: ${c.text} [${c.source}]`))) : h("p", {}, "–")));
  } catch (e) {
    clear(el);
    append(el, h("p", { class: "error" }, messageOf(e)));
  }
}
