/** Page layout: header (controls, status), experiment panel, charts, inspector. */
import { useLab, labStore } from "../store";
import { ExperimentPanel } from "./components/experiment/ExperimentPanel";
import { RunControls } from "./components/RunControls";
import { StatusLine } from "./components/StatusLine";
import { ErrorBanner, PendingChangesBanner } from "./components/Banners";
import { ChartsPanel } from "./components/charts/ChartsPanel";
import { Inspector } from "./components/inspector/Inspector";
import { RunsTable } from "./components/RunsTable";
import { LogPanel } from "./components/LogPanel";
import { SavedRuns } from "./components/SavedRuns";
import { StabilityPanel } from "./components/StabilityPanel";

export function App() {
  const inspectorOpen = useLab((s) => s.inspectorOpen);
  return (
    <div className={inspectorOpen ? "app with-inspector" : "app"}>
      <header className="app-header">
        <div className="brand">
          <h1>Reward Lab</h1>
          <span className="muted small">
            How reward design changes RL training of a tiny vision-language model, live in your
            browser (WebGPU)
          </span>
        </div>
        <RunControls />
        <button
          type="button"
          className="inspect-btn"
          aria-expanded={inspectorOpen}
          onClick={() => labStore.getState().setInspectorOpen(!inspectorOpen)}
        >
          Inspect rollouts
        </button>
        <StatusLine />
      </header>
      <ErrorBanner />
      <PendingChangesBanner />
      <main className="layout">
        <ExperimentPanel />
        <div className="main-col">
          <ChartsPanel />
          <RunsTable />
          <SavedRuns />
          <StabilityPanel />
          <LogPanel />
        </div>
        <Inspector />
      </main>
    </div>
  );
}
