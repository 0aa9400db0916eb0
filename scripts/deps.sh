#!/usr/bin/env bash
# Installs every Debian 12 package Sandbench needs to build, test and run; with --tests also
# what only the tests need (scripts/test.sh asks for it, the demo does not). Idempotent: when all
# are present it changes nothing and asks no package server.
set -euo pipefail

tests=0
for a in "$@"; do
  case $a in
    --tests) tests=1 ;;
    *) echo "usage: scripts/deps.sh [--tests]" >&2; exit 2 ;;
  esac
done

packages=(
  # build
  build-essential cmake ninja-build ccache pkg-config clang-format
  # fuzzing (scripts/fuzz.sh): clang with libFuzzer and the sanitizers' run-time libraries
  clang libclang-rt-14-dev
  # libraries
  libseccomp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev
  libsqlite3-dev libvterm-dev libzstd-dev libdtl-dev libcivetweb-dev libarchive-dev
  libnftables-dev libpsl-dev zlib1g-dev libssl-dev libsecret-1-dev
  # the GUI: Qt 6 Widgets, SVG icons, Qt Test, Linguist tools; the offscreen and X11 platforms;
  # the fonts of a Debian or Ubuntu desktop, whose monospace font (Noto Sans Mono) is not
  # flagged fixed-pitch, so the GUI tests meet it
  qt6-base-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-qpa-plugins
  libgl-dev fonts-dejavu-core fonts-noto-mono
  # run time: diff for reviews, the demo agent's tools; Qt's own translations (standard buttons
  # in German)
  diffutils python3 bash qt6-translations-l10n
  # sandbox side: the E2B code interpreter's kernels (`serve`, template code-interpreter-v1),
  # which sandboxes see from this machine's /usr, with the charts and tables people expect;
  # R's kernel for its language 'r'
  python3-ipykernel python3-jupyter-client python3-matplotlib python3-pandas python3-pil
  r-cran-irkernel
  # tests: toolchains inside the sandbox, pty programs, the unprivileged test user, a static
  # busybox for the root file system images (and glibc's static libc for a static probe)
  git make gcc nodejs less procps passwd util-linux bsdutils busybox-static libc6-dev tar
  # other hosts (sandbench-cli --host ssh://…): the ssh client
  openssh-client
  # benchmarks: the reference sandbox and the timer
  bubblewrap hyperfine
  # GUI screenshots and the window tests under a real X server
  xvfb xauth
  # recordings: the real asciicast player the export tests play through
  asciinema
  # network proxy: real clients and a test CA in its tests (the proxy benchmark also uses npm,
  # which comes with nodejs on machines where nodejs is not Debian's own package)
  curl wget openssl ca-certificates
  # packaging: the .deb's dependencies (dpkg-shlibdeps), PNG icons from the SVG, and the
  # package test's checks (lintian, desktop-file-validate, appstreamcli, man, xwininfo on Xvfb)
  dpkg-dev librsvg2-bin lintian desktop-file-utils appstream x11-utils man-db
)

# Only for the tests: Debian's ssh server, which the git-over-ssh test starts on an address of a
# network namespace of its own, and the remote host tests and benchmark on a loopback port, each
# with a configuration of its own (`sshd -D -f`). Its system
# service must not run (see below). netcat, one of the programs the transparent network test
# runs in a sandbox. A private D-Bus session with GNOME Keyring's Secret Service and secret-tool,
# for the secrets read from the keyring (KeyringSecretsTest); its prompts (gcr) are not needed.
# nss-myhostname, which makes every *.localhost name this machine for programs that ask the
# system's resolver: the E2B tests fetch getHost(port)'s names from Node (docs/e2b.md, "Ports").
if [ "$tests" -eq 1 ]; then
  packages+=(openssh-server netcat-openbsd dbus-daemon dbus-bin gnome-keyring libsecret-tools
    libnss-myhostname)
fi

# The JS test clients (tests/js) need npm: Debian's own package beside Debian's nodejs, part of
# the nodejs package where that comes from elsewhere (and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "scripts/deps.sh: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
# openssh-server installed here is for the tests alone: Debian's ssh service does not start, now
# or at boot, while /etc/ssh/sshd_not_to_be_run exists (its unit and init script check it), so
# the package puts no ssh server on this machine's network. Remove that file to run one.
for p in "${missing[@]}"; do
  if [ "$p" = openssh-server ]; then
    "${sudo[@]}" mkdir -p /etc/ssh
    "${sudo[@]}" touch /etc/ssh/sshd_not_to_be_run
    echo "scripts/deps.sh: openssh-server is for the tests only; its service stays off (/etc/ssh/sshd_not_to_be_run)" >&2
  fi
done
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
