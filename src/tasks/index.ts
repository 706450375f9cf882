/**
 * Task generators, rendering and tokenizer (browser-safe; the Node loader for
 * the MNIST subset is `./mnist-data-node`).
 */
export * from "./types";
export * from "./rng";
export * from "./config";
export * from "./format";
export * from "./mnist-data";
export * from "./digits";
export * from "./shapes";
export * from "./bars";
export * from "./generator";
export * from "./tokenizer";
