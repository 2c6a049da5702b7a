// The Decision screen: the user's job, what finishing it costs on each
// platform from what was measured there (bands, terms, the answer in words),
// and what to measure next to settle it.

import { api } from "../api";
import { append, clear, h, svgImage } from "../dom";
import { clearErrors, showError } from "../forms";
import { t } from "../i18n";
import type { JobCostRow } from "../bindings/JobCostRow";

type WorkKind = "work" | "requests" | "horizon";

/** The price modes a job can be costed in, as the core names them. */
const modes = ["on-demand", "monthly", "spot"] as const;

/** A price mode in the reader's language (the core's label where unknown). */
function modeWords(mode: string): string {
  return (modes as readonly string[]).includes(mode) ? t(`mode-${mode as (typeof modes)[number]}`) : mode;
}

/** The form's fields, by the job key each writes. */
interface Fields {
  gpus: HTMLInputElement;
  kind: HTMLSelectElement;
  work: HTMLInputElement;
  requests: HTMLInputElement;
  perGpu: HTMLInputElement;
  horizon: HTMLInputElement;
  utilisation: HTMLInputElement;
  checkpoint: HTMLInputElement;
  deadline: HTMLInputElement;
  data: HTMLInputElement;
  storage: HTMLInputElement;
  precision: HTMLSelectElement;
  mode: HTMLSelectElement;
  currency: HTMLInputElement;
}

/** The matrix precisions a job runs at; BF16 is the core's default. */
const precisions = ["bf16", "fp16", "fp8", "tf32", "fp32"] as const;

/** The form's values, by field. */
export type JobValues = { [K in keyof Fields]: string };

/** The job as `breakpoint cost --job` reads it; the core checks every value. */
export function jobSpec(v: JobValues): string {
  const parts = [`gpus=${v.gpus.trim()}`];
  const kind = v.kind as WorkKind;
  if (kind === "work") parts.push(`work=${v.work.trim()}`);
  if (kind === "requests") parts.push(`requests=${v.requests.trim()}`, `per-gpu=${v.perGpu.trim()}`);
  if (kind === "horizon") parts.push(`horizon=${v.horizon.trim()}`, `utilisation=${v.utilisation.trim()}`);
  for (const key of ["checkpoint", "deadline", "data", "storage"] as const) {
    if (v[key].trim() !== "") parts.push(`${key}=${v[key].trim()}`);
  }
  if (v.precision !== "" && v.precision !== "bf16") parts.push(`precision=${v.precision}`);
  return parts.join(",");
}

function valuesOf(f: Fields): JobValues {
  return Object.fromEntries(Object.entries(f).map(([k, el]) => [k, (el as HTMLInputElement | HTMLSelectElement).value])) as JobValues;
}

