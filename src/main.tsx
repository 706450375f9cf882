/**
 * Start-up: store, experiment from the URL and URL sync, then either the
 * trainer worker (WebGPU) with autosave and the first init, or (no WebGPU)
 * the preset's recording played in the same page; render.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { labStore } from "./store";
import { startAutosave } from "./store/autosave";
import { AUTOSAVE_KEY, saveRun } from "./store/run-db";
import { DEFAULT_PRESET } from "./settings/presets";
import { connectTrainer } from "./ui/worker-client";
import { syncUrl } from "./ui/url-sync";
import { fetchRecording, whyNoWebGpu } from "./ui/recordings";
import { firstVisit } from "./ui/visit";
import { App } from "./ui/App";
import { ErrorBoundary } from "./ui/ErrorBoundary";
import "./ui/styles.css";
import "./ui/lesson.css";

labStore.setState({ guideOpen: firstVisit() });
syncUrl(labStore);
labStore.getState().attachRecordings(fetchRecording);

void whyNoWebGpu().then((reason) => {
  const st = labStore.getState();
  if (reason) {
    st.setNoTraining(reason);
    st.pickPreset(st.presetName ?? DEFAULT_PRESET);
    return;
  }
  connectTrainer(labStore);
  startAutosave(labStore, (rec) => saveRun(rec, AUTOSAVE_KEY));
  labStore.getState().init();
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ErrorBoundary>
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
