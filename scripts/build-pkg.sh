#!/usr/bin/env bash
# Builds the npm package (ES module for browsers, Node.js and Deno) into pkg/ and installs its
# tarball, as a user's project would, into each DIR given (default: www, the demo), e.g.
#   bash scripts/build-pkg.sh                 # the package users get → www/node_modules/webgpu-msm
#   bash scripts/build-pkg.sh --demo tests/js # with the cargo feature `demo` → tests/js/node_modules
# `--demo` adds the `randomInputs` and `arkworksMsm` exports the demo page and the tests use.
# Install DIR's own dependencies first: `npm install` there would prune the --no-save tarball.
# The wasm module is cargo's release build bound by wasm-bindgen (the CLI the browser tests need
# anyway, at the version in Cargo.lock); no wasm-opt (binaryen), which nothing here downloads.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
features=()
if [ "${1:-}" = "--demo" ]; then
    features=(--features demo)
    shift
fi
[ $# -gt 0 ] || set -- www

need_node
need_wasm_bindgen_cli

cargo build --lib --release --target wasm32-unknown-unknown "${features[@]}"
rm -rf pkg
wasm-bindgen --target web --out-dir pkg --out-name webgpu_msm \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/webgpu_msm.wasm"

# package.json from Cargo.toml's name, version and description; the README with the API reference
# it links (docs/api.md), the licenses and the snarkjs accelerator (a subpath export,
# webgpu-msm/snarkjs) ship beside the module.
cp README.md LICENSE-MIT LICENSE-APACHE js/snarkjs.js js/snarkjs.d.ts pkg/
mkdir -p pkg/docs && cp docs/api.md pkg/docs/
cargo metadata --format-version 1 --no-deps >pkg/.cargo-metadata.json
node - <<'JS'
const fs = require("fs");
const file = "pkg/package.json";
const crate = JSON.parse(fs.readFileSync("pkg/.cargo-metadata.json", "utf8"))
  .packages.find((p) => p.name === "webgpu-msm");
fs.rmSync("pkg/.cargo-metadata.json");
const p = { name: crate.name, type: "module", description: crate.description, version: crate.version };
p.license = "MIT OR Apache-2.0";
p.keywords = ["webgpu", "msm", "multi-scalar-multiplication", "elliptic-curve", "zk", "bn254",
  "bls12-381", "bls12-377", "grumpkin", "pallas", "vesta", "secp256k1", "wasm"];
// Loading the module only defines functions; nothing runs until init().
p.sideEffects = false;
p.main = "webgpu_msm.js";
p.types = "webgpu_msm.d.ts";
p.files = ["webgpu_msm_bg.wasm", "webgpu_msm_bg.wasm.d.ts", "webgpu_msm.js", "webgpu_msm.d.ts",
  "snarkjs.js", "snarkjs.d.ts", "README.md", "docs/api.md", "LICENSE-MIT", "LICENSE-APACHE"];
p.exports = { ".": { types: "./webgpu_msm.d.ts", default: "./webgpu_msm.js" },
  "./snarkjs": { types: "./snarkjs.d.ts", default: "./snarkjs.js" },
  "./webgpu_msm.js": "./webgpu_msm.js", "./webgpu_msm_bg.wasm": "./webgpu_msm_bg.wasm",
  "./package.json": "./package.json" };
if (fs.existsSync("pkg/snippets")) {
  // JS snippets (none today) would be side effects of loading the module.
  p.files.push("snippets/");
  p.sideEffects = ["./snippets/*"];
}
for (const f of p.files) {
  if (!fs.existsSync(`pkg/${f}`)) {
    console.error(`build-pkg: pkg/${f} is missing`);
    process.exit(1);
  }
}
fs.writeFileSync(file, JSON.stringify(p, null, 2) + "\n");
JS

# Install it the way a user's project would: from the packed tarball.
packed=$(mktemp -d)
(cd pkg && npm pack --silent --pack-destination "$packed" >/dev/null)
for dir in "$@"; do
    npm install --prefix "$dir" --no-save --ignore-scripts --no-audit --no-fund "$packed"/webgpu-msm-*.tgz >/dev/null
done
rm -rf "$packed"
echo "build-pkg: pkg/ ($(du -h pkg/webgpu_msm_bg.wasm | cut -f1) wasm), installed into $(printf '%s/node_modules/webgpu-msm ' "$@")"
