/** Start-up: store, experiment from the URL and URL sync, trainer worker, autosave, first init, render. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { labStore } from "./store";
import { startAutosave } from "./store/autosave";
import { AUTOSAVE_KEY, saveRun } from "./store/run-db";
import { connectTrainer } from "./ui/worker-client";
import { syncUrl } from "./ui/url-sync";
import { App } from "./ui/App";
import { ErrorBoundary } from "./ui/ErrorBoundary";
import "./ui/styles.css";

syncUrl(labStore);
connectTrainer(labStore);
startAutosave(labStore, (rec) => saveRun(rec, AUTOSAVE_KEY));
labStore.getState().init();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ErrorBoundary>
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
