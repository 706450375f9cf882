/** Shows a rendering failure as a message (with a reload button) instead of a blank page. */
import { Component, type ReactNode } from "react";

export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="banner error" role="alert" style={{ margin: 24 }}>
        <div>
          <b>The page failed to draw:</b> {this.state.error.message}
          <div className="small">
            Training state in the worker is unaffected; reloading restarts the page with the
            settings in the URL.
          </div>
        </div>
        <button type="button" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
