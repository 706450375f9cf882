/**
 * Page layout: header (Experiment picker, run or playback controls, view
 * switches, status), the chosen experiment in two sentences, then the guided
 * view, the overview charts (other metrics one click away) and the rollout
 * inspector; the settings (task, variants, algorithm, model) in a column
 * one click away.
 */
import { useLab, labStore } from "../store";
import { ExperimentPanel } from "./components/experiment/ExperimentPanel";
import { RunControls } from "./components/RunControls";
import { StatusLine } from "./components/StatusLine";
import { ErrorBanner, PendingChangesBanner } from "./components/Banners";
import { ChartsPanel } from "./components/charts/ChartsPanel";
import { CreditPanel } from "./components/charts/CreditPanel";
import { Inspector } from "./components/inspector/Inspector";
import { RunsTable } from "./components/RunsTable";
import { LogPanel } from "./components/LogPanel";
import { SavedRuns } from "./components/SavedRuns";
import { StabilityPanel } from "./components/StabilityPanel";
import { ExperimentPicker } from "./components/lesson/ExperimentPicker";
import { LessonIntro } from "./components/lesson/LessonIntro";
import { GuidePanel } from "./components/lesson/GuidePanel";
import { NoTrainingNote, PlaybackControls } from "./components/lesson/PlaybackBar";
import { ViewToggles } from "./components/lesson/ViewToggles";

export function App() {
  const inspectorOpen = useLab((s) => s.inspectorOpen);
  const guideOpen = useLab((s) => s.guideOpen);
  const settingsOpen = useLab((s) => s.settingsOpen);
  const presentation = useLab((s) => s.presentation);
  const noTraining = useLab((s) => s.noTraining);
  const cls = [
    "app",
    inspectorOpen ? "with-inspector" : "",
    guideOpen ? "with-guide" : "",
    presentation ? "presentation" : "",
    settingsOpen ? "with-settings" : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={cls}>
      <header className="app-header">
        <div className="brand">
          <h1>Reward Lab</h1>
          <span className="muted small">
            How reward design changes RL training of a tiny vision-language model, live in your
            browser (WebGPU)
          </span>
        </div>
        <ExperimentPicker />
        {noTraining ? <PlaybackControls /> : <RunControls />}
        <button
          type="button"
          className="inspect-btn"
          aria-expanded={inspectorOpen}
          onClick={() => labStore.getState().setInspectorOpen(!inspectorOpen)}
        >
          Inspect rollouts
        </button>
        <ViewToggles />
        <StatusLine />
      </header>
      <NoTrainingNote />
      <ErrorBanner />
      <PendingChangesBanner />
      <LessonIntro />
      <main className="layout">
        {settingsOpen && (
          <div id="settings-drawer" className="settings-drawer" data-testid="settings-drawer">
            <button
              type="button"
              className="drawer-close small-btn"
              aria-label="Close the settings"
              onClick={() => labStore.getState().setSettingsOpen(false)}
            >
              ×
            </button>
            <ExperimentPanel />
          </div>
        )}
        <GuidePanel />
        <div className="main-col">
          <CreditPanel />
          <ChartsPanel />
          <RunsTable />
          <SavedRuns />
          {!noTraining && <StabilityPanel />}
          <LogPanel />
        </div>
        <Inspector />
      </main>
    </div>
  );
}