export function decisionView(root: HTMLElement): void {
  const input = (id: string, value: string, size = 8) => h("input", { id, value, size });
  const f: Fields = {
    gpus: input("job-gpus", "8", 4),
    kind: h("select", { id: "job-kind" },
      h("option", { value: "work" }, t("jobKindWork")),
      h("option", { value: "requests" }, t("jobKindRequests")),
      h("option", { value: "horizon" }, t("jobKindHorizon"))),
    work: input("job-work", "2000h@A100-80GB", 16),
    requests: input("job-requests", "50M"),
    perGpu: input("job-per-gpu", "120/s"),
    horizon: input("job-horizon", "1y"),
    utilisation: input("job-utilisation", "60%", 5),
    checkpoint: input("job-checkpoint", "30m", 5),
    deadline: input("job-deadline", "14d", 5),
    data: input("job-data", ""),
    storage: input("job-storage", ""),
    precision: h("select", { id: "job-precision" }, ...precisions.map((p) => h("option", { value: p }, p.toUpperCase()))),
    mode: h("select", { id: "job-mode" }, h("option", { value: "cheapest" }, t("modeCheapest")),
      ...modes.map((m) => h("option", { value: m }, t(`mode-${m}`)))),
    currency: input("job-currency", "", 4),
  };
  const field = (label: string, el: HTMLElement, hint?: string) =>
    h("label", {}, h("span", {}, label), el, hint ? h("small", { class: "hint" }, hint) : null);
  const workFields = {
    work: field(t("jobWork"), f.work, t("jobWorkHint")),
    requests: h("span", { class: "inline" }, field(t("jobRequests"), f.requests), field(t("jobPerGpu"), f.perGpu)),
    horizon: h("span", { class: "inline" }, field(t("jobHorizon"), f.horizon), field(t("jobUtilisation"), f.utilisation)),
  };
  const showKind = () => {
    for (const [kind, el] of Object.entries(workFields)) el.hidden = kind !== f.kind.value;
  };
  f.kind.addEventListener("change", showKind);
  showKind();
  const slots = { form: h("p", { class: "error", id: "job-error" }) };
  const spec = h("code", { id: "job-spec" });
  const out = h("div", { id: "job-costs" });
  const go = h("button", { class: "primary", id: "cost-it" }, t("costIt"));
  const run = async () => {
    clearErrors(slots);
    clear(out);
    const job = jobSpec(valuesOf(f));
    spec.textContent = `breakpoint cost --job ${job}${f.mode.value === "cheapest" ? "" : ` --mode ${f.mode.value}`}`;
    try {
      const view = await api.jobCost(job, f.mode.value, f.currency.value.trim() || null);
      append(out,
        h("p", { id: "job-reading" }, `${t("jobReading")}: ${view.reading}`),
        h("p", { class: "strong", id: "job-answer" }, view.answer),
        svgImage(view.chart_svg, t("jobCost")),
        h("table", { id: "job-table" },
          h("thead", {}, h("tr", {}, ...[t("platform"), t("jobCostBand"), t("jobMode"), t("jobHoursBand"), t("jobDays"), t("deadlineMet")].map((k) => h("th", {}, k)))),
          h("tbody", {}, ...view.rows.map((r) => h("tr", {}, h("td", {}, r.platform), h("td", { class: "num strong" }, r.cost),
            h("td", {}, r.mode === null ? "–" : modeWords(r.mode)), h("td", { class: "num" }, r.hours), h("td", { class: "num" }, r.days === null ? "–" : r.days.toFixed(1)),
            h("td", { class: "num" }, r.deadline === null ? "–" : `${(100 * r.deadline).toFixed(0)} %`))))),
        h("h2", {}, t("jobMeasureNext")),
        measureNext(view.rows),
        h("h2", {}, t("jobTerms")),
        ...view.rows.map(terms),
        h("p", { class: "hint" }, t("jobCostNote")));
    } catch (e) {
      showError(e, slots);
    }
  };
  go.addEventListener("click", () => void run());
  clear(root);
  append(root, h("h1", {}, t("decision")),
    h("p", { class: "hint" }, t("decisionIntro")),
    h("div", { class: "form-grid", id: "job-form" },
      field(t("jobGpus"), f.gpus), field(t("jobKind"), f.kind), workFields.work, workFields.requests, workFields.horizon,
      field(t("jobCheckpoint"), f.checkpoint), field(t("jobDeadline"), f.deadline),
      field(t("jobData"), f.data, "500GB"), field(t("jobStorage"), f.storage, "2TB"),
      field(t("jobPrecision"), f.precision), field(t("jobModeField"), f.mode), field(t("currency"), f.currency, "CNY, USD…")),
    h("div", { class: "inline" }, go, spec), slots.form, out);
  // Costed on arrival, without holding the screen: the draws `cost` takes
  // per platform take a moment.
  void run();
}

/** The terms no platform measured that the answer leans on, by platform. */
function measureNext(rows: JobCostRow[]): HTMLElement {
  const guessed = rows.flatMap((r) => r.terms.filter((term) => !term.measured).map((term) => `${r.platform}: ${term.name} — ${term.source}`));
  return guessed.length
    ? h("ul", { id: "job-next" }, ...guessed.map((g) => h("li", {}, g)))
    : h("p", { id: "job-next", class: "hint" }, t("jobAllMeasured"));
}

/** One platform's terms with what each rests on and its share of the hours. */
function terms(r: JobCostRow): HTMLElement {
  return h("section", { class: "job-terms" },
    h("h3", {}, r.platform),
    h("ul", {},
      ...r.terms.map((term) => h("li", { class: term.measured ? "" : "guessed" },
        `${term.name}: ${term.figure}${term.share === null ? "" : ` (${(100 * term.share).toFixed(0)} %)`} — ${term.source}`)),
      ...r.notes.map((n) => h("li", { class: "hint" }, n))));
}
