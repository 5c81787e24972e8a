#!/usr/bin/env bash
# Builds the npm package (ES module for browsers, Node.js and Deno) into pkg/ and installs its
# tarball, as a user's project would, into each DIR given (default: www, the demo), e.g.
#   bash scripts/build-pkg.sh                 # the package users get → www/node_modules/webgpu-msm
#   bash scripts/build-pkg.sh --demo tests/js # with the cargo feature `demo` → tests/js/node_modules
# `--demo` adds the `randomInputs` and `arkworksMsm` exports the demo page and the tests use.
# Install DIR's own dependencies first: `npm install` there would prune the --no-save tarball.
# Never downloads tools: `--mode no-install` makes wasm-pack use the wasm-bindgen on PATH (it must
# match the wasm-bindgen version in Cargo.lock) and `--no-opt` skips wasm-opt (binaryen).
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
need_wasm_pack

wasm-pack build --target web --release --mode no-install --no-opt \
    --out-dir pkg --out-name webgpu_msm -- "${features[@]}"

# wasm-pack writes package.json from Cargo.toml; complete it for npm, and ship the licenses and
# the snarkjs accelerator (a subpath export, webgpu-msm/snarkjs).
cp LICENSE-MIT LICENSE-APACHE js/snarkjs.js js/snarkjs.d.ts pkg/
node - <<'JS'
const fs = require("fs");
const file = "pkg/package.json";
const p = JSON.parse(fs.readFileSync(file, "utf8"));
if (p.name !== "webgpu-msm") {
  console.error(`build-pkg: pkg/package.json has name '${p.name}', expected 'webgpu-msm'`);
  process.exit(1);
}
p.license = "MIT OR Apache-2.0";
p.keywords = ["webgpu", "msm", "multi-scalar-multiplication", "elliptic-curve", "zk", "bn254",
  "bls12-381", "bls12-377", "wasm"];
// Loading the module only defines functions; nothing runs until init().
p.sideEffects = false;
p.types = "webgpu_msm.d.ts";
p.files = ["webgpu_msm_bg.wasm", "webgpu_msm_bg.wasm.d.ts", "webgpu_msm.js", "webgpu_msm.d.ts",
  "snarkjs.js", "snarkjs.d.ts", "README.md", "LICENSE-MIT", "LICENSE-APACHE"];
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
