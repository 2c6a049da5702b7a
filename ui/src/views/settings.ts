// The Settings screen: language and the database in use.

import { api } from "../api";
import { append, clear, h } from "../dom";
import { language, setLanguage, t } from "../i18n";

export async function settingsView(root: HTMLElement, relabel: () => void): Promise<void> {
  const info = await api.appInfo();
  const lang = h("select", { id: "language", "aria-label": t("language") }, h("option", { value: "en" }, "English"), h("option", { value: "zh" }, "简体中文"));
  lang.value = language();
  lang.addEventListener("change", async () => {
    setLanguage(lang.value);
    await api.setLanguage(lang.value);
    relabel();
    await settingsView(root, relabel);
  });
  clear(root);
  append(root, h("h1", {}, t("settings")),
    h("dl", {}, h("dt", {}, t("database")), h("dd", { id: "db-path" }, info.db_path), h("dt", {}, t("version")), h("dd", {}, info.version)),
    h("label", {}, h("span", {}, t("language")), lang));
}
