// The Export screen: the decision-matrix PDF written where the user chooses.

import { save } from "@tauri-apps/plugin-dialog";
import { api, messageOf } from "../api";
import { append, clear, h } from "../dom";
import { language, t } from "../i18n";

export async function exportView(root: HTMLElement): Promise<void> {
  const info = await api.appInfo();
  const defaultPath = info.db_path.replace(/[^/\\]*$/, "decision-matrix.pdf");
  const path = h("input", { id: "export-path", value: defaultPath, size: 60, "aria-label": t("path") });
  const lang = h("select", { id: "export-lang", "aria-label": t("language") }, h("option", { value: "en" }, "English"), h("option", { value: "zh" }, "简体中文"));
  lang.value = language();
  const title = h("input", { id: "export-title", "aria-label": t("title") });
  const date = h("input", { id: "export-date", type: "date", "aria-label": t("date") });
  const choose = h("button", {}, t("choose"));
  choose.addEventListener("click", async () => {
    const chosen = await save({ defaultPath: path.value, filters: [{ name: "PDF", extensions: ["pdf"] }] });
    if (chosen) path.value = chosen;
  });
  const status = h("p", { id: "export-status", role: "status" });
  const go = h("button", { class: "primary", id: "export-pdf" }, t("exportPdf"));
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    status.textContent = "…";
    try {
      const r = await api.exportReport({ path: path.value, lang: lang.value, title: title.value || null, date: date.value || null });
      status.textContent = `${t("wrote")} ${r.path} (${r.pages} pages, ${Math.round(Number(r.bytes) / 1024)} KB) `;
      const openIt = h("button", { id: "open-pdf" }, t("openPdf"));
      openIt.addEventListener("click", async () => {
        try {
          await api.openReport();
        } catch (e) {
          append(status, h("span", { class: "error" }, ` ${messageOf(e)}`));
        }
      });
      append(status, openIt);
    } catch (e) {
      status.textContent = messageOf(e);
      status.className = "error";
    } finally {
      go.removeAttribute("disabled");
    }
  });
  clear(root);
  append(root, h("h1", {}, t("exportTitle")),
    h("div", { class: "form" },
      h("label", {}, h("span", {}, t("path")), path, choose),
      h("label", {}, h("span", {}, t("language")), lang),
      h("label", {}, h("span", {}, t("title")), title),
      h("label", {}, h("span", {}, t("date")), date)),
    go, status);
}
