// The app's commands, typed with the bindings generated from Rust.

import { invoke } from "@tauri-apps/api/core";
import type { AppError } from "./bindings/AppError";
import type { AppInfo } from "./bindings/AppInfo";
import type { BillRow } from "./bindings/BillRow";
import type { DisputeSheetView } from "./bindings/DisputeSheetView";
import type { JobCostView } from "./bindings/JobCostView";
import type { CampaignForm } from "./bindings/CampaignForm";
import type { CampaignPlanView } from "./bindings/CampaignPlanView";
import type { CampaignRow } from "./bindings/CampaignRow";
import type { CampaignStarted } from "./bindings/CampaignStarted";
import type { CellView } from "./bindings/CellView";
import type { DeliveryView } from "./bindings/DeliveryView";
import type { ImportRow } from "./bindings/ImportRow";
import type { NewBillingRule } from "./bindings/NewBillingRule";
import type { NewClaim } from "./bindings/NewClaim";
import type { NewOffering } from "./bindings/NewOffering";
import type { NewPlatform } from "./bindings/NewPlatform";
import type { OutstandingRow } from "./bindings/OutstandingRow";
import type { PlatformDetail } from "./bindings/PlatformDetail";
import type { PlatformRow } from "./bindings/PlatformRow";
import type { ProbeStarted } from "./bindings/ProbeStarted";
import type { ProbeState } from "./bindings/ProbeState";
import type { ProfileRow } from "./bindings/ProfileRow";
import type { RankRequest } from "./bindings/RankRequest";
import type { HistoryView } from "./bindings/HistoryView";
import type { BundleExported } from "./bindings/BundleExported";
import type { PullForm } from "./bindings/PullForm";
import type { PullResultView } from "./bindings/PullResultView";
import type { BundleMerged } from "./bindings/BundleMerged";
import type { RankView } from "./bindings/RankView";
import type { ReportRequest } from "./bindings/ReportRequest";
import type { ReportResult } from "./bindings/ReportResult";
import type { RunDetail } from "./bindings/RunDetail";
import type { RunRow } from "./bindings/RunRow";
import type { TemplateRow } from "./bindings/TemplateRow";
import { decodeTimeline } from "./timeline";

export function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "kind" in e && "message" in e;
}

export function messageOf(e: unknown): string {
  return isAppError(e) ? e.message : String(e);
}

export const api = {
  appInfo: () => invoke<AppInfo>("app_info"),
  setLanguage: (language: string) => invoke<void>("set_language", { language }),
  loadDemo: () => invoke<number>("load_demo"),
  listPlatforms: () => invoke<PlatformRow[]>("list_platforms"),
  platformDetail: (id: number) => invoke<PlatformDetail>("platform_detail", { id }),
  addPlatform: (platform: NewPlatform) => invoke<number>("add_platform", { platform }),
  addOffering: (platformId: number, offering: NewOffering) => invoke<number>("add_offering", { platformId, offering }),
  deleteOffering: (id: number) => invoke<void>("delete_offering", { id }),
  setBillingRule: (platformId: number, rule: NewBillingRule) => invoke<void>("set_billing_rule", { platformId, rule }),
  addClaim: (platformId: number, claim: NewClaim) => invoke<number>("add_claim", { platformId, claim }),
  templates: () => invoke<TemplateRow[]>("templates"),
  addTemplate: (name: string) => invoke<number>("add_template", { name }),
  deletePlatform: (id: number) => invoke<void>("delete_platform", { id }),
  listRuns: () => invoke<RunRow[]>("list_runs"),
  runDetail: (id: number) => invoke<RunDetail>("run_detail", { id }),
  runTimeline: async (id: number, range: [number, number] | null, columns: number) =>
    decodeTimeline(await invoke<ArrayBuffer>("run_timeline", { id, range, columns })),
  deleteRun: (id: number) => invoke<void>("delete_run", { id }),
  importFiles: (platformId: number, paths: string[]) => invoke<ImportRow[]>("import_files", { platformId, paths }),
  cancelJob: (job: number) => invoke<boolean>("cancel_job", { job }),
  campaignPlan: (form: CampaignForm) => invoke<CampaignPlanView>("campaign_plan", { form }),
  campaignRun: (form: CampaignForm) => invoke<CampaignStarted>("campaign_run", { form }),
  listCampaigns: () => invoke<CampaignRow[]>("list_campaigns"),
  campaignOutstanding: () => invoke<OutstandingRow[]>("campaign_outstanding"),
  campaignCleanup: () => invoke<OutstandingRow[]>("campaign_cleanup"),
  rank: (request: RankRequest) => invoke<RankView>("rank", { request }),
  explain: (platformId: number, breakpoint: string, request: RankRequest) => invoke<CellView>("explain", { platformId, breakpoint, request }),
  pullPrometheus: (form: PullForm) => invoke<PullResultView>("pull_prometheus", { form }),
  bundleExport: (path: string) => invoke<BundleExported>("bundle_export", { path }),
  bundleImport: (path: string, resolution: string | null) => invoke<BundleMerged>("bundle_import", { path, resolution }),
  platformHistory: (platformId: number, since: string | null, until: string | null) => invoke<HistoryView>("platform_history", { platformId, since, until }),
  weightProfiles: () => invoke<ProfileRow[]>("weight_profiles"),
  saveWeightProfile: (name: string, weights: number[]) => invoke<ProfileRow>("save_weight_profile", { name, weights }),
  bill: (workload: string) => invoke<BillRow[]>("bill", { workload }),
  billDisputes: () => invoke<DisputeSheetView[]>("bill_disputes"),
  jobCost: (job: string, mode: string, currency: string | null) => invoke<JobCostView>("job_cost", { job, mode, currency }),
  exportReport: (request: ReportRequest) => invoke<ReportResult>("export_report", { request }),
  openReport: () => invoke<void>("open_report"),
  probeInventory: () => invoke<ProbeState>("probe_inventory"),
  probeStart: (intervalMs: number) => invoke<ProbeStarted>("probe_start", { intervalMs }),
  probeRun: (commandLine: string, dir: string | null, intervalMs: number) => invoke<ProbeStarted>("probe_run", { commandLine, dir, intervalMs }),
  probeCheck: (offeringId: number) => invoke<DeliveryView>("probe_check", { offeringId }),
};
