// The app's commands, typed with the bindings generated from Rust.

import { invoke } from "@tauri-apps/api/core";
import { listen, type EventCallback, type UnlistenFn } from "@tauri-apps/api/event";
import type { CommandName, Commands, EventName } from "./bindings/commands";
import type { AppError } from "./bindings/AppError";
import type { CampaignForm } from "./bindings/CampaignForm";
import type { NewBillingRule } from "./bindings/NewBillingRule";
import type { NewClaim } from "./bindings/NewClaim";
import type { NewOffering } from "./bindings/NewOffering";
import type { NewPlatform } from "./bindings/NewPlatform";
import type { RankRequest } from "./bindings/RankRequest";
import type { PullForm } from "./bindings/PullForm";
import type { ReportRequest } from "./bindings/ReportRequest";
import { decodeTimeline } from "./timeline";

export function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "kind" in e && "message" in e;
}

export function messageOf(e: unknown): string {
  return isAppError(e) ? e.message : String(e);
}

/** A command by its generated name, with the arguments its Rust side takes. */
function call<C extends CommandName>(command: C, args: Commands[C]["args"]): Promise<Commands[C]["returns"]> {
  return invoke<Commands[C]["returns"]>(command, args);
}

/** Listen for one of the events the commands emit. */
export function on<T>(event: EventName, handler: EventCallback<T>): Promise<UnlistenFn> {
  return listen<T>(event, handler);
}

export const api = {
  appInfo: () => call("app_info", {}),
  setLanguage: (language: string) => call("set_language", { language }),
  loadDemo: () => call("load_demo", {}),
  listPlatforms: () => call("list_platforms", {}),
  platformDetail: (id: number) => call("platform_detail", { id }),
  addPlatform: (platform: NewPlatform) => call("add_platform", { platform }),
  addOffering: (platformId: number, offering: NewOffering) => call("add_offering", { platformId, offering }),
  deleteOffering: (id: number) => call("delete_offering", { id }),
  setBillingRule: (platformId: number, rule: NewBillingRule) => call("set_billing_rule", { platformId, rule }),
  addClaim: (platformId: number, claim: NewClaim) => call("add_claim", { platformId, claim }),
  templates: () => call("templates", {}),
  addTemplate: (name: string) => call("add_template", { name }),
  deletePlatform: (id: number) => call("delete_platform", { id }),
  listRuns: () => call("list_runs", {}),
  runDetail: (id: number) => call("run_detail", { id }),
  runTimeline: async (id: number, range: [number, number] | null, columns: number) =>
    decodeTimeline(await call("run_timeline", { id, range, columns })),
  deleteRun: (id: number) => call("delete_run", { id }),
  importFiles: (platformId: number, paths: string[]) => call("import_files", { platformId, paths }),
  cancelJob: (job: number) => call("cancel_job", { job }),
  campaignPlan: (form: CampaignForm) => call("campaign_plan", { form }),
  campaignRun: (form: CampaignForm) => call("campaign_run", { form }),
  listCampaigns: () => call("list_campaigns", {}),
  campaignOutstanding: () => call("campaign_outstanding", {}),
  campaignCleanup: () => call("campaign_cleanup", {}),
  rank: (request: RankRequest) => call("rank", { request }),
  clustermaxView: (request: RankRequest) => call("clustermax_view", { request }),
  explain: (platformId: number, breakpoint: string, request: RankRequest) => call("explain", { platformId, breakpoint, request }),
  pullPrometheus: (form: PullForm) => call("pull_prometheus", { form }),
  bundleExport: (path: string) => call("bundle_export", { path }),
  bundleImport: (path: string, resolution: string | null) => call("bundle_import", { path, resolution }),
  platformHistory: (platformId: number, since: string | null, until: string | null) => call("platform_history", { platformId, since, until }),
  weightProfiles: () => call("weight_profiles", {}),
  saveWeightProfile: (name: string, weights: number[]) => call("save_weight_profile", { name, weights }),
  bill: (workload: string) => call("bill", { workload }),
  billDisputes: () => call("bill_disputes", {}),
  jobCost: (job: string, mode: string, currency: string | null) => call("job_cost", { job, mode, currency }),
  exportReport: (request: ReportRequest) => call("export_report", { request }),
  openReport: () => call("open_report", {}),
  probeInventory: () => call("probe_inventory", {}),
  probeStart: (intervalMs: number) => call("probe_start", { intervalMs }),
  probeRun: (commandLine: string, dir: string | null, intervalMs: number) => call("probe_run", { commandLine, dir, intervalMs }),
  probeCheck: (offeringId: number) => call("probe_check", { offeringId }),
};
