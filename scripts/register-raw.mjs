// Registers raw-loader.mjs; used as `node --import tsx --import ./scripts/register-raw.mjs`.
import { register } from "node:module";
register("./raw-loader.mjs", import.meta.url);
