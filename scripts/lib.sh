# Shared helpers for the scripts (sourced: `. "$(dirname "$0")/lib.sh"`). Each installs what is
# missing on a fresh Debian machine from the Debian archive; nothing else is downloaded here.

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# apt_install PACKAGE...: installs Debian packages (one `apt-get update` per script run).
apt_install() {
    echo "setup: installing $* (apt)"
    if [ -z "${_webgpu_msm_apt_updated:-}" ]; then
        as_root apt-get update -qq
        _webgpu_msm_apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# need_file PATH PACKAGE...: installs the packages when PATH does not exist.
need_file() {
    local path="$1"
    shift
    [ -e "$path" ] || apt_install "$@"
}

# need_command COMMAND PACKAGE...: installs the packages when COMMAND is not on PATH.
need_command() {
    local command="$1"
    shift
    command -v "$command" >/dev/null 2>&1 || apt_install "$@"
}

# Node.js and npm: the machine's (Node.js 20 here), else Debian's nodejs 18, which runs the Node,
# Deno and Worker tests but not the demo page's test (playwright-core needs Node.js 20).
need_node() {
    need_command node nodejs
    need_command npm npm
}

# wasm-bindgen-cli at the wasm-bindgen version in Cargo.lock (`cargo install`, into ~/.cargo/bin).
need_wasm_bindgen_cli() {
    rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
    local version
    version=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
    export PATH="$HOME/.cargo/bin:$PATH"
    if [ "$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
        echo "setup: installing wasm-bindgen-cli $version"
        # Unoptimized: it compiles in well under half the CPU time of opt-level 1, and what it
        # does per call (rewrite one module, a few times per test run) stays about two seconds.
        # No TLS: its test runner only talks to a local ChromeDriver, over http.
        CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install wasm-bindgen-cli --version "$version" \
            --no-default-features
    fi
}

# Chromium (headless, WebGPU on SwiftShader) and its ChromeDriver; also ships SwiftShader's
# Vulkan driver, /usr/lib/chromium/vk_swiftshader_icd.json.
need_chromium() {
    if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
        apt_install chromium chromium-driver libvulkan1
    fi
}

# Debian's Firefox ESR (153 on bookworm-security), headless; its WebGPU runs on Mesa's lavapipe
# (scripts/setup-native.sh installs it), with WebGPU switched on by preference in the test's own
# profile (tests/js/firefox-test.mjs).
need_firefox() {
    need_command firefox-esr firefox-esr
}

# tests/js (the Node.js, Deno and Web Worker tests): its locked npm dependencies (`webgpu`, the
# Dawn WebGPU for Node.js; `deno`, whose npm package carries the Deno binary as an optional
# dependency; `playwright-core`), installed without install scripts, then the freshly built
# package from its tarball.
prepare_js_tests() {
    need_node
    local stamp=tests/js/node_modules/.package-lock.json
    if [ ! -f "$stamp" ] || [ tests/js/package-lock.json -nt "$stamp" ]; then
        # Not `npm ci`: a registry mirror holding only this platform's @deno/* package leaves the
        # other platforms out of the lock, which `npm ci` refuses; `npm install` takes the lock's
        # versions and skips the missing optional packages (--no-save: the lock stays as it is).
        npm install --prefix tests/js --no-save --ignore-scripts --no-audit --no-fund
    fi
    bash scripts/build-pkg.sh --demo tests/js
}

# Serves DIR on a free local port until the script exits; sets `port`. Waits until PATH (a file
# under DIR, default the index) answers.
# Node, Chromium, www/'s playwright-core and the demo build of the package installed into www/
# (the page test and the browser benchmark drive www/ pages with them).
prepare_www() {
    need_node
    need_chromium
    # playwright-core first: a plain `npm install` would prune the package build-pkg.sh installs.
    if [ ! -d www/node_modules/playwright-core ]; then
        npm install --prefix www --no-audit --no-fund
    fi
    bash scripts/build-pkg.sh --demo
}

serve_dir() {
    local dir=$1 path=${2:-}
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server --bind 127.0.0.1 "$port" --directory "$dir" >"/tmp/serve-$(basename "$dir").log" 2>&1 &
    local server=$!
    trap "kill $server 2>/dev/null || true" EXIT
    for _ in $(seq 50); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/$path')" 2>/dev/null && break
        sleep 0.1
    done
}

# tests/snarkjs (the snarkjs tests, page and benchmark): its locked npm dependencies (snarkjs,
# circom2, webgpu, playwright-core), installed without install scripts.
install_snarkjs_deps() {
    need_node
    local stamp=tests/snarkjs/node_modules/.package-lock.json
    if [ ! -f "$stamp" ] || [ tests/snarkjs/package-lock.json -nt "$stamp" ]; then
        npm install --prefix tests/snarkjs --no-save --ignore-scripts --no-audit --no-fund
    fi
}

# The same, then the freshly built package from its tarball, or the tarball WEBGPU_MSM_TGZ names
# (a machine without Rust).
prepare_snarkjs_tests() {
    install_snarkjs_deps
    if [ -n "${WEBGPU_MSM_TGZ:-}" ]; then
        npm install --prefix tests/snarkjs --no-save --ignore-scripts --no-audit --no-fund "$WEBGPU_MSM_TGZ" >/dev/null
    else
        # The demo build, as tests/js's: the same cargo features, so one wasm build serves both.
        bash scripts/build-pkg.sh --demo tests/snarkjs
    fi
}
